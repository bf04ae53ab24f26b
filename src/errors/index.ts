export * from './errors.ts';
export { retryDecision, backoffMs, waitMs, type RetryDecision } from './retry-policy.ts';
export { EXIT, exitCodeOf } from './exit-codes.ts';
