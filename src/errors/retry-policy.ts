import {
  BuildsyncError,
  DatabaseUnavailableError,
  HttpError,
  NetworkError,
  RateLimitError,
  RecordBusyError,
  RetryLaterError,
  ServerError,
  ThrottledError,
} from './errors.ts';

/**
 * What to do with a failure, in one table (STYLE.md §3), read by the client, the engine and the
 * job processors alike:
 * - `never`: 4xx, validation, config — retrying cannot help (a job: BullMQ `UnrecoverableError`);
 * - `budget`: 429, or another live sender holds the record — wait (`waitMs`), without using up attempts;
 * - `bounded`: 5xx and network failures that certainly did not deliver, and `RetryLaterError` —
 *   a few attempts with jitter;
 * - `unknown`: the request may have reached the service — never resent automatically.
 */
export type RetryDecision = 'never' | 'budget' | 'bounded' | 'unknown';

export function retryDecision(err: unknown): RetryDecision {
  if (err instanceof RateLimitError || err instanceof ThrottledError || err instanceof RecordBusyError) return 'budget';
  if (err instanceof RetryLaterError) return 'bounded';
  if (err instanceof ServerError) return 'bounded';
  if (err instanceof DatabaseUnavailableError) return 'bounded';
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

/** How long a `budget` failure asks to wait before the next try; `fallbackMs` when it does not say. */
export function waitMs(err: unknown, now = Date.now(), fallbackMs = 5_000): number {
  if (err instanceof ThrottledError) return err.waitMs;
  if (err instanceof RateLimitError) return err.retryAfterMs ?? fallbackMs;
  if (err instanceof RecordBusyError) return Math.max(100, err.untilMs + 50 - now);
  return fallbackMs;
}
