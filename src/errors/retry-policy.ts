import {
  BuildsyncError,
  HttpError,
  NetworkError,
  RateLimitError,
  ServerError,
  ThrottledError,
} from './errors.ts';

/**
 * What to do with a failure, in one table (STYLE.md §3):
 * - `never`: 4xx, validation, config — retrying cannot help;
 * - `budget`: 429 — wait until the account's rate budget allows, without using up attempts;
 * - `bounded`: 5xx and network failures that certainly did not deliver — a few attempts with jitter;
 * - `unknown`: the request may have reached the service — never resent automatically.
 */
export type RetryDecision = 'never' | 'budget' | 'bounded' | 'unknown';

export function retryDecision(err: unknown): RetryDecision {
  if (err instanceof RateLimitError || err instanceof ThrottledError) return 'budget';
  if (err instanceof ServerError) return 'bounded';
  if (err instanceof NetworkError) return err.maybeDelivered ? 'unknown' : 'bounded';
  if (err instanceof HttpError) return 'never';
  if (err instanceof BuildsyncError) return 'never';
  // Anything else (a bug, an unexpected throw) is not retried: a retry would hide it.
  return 'never';
}

/** Full-jitter exponential backoff (AWS architecture blog), capped. */
export function backoffMs(attempt: number, baseMs = 200, capMs = 10_000): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(Math.random() * ceiling);
}
