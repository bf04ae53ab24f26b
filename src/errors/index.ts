export * from './errors.ts';
export { retryDecision, backoffMs, waitMs, type RetryDecision } from './retry-policy.ts';
export { EXIT, exitCodeOf, exitCodeOfAll } from './exit-codes.ts';
