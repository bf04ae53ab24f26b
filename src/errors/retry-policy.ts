import {
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
 * What to do with a failure, in one table (ARCHITECTURE.md, "Where each decision lives"), read by the client, the record sender and
 * the job processors alike:
 * - `never`: 4xx, validation, config — retrying cannot help (a job: BullMQ `UnrecoverableError`);
 *   after a hand-over, only a 4xx: the service refused the create and stored nothing;
 * - `budget`: 429, or another live sender holds the record — wait (`waitMs`), without using up attempts;
 * - `bounded`: 5xx and network failures that certainly did not deliver, and `RetryLaterError` —
 *   a few attempts with jitter;
 * - `unknown`: a create was handed over and may have reached the service (a 5xx, a connection cut
 *   after sending, a success without a readable ID, anything unforeseen) — never resent
 *   automatically, since the service would store it twice.
 */
export type RetryDecision = 'never' | 'budget' | 'bounded' | 'unknown';

export interface RetryContext {
  /**
   * A create (a request the service would store twice) was handed over to the connection: from
   * then on it may have reached the service. False (the default) for a request that may be
   * repeated whatever reached the service (a GET), and for a create that was never handed over.
   */
  handedOver?: boolean;
}

export function retryDecision(err: unknown, { handedOver = false }: RetryContext = {}): RetryDecision {
  // Nothing was stored, whenever it came: a 429 is a refusal, a budget wait or a busy record sent nothing.
  if (err instanceof RateLimitError || err instanceof ThrottledError || err instanceof RecordBusyError) return 'budget';
  // Already judged worth another attempt (by the record sender), or not a request to the service.
  if (err instanceof RetryLaterError || err instanceof DatabaseUnavailableError) return 'bounded';
  // The connection could not be opened: the request never left, whatever was handed over.
  if (err instanceof NetworkError && !err.maybeDelivered) return 'bounded';
  if (handedOver) {
    // A 4xx is the service's refusal (nothing stored); anything else may have stored the create.
    return err instanceof HttpError && err.status >= 400 && err.status < 500 ? 'never' : 'unknown';
  }
  if (err instanceof ServerError || err instanceof NetworkError) return 'bounded';
  // 4xx, validation, an unreadable answer, config; anything else (a bug, an unexpected throw) is
  // not retried either: a retry would hide it.
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
