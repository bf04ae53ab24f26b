/**
 * The budget the real service publishes per API key (docs/service.md; it says these may change):
 * the one home of these numbers. The tool's default budget (`BUILDSYNC_LIMITS` unset,
 * `DEFAULT_LIMITS` in src/throttle/parse-limits.ts) and the sandbox's default limits (the
 * service as it behaves, src/sandbox/options.ts) are both these.
 */
export const PUBLISHED_LIMITS = Object.freeze({ hour: 500, day: 10_000, week: 50_000, month: 200_000 } as const);
