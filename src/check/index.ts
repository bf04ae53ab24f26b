export { runChecks, checkExitCode, REDIS_NEEDS, type CheckFinding, type CheckLevel, type CheckName, type CheckOptions, type CheckReport } from './check.ts';
