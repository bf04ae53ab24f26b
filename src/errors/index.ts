export * from './errors.ts';
export { retryDecision, backoffMs, waitMs, type RetryDecision, type RetryContext } from './retry-policy.ts';
export { EXIT, exitCodeOf, exitCodeOfAll, firstExit, type ExitStatus } from './exit-codes.ts';
export { advise, joinWording, messageFor, render, type Advice, type Front, type QuotedHeader, type Wording } from './wording.ts';
