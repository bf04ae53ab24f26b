export { runChecks, type CheckOptions } from './run-checks.ts';
export { readingLines } from './config.ts';
export { checkExitCode, type AccountReading, type CheckFinding, type CheckLevel, type CheckName, type CheckReport } from './finding.ts';
export { REDIS_NEEDS } from '../redis/acl.ts';
