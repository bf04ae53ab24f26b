/**
 * Per-user request budgets over several windows (docs/service.md, Rate limits: hour, day, week, month; the sandbox
 * also knows second and minute). O(1) per request and per window, so a 200,000-request run
 * stays cheap.
 */
import type { Limits } from './options.ts';
import type { WindowName } from './types.ts';

interface WindowCounter {
  /** ms until one more request fits; 0 when it fits now. */
  waitMs(now: number): number;
  record(now: number): void;
}

/**
 * Sliding log: at most `limit` accepted requests in any span of `lengthMs`. Holding only the
 * last `limit` timestamps is enough: when the oldest of them is still inside the window, the
 * window is full. The ring grows on demand so a large month limit costs memory only when used.
 */
class RollingCounter implements WindowCounter {
  private ring = new Float64Array(0);
  private head = 0;
  private count = 0;
  constructor(private readonly limit: number, private readonly lengthMs: number) {}

  waitMs(now: number): number {
    if (this.count < this.limit) return 0;
    const oldest = this.ring[this.head]!;
    return Math.max(0, oldest + this.lengthMs - now);
  }

  record(now: number): void {
    if (this.count < this.limit) {
      if (this.count === this.ring.length) {
        // Not yet wrapped: the timestamps are in order at 0..count-1, so a plain copy keeps them.
        const bigger = new Float64Array(Math.min(this.limit, Math.max(64, this.ring.length * 2)));
        bigger.set(this.ring);
        this.ring = bigger;
      }
      this.ring[this.count++] = now;
      this.head = this.count % this.limit;
      return;
    }
    this.ring[this.head] = now;
    this.head = (this.head + 1) % this.limit;
  }
}

/** Fixed buckets aligned to whole multiples of the window length since the epoch. */
class AlignedCounter implements WindowCounter {
  private bucket = -1;
  private used = 0;
  constructor(private readonly limit: number, private readonly lengthMs: number) {}

  waitMs(now: number): number {
    const bucket = Math.floor(now / this.lengthMs);
    if (bucket !== this.bucket || this.used < this.limit) return 0;
    return (bucket + 1) * this.lengthMs - now;
  }

  record(now: number): void {
    const bucket = Math.floor(now / this.lengthMs);
    if (bucket !== this.bucket) {
      this.bucket = bucket;
      this.used = 0;
    }
    this.used++;
  }
}

export interface RateDecision {
  allowed: boolean;
  /** When refused: the window whose wait is longest, its limit and the wait in real ms. */
  window?: WindowName;
  limit?: number;
  waitMs?: number;
}

export interface RateLimiterConfig {
  limits: Limits;
  /** Real window lengths, already divided by the time scale. */
  windowMs: Record<WindowName, number>;
  counting: 'rolling' | 'aligned';
}

export class RateLimiter {
  private readonly perUser = new Map<string, Array<{ name: WindowName; limit: number; counter: WindowCounter }>>();
  constructor(private readonly config: RateLimiterConfig) {}

  /**
   * Counts the request when every window has room. A refused request is not counted
   * (DECISIONS.md): a client that keeps knocking during a 429 does not push its wait further.
   */
  take(user: string, now: number): RateDecision {
    const { limits } = this.config;
    if (limits === 'none') return { allowed: true };
    let counters = this.perUser.get(user);
    if (!counters) {
      counters = [];
      for (const [name, limit] of Object.entries(limits) as Array<[WindowName, number]>) {
        const length = this.config.windowMs[name];
        const counter = this.config.counting === 'rolling' ? new RollingCounter(limit, length) : new AlignedCounter(limit, length);
        counters.push({ name, limit, counter });
      }
      this.perUser.set(user, counters);
    }
    let worst: RateDecision | undefined;
    for (const c of counters) {
      const wait = c.counter.waitMs(now);
      if (wait > 0 && (!worst || wait > worst.waitMs!)) worst = { allowed: false, window: c.name, limit: c.limit, waitMs: wait };
    }
    if (worst) return worst;
    for (const c of counters) c.counter.record(now);
    return { allowed: true };
  }
}
