export * from './errors.ts';
export { retryDecision, backoffMs, waitMs, type RetryDecision, type RetryContext } from './retry-policy.ts';
export { EXIT, exitCodeOf, exitCodeOfAll, firstExit, type ExitStatus } from './exit-codes.ts';
export { MAX_LISTED, advise, andMore, concatWorded, joinWorded, joinWording, listAtMost, messageFor, pageControlOf, render, wordedLine, wordedOf, type Advice, type Front, type OptionName, type QuotedHeader, type Worded, type Wording } from './wording.ts';
