/** The 429 answer's text: names the limit hit and the wall-clock wait (DECISIONS.md, "Rate limits"). */
import type { WindowName } from './types.ts';

/** Whole seconds (rounded up) from 10 s on; below that, seconds with up to three decimals. */
export function formatWaitSeconds(waitMs: number): string {
  if (waitMs >= 10_000) return String(Math.ceil(waitMs / 1000));
  return String(Math.ceil(waitMs) / 1000);
}

export function rateLimitMessage(limit: number, window: WindowName, waitMs: number): string {
  return `Rate limit exceeded: ${limit} requests per ${window}. Try again in ${formatWaitSeconds(waitMs)} seconds.`;
}
