import type { RateLimitError } from '../errors/index.ts';

/**
 * What the API client asks of a rate gate before and after each request. Declared here with the
 * same shape as the API client's own `RequestGate` (src/api), so that this folder does not wait
 * on that one; TypeScript's structural typing makes the two interchangeable.
 */
export interface RequestGate {
  /** Resolves when the request may be sent; the send is counted against the budget. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** The service answered 429: pause every worker of the account and learn from it. */
  onRateLimited(err: RateLimitError): Promise<void>;
  /** The service answered a request (any status but 429). */
  onSuccess?(): void;
}
