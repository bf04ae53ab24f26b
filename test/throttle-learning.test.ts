import { describe, expect, it } from 'vitest';
import { RateLimitError, ThrottledError } from '../src/errors/index.ts';
import type { AccountThrottle } from '../src/throttle/index.ts';
import { throttlesPerTest } from './helpers/throttle-factory.ts';

/** One throttle per connection, as separate worker processes would have. */
const { throttle } = throttlesPerTest({ account: 'acme', limits: { hour: 100, day: 1_000 }, maxInlineWaitMs: 0 });

function tooMany(retryAfterMs?: number, window?: string): RateLimitError {
  return new RateLimitError({ status: 429, method: 'POST', path: '/api/Bills', body: null }, retryAfterMs, window);
}

async function send(t: AccountThrottle, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await t.acquire();
}

describe('learning from a 429 that came before the budget was used', () => {
  it('lowers the named window to what the service accepted, for every worker and every later run', async () => {
    const [w1, w2] = [throttle(), throttle()];
    await send(w1, 15);
    await send(w2, 15);
    // 30 sent; the 30th was refused, and so was the 29th, still in flight: the service took 28.
    await w1.onRateLimited(tooMany(50, 'requests per hour'));
    await w2.onRateLimited(tooMany(50, 'requests per hour'));

    const later = throttle(); // a new process: it reads what was learned from Redis
    const status = await later.status();
    const hour = status.windows.find((w) => w.window === 'hour')!;
    expect(hour).toMatchObject({ limit: 28, configured: 100, used: 30, remaining: 0 });
    expect(hour.learned?.limit).toBe(28);
    expect(Math.abs(hour.learned!.at.getTime() - Date.now())).toBeLessThan(5_000);
    const day = status.windows.find((w) => w.window === 'day')!;
    expect(day).toMatchObject({ limit: 1_000, configured: 1_000, learned: undefined, used: 30, remaining: 970 });
    expect(status.tightest?.window).toBe('hour');

    await new Promise((r) => setTimeout(r, 60));
    const err = await later.acquire().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ThrottledError);
    expect((err as ThrottledError).message).toMatch(/^account acme: hourly budget of 28 used; waiting 1 h 1 min$/);
    expect((await later.status()).reason).toBe('waiting 1 h 1 min: hourly budget of 28 used');
  });

  it('lowers the shortest window with room when the 429 names none, also with no configured limits', async () => {
    const w = throttle({ limits: {} });
    await send(w, 7);
    await w.onRateLimited(tooMany(0));
    const status = await w.status();
    expect(status.windows.map((s) => [s.window, s.limit, s.configured, s.used])).toEqual([['hour', 6, undefined, 7]]);
    expect(status.usage).toEqual({ second: expect.any(Number), minute: 7, hour: 7, day: 7, week: 7, month: 7 });
  });

  it('learns nothing a 429 cannot explain, and never raises a limit', async () => {
    const w = throttle({ maxInlineWaitMs: 100 }); // sends wait out the 1 ms pauses of Retry-After: 0
    // Nothing sent yet: another client of the key used it up. No limit of 0 is learned.
    await w.onRateLimited(tooMany(0, 'hour'));
    expect((await w.status()).windows.map((s) => s.limit)).toEqual([100, 1_000]);

    await send(w, 10);
    await w.onRateLimited(tooMany(0, 'hour'));
    expect((await w.status()).windows[0]!.limit).toBe(9);
    // A new burst (the 1 ms pause is over) in the same window: 10 sent, 1 refused, 9 again; and
    // a limit that learning would put higher than the configured one is not taken.
    await new Promise((r) => setTimeout(r, 5));
    await w.onRateLimited(tooMany(0, 'hour'));
    expect((await w.status()).windows[0]!.limit).toBe(9);
    await new Promise((r) => setTimeout(r, 5));
    const small = throttle({ limits: { hour: 100, day: 5 } });
    await small.onRateLimited(tooMany(0, 'day'));
    expect((await small.status()).windows.map((s) => [s.window, s.limit, s.learned?.limit])).toEqual([['hour', 9, 9], ['day', 5, undefined]]);
  });

  it('forgets what it learned on resetLearned', async () => {
    const w = throttle();
    await send(w, 5);
    await w.onRateLimited(tooMany(0, 'day'));
    expect((await w.status()).windows.find((s) => s.window === 'day')!.limit).toBe(4);
    await w.resetLearned();
    expect((await w.status()).windows.find((s) => s.window === 'day')!).toMatchObject({ limit: 1_000, learned: undefined });
  });
});

describe('status and estimates', () => {
  it('reports used, remaining, reset and the tightest window', async () => {
    const w = throttle({ limits: { minute: 10, hour: 20 } });
    await send(w, 4);
    let status = await w.status();
    const minute = status.windows[0]!;
    expect(minute).toMatchObject({ window: 'minute', lengthMs: 60_000, limit: 10, used: 4, remaining: 6, waitMs: 0 });
    expect(minute.resetInMs).toBeGreaterThan(58_000);
    // A send counts for the window plus the margin (1 s on a minute, see AccountThrottleOptions.margin).
    expect(minute.resetInMs).toBeLessThanOrEqual(61_000);
    expect(status.windows[1]).toMatchObject({ window: 'hour', limit: 20, used: 4, remaining: 16 });
    expect(status.tightest?.window).toBe('minute');
    expect(status).toMatchObject({ account: 'acme', waitMs: 0, pausedUntil: undefined, reason: undefined, probing: false });

    await send(w, 6);
    status = await w.status();
    expect(status.tightest).toMatchObject({ window: 'minute', remaining: 0 });
    // 61 s: the minute plus the margin; formatWait rounds up to whole minutes.
    expect(status.reason).toBe('waiting 2 min: per-minute budget of 10 used');
    expect(status.pausedUntil!.getTime()).toBe(status.at.getTime() + status.waitMs);

    // 10 more fit when the minute frees; the 11th waits for the hour (20) to free.
    const ten = await w.estimateMs(10);
    expect(ten).toBeGreaterThan(59_000);
    expect(ten).toBeLessThan(61_500); // the minute plus its margin
    const eleven = await w.estimateMs(11);
    expect(eleven).toBeGreaterThan(3_599_000);
    expect(eleven).toBeLessThan(3_602_000); // the hour plus its margin
  });

  it('adds a pause to the estimate', async () => {
    const w = throttle({ limits: { hour: 5 } });
    await w.onRateLimited(tooMany(10_000));
    const eta = await w.estimateMs(6);
    expect(eta).toBeGreaterThan(10_000 + 3_599_000);
    expect(eta).toBeLessThanOrEqual(10_000 + 3_601_200); // the hour plus its 1 s margin
  });
});
