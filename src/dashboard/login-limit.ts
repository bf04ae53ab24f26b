/**
 * How many wrong passwords one client address may try (README, "Dashboard"): after `failures`
 * failed logins within `windowMs`, every further request from that address is answered 429 for
 * `windowMs`, the right password included (otherwise the limit would tell a guesser when they
 * had found it). The address is the connection's, or with `--public-url` the one the proxy puts
 * last in `X-Forwarded-For` (Express's `trust proxy`, server.ts).
 */
export class LoginLimiter {
  private readonly failed = new Map<string, number[]>();
  private readonly blocked = new Map<string, number>();

  constructor(private readonly limits: { failures: number; windowMs: number } = LOGIN_LIMITS) {}

  /** Milliseconds until `client` may try again; 0 when it may now. */
  waitMs(client: string, now = Date.now()): number {
    const until = this.blocked.get(client);
    if (until === undefined) return 0;
    if (until > now) return until - now;
    this.blocked.delete(client);
    return 0;
  }

  /** One wrong password from `client`; the one that reaches the limit starts the wait. */
  fail(client: string, now = Date.now()): void {
    const since = now - this.limits.windowMs;
    const times = (this.failed.get(client) ?? []).filter((t) => t > since);
    times.push(now);
    if (times.length >= this.limits.failures) {
      this.failed.delete(client);
      this.blocked.set(client, now + this.limits.windowMs);
    } else {
      this.failed.set(client, times);
    }
    if (this.failed.size + this.blocked.size > MAX_TRACKED) this.forgetOld(now);
  }

  /** Many addresses (a scan) cannot grow the tables for ever: what is past its window goes. */
  private forgetOld(now: number): void {
    const since = now - this.limits.windowMs;
    for (const [client, times] of this.failed) if (times[times.length - 1]! <= since) this.failed.delete(client);
    for (const [client, until] of this.blocked) if (until <= now) this.blocked.delete(client);
  }
}

/** 10 failed logins from one address within a minute, then 429 for a minute. */
export const LOGIN_LIMITS = { failures: 10, windowMs: 60_000 } as const;

const MAX_TRACKED = 10_000;
