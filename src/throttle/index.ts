export { AccountThrottle, THROTTLE_DEFAULTS, type AccountThrottleOptions } from './account-throttle.ts';
export type { BudgetStatus, WindowStatus } from './budget-status.ts';
export { budgetUsedReason, formatEta, probingText, remainingText, serviceLimitReason, waitingText, windowAdjective } from './budget-format.ts';
export { InlineWaitPool } from './inline-wait-pool.ts';
export { estimateDurationMs, type BudgetEstimate, type Usage, type WindowEstimate } from './estimate.ts';
export { DEFAULT_LIMITS, formatLimits, parseLimits, type Limits } from './parse-limits.ts';
export type { RequestGate } from './request-gate.ts';
export { WINDOW_LENGTH_MS, WINDOW_NAMES, normalizeWindowName, type WindowName } from './windows.ts';
