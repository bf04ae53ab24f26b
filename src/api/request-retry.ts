/**
 * How the client carries out the one retry table (`retryDecision` in src/errors decides):
 * - 429 (`budget`): nothing was stored, so resending is always safe and does not use up attempts.
 *   With a gate (src/throttle) the gate decides how long to wait; without one the client waits what
 *   the service asked (or a capped jittered backoff), at most `retries` times.
 * - `bounded` (5xx and network failures of a GET; a POST whose connection could not be opened):
 *   retried with full-jitter backoff, at most `retries` times. A POST answered 5xx or cut after
 *   sending is `unknown` and thrown to the caller, who knows whether a duplicate is harmful
 *   (estimates: one per project; bills: no guard).
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { SendSlots } from './send-slots.ts';
import { HttpError, InterruptedError, RateLimitError, ResponseInvalidError, backoffMs, retryDecision } from '../errors/index.ts';

/** What the client asks of a rate gate (src/throttle's AccountThrottle implements it). */
export interface RequestGate {
  /**
   * Resolves when the request may be sent; the send is counted against the budget. May resolve
   * to a ticket that the client hands back to `settle` once the attempt has ended.
   */
  acquire(signal?: AbortSignal): Promise<unknown>;
  /**
   * The attempt of `ticket` has ended (answered, or failed on the connection). The service
   * counted the request when it arrived, which is no later than now: a gate that counted it from
   * the moment it granted it moves it to now, so a slow start (connection set-up, a busy event
   * loop) cannot make the next window open early. `answered`: the service answered (any status,
   * a 429 too), so it has certainly counted the request by now; false when the attempt failed on
   * the connection, where a request may still reach the service a little later.
   */
  settle?(ticket: unknown, answered: boolean): void;
  /**
   * False when the budget changed its mind about `ticket` before it was sent (a 429 arrived while
   * the request waited for a send slot): the client then hands it back with `withdraw` and asks
   * again instead of sending into a limit it already knows is spent.
   */
  stillValid?(ticket: unknown): boolean;
  /** The request of `ticket` was never sent: stop counting it. */
  withdraw?(ticket: unknown): void;
  /**
   * The service answered 429: pause every worker of the account and learn from it. `ticket` is
   * the refused request's: when it was granted tells a 429 already on its way when the limit was
   * learned from a new one.
   */
  onRateLimited(err: RateLimitError, ticket?: unknown): Promise<void>;
  /** The service answered (any status but 429): a probe that gets any answer ends probe mode. */
  onSuccess?(): void;
}

/** True when the service did answer, with anything but a 429 (a 4xx/5xx or an unreadable 2xx). */
function isAnswer(err: unknown): boolean {
  return (err instanceof HttpError && !(err instanceof RateLimitError)) || err instanceof ResponseInvalidError;
}

export interface RetryOptions {
  gate: RequestGate | undefined;
  /** Held from the budget token to the answer (see send-slots.ts). */
  slots?: SendSlots;
  retries: number;
  retryBaseMs: number;
  retryCapMs: number;
  maxRetryAfterMs: number;
}

/** A gate that keeps answering 429 this often in a row is not converging; stop and report. */
const MAX_CONSECUTIVE_RATE_LIMITS = 100;

export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch {
    throw new InterruptedError('interrupted while waiting to retry');
  }
}

/**
 * Whether the client tries a failed attempt again. Every attempt is handed over before it goes to
 * the socket, so a request that is not idempotent (a create) failed after its hand-over; a GET may
 * be repeated whatever reached the service.
 */
export function isSafeToRetry(err: unknown, idempotent: boolean): boolean {
  return retryDecision(err, { handedOver: !idempotent }) === 'bounded';
}

/**
 * Runs `attempt` under the policy above; `attempt` sends once and throws the error classes.
 * `beforeSend` runs once the budget token and the send slot are held, just before each attempt
 * goes to the socket (the ledger's hand-over: a record becomes "maybe sent" only from here); when
 * it throws, nothing is sent and the token is handed back.
 */
export async function withRetries<T>(
  opts: RetryOptions,
  idempotent: boolean,
  signal: AbortSignal | undefined,
  attempt: () => Promise<T>,
  beforeSend?: () => Promise<void>,
): Promise<T> {
  let failures = 0;
  let rateLimited = 0;
  for (;;) {
    if (signal?.aborted) throw new InterruptedError('interrupted before sending');
    // The budget token first, then a send slot: taking the token while holding a slot would
    // keep a connection idle for the token's round trip. A token that went stale while waiting
    // for its slot (a 429 came meanwhile) is handed back unsent.
    let ticket: unknown;
    if (opts.gate) {
      try {
        ticket = await opts.gate.acquire(signal);
      } catch (err) {
        if (signal?.aborted) throw new InterruptedError('interrupted while waiting for the rate budget');
        throw err;
      }
    }
    await opts.slots?.take();
    if (opts.gate?.stillValid && !opts.gate.stillValid(ticket)) {
      opts.slots?.give();
      opts.gate.withdraw?.(ticket);
      continue;
    }
    if (beforeSend) {
      try {
        await beforeSend();
      } catch (err) {
        opts.slots?.give();
        opts.gate?.withdraw?.(ticket);
        throw err;
      }
    }
    try {
      const result = await attempt();
      opts.slots?.give();
      opts.gate?.settle?.(ticket, true);
      opts.gate?.onSuccess?.();
      return result;
    } catch (err) {
      opts.slots?.give();
      opts.gate?.settle?.(ticket, err instanceof HttpError || err instanceof ResponseInvalidError);
      if (err instanceof RateLimitError) {
        rateLimited++;
        if (opts.gate) {
          if (rateLimited > MAX_CONSECUTIVE_RATE_LIMITS) throw err;
          await opts.gate.onRateLimited(err, ticket);
          continue;
        }
        // Without a gate there is no one to hand a long wait to: give it back to the caller.
        if (rateLimited > opts.retries || (err.retryAfterMs ?? 0) > opts.maxRetryAfterMs) throw err;
        await sleep(err.retryAfterMs ?? backoffMs(rateLimited, opts.retryBaseMs, opts.retryCapMs), signal);
        continue;
      }
      // A 404 or a 500 is still an answer: the budget is not what failed (a probe must end on it).
      if (isAnswer(err)) opts.gate?.onSuccess?.();
      if (!isSafeToRetry(err, idempotent) || ++failures > opts.retries) throw err;
      await sleep(backoffMs(failures, opts.retryBaseMs, opts.retryCapMs), signal);
    }
  }
}
