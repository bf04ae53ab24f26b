export { runChecks, type CheckOptions } from './run-checks.ts';
export { checkExitCode, type CheckFinding, type CheckLevel, type CheckName, type CheckReport } from './finding.ts';
export { REDIS_NEEDS } from './redis-acl.ts';
