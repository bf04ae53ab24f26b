export * from './errors.ts';
export { retryDecision, backoffMs, type RetryDecision } from './retry-policy.ts';
