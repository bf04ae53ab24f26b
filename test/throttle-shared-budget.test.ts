import { describe, expect, it } from 'vitest';
import { ThrottledError } from '../src/errors/index.ts';
import type { AccountThrottle, AccountThrottleOptions, Limits } from '../src/throttle/index.ts';
import { throttlesPerTest } from './helpers/throttle-factory.ts';

const ctx = throttlesPerTest({ account: 'acme' });

/** One throttle per connection, as separate worker processes would have (the first on the test's own). */
function throttles(count: number, limits: Limits, opts: Partial<AccountThrottleOptions> = {}): AccountThrottle[] {
  return Array.from({ length: count }, (_, i) => ctx.throttle({ limits, ...(i === 0 ? { redis: ctx.redis } : {}), ...opts }));
}

async function sendTimes(): Promise<number[]> {
  const flat = await ctx.redis.zrange(`${ctx.prefix}:throttle:acme:log`, 0, -1, 'WITHSCORES');
  return flat.filter((_, i) => i % 2 === 1).map(Number);
}

/** Most sends in any interval [a, a + len): the sorted times t[i + limit] - t[i] >= len for all i. */
function maxInSlidingInterval(times: number[], len: number): number {
  let max = 0;
  let j = 0;
  for (let i = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= len) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}

function maxInAlignedBucket(times: number[], len: number): number {
  const buckets = new Map<number, number>();
  for (const t of times) buckets.set(Math.floor(t / len), (buckets.get(Math.floor(t / len)) ?? 0) + 1);
  return Math.max(0, ...buckets.values());
}

/**
 * What `rounds` windows of `windowMs` take on this machine right now, with no throttle deciding
 * anything: `perRound` sends at once on an unlimited budget, a timer of `windowMs`, and again; the
 * first round starts the clock, as a budget's first send does. Each round pays what a throttled
 * round pays besides its wait (a timer that fires late, the round trip of an acquire), so a bound
 * on a throttled run's length built on it holds on a loaded machine as on a quiet one.
 */
async function pacedRounds(pacer: AccountThrottle, rounds: number, perRound: number, windowMs: number): Promise<number> {
  const round = () => Promise.all(Array.from({ length: perRound }, () => pacer.acquire()));
  await round();
  const t0 = performance.now();
  for (let i = 0; i < rounds; i++) {
    await new Promise((r) => setTimeout(r, windowMs));
    await round();
  }
  return performance.now() - t0;
}

describe('a budget shared by every worker', () => {
  it('never lets concurrent workers on three connections exceed the limit in any interval, sliding or aligned', async () => {
    // timeScale 10: a "second" lasts 100 ms. 3 workers x 10 concurrent slots x 2 sends = 60 sends.
    const limits = { second: 5 };
    const workers = throttles(3, limits, { timeScale: 10, maxInlineWaitMs: 5_000 });
    const [, pacerMs] = await Promise.all([
      Promise.all(workers.flatMap((w) => Array.from({ length: 10 }, async () => {
        await w.acquire();
        await w.acquire();
      }))),
      pacedRounds(ctx.throttle({ account: 'pacer', limits: {} }), 11, 5, 100),
    ]);
    const times = await sendTimes();
    expect(times).toHaveLength(60);
    expect(maxInSlidingInterval([0, 60, 120, 130], 100)).toBe(3); // the checker itself sees a burst
    expect(maxInSlidingInterval(times, 100)).toBeLessThanOrEqual(5);
    expect(maxInAlignedBucket(times, 100)).toBeLessThanOrEqual(5);
    // As fast as the limit allows: 60 sends at 5 per 100 ms need 11 window lengths, not much more.
    // The 11 lengths as this machine keeps them at this moment: `pacerMs`, measured alongside (about
    // 1,110 ms on a quiet machine; on a loaded one each wake-up and round trip comes late).
    expect(times[times.length - 1]! - times[0]!, `the pacer's 11 rounds took ${Math.round(pacerMs)} ms`).toBeLessThan(pacerMs + 600);
  });

  it('holds every window at once and hands long waits back as ThrottledError naming the window', async () => {
    // timeScale 60: a minute lasts 1 s, an hour 60 s. 30 attempts against minute=10, hour=25.
    const workers = throttles(3, { minute: 10, hour: 25 }, { timeScale: 60, maxInlineWaitMs: 3_000 });
    const results = await Promise.allSettled(workers.flatMap((w) => Array.from({ length: 10 }, () => w.acquire())));
    const sent = results.filter((r) => r.status === 'fulfilled');
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    expect(sent).toHaveLength(25);
    expect(refused).toHaveLength(5);
    for (const err of refused) {
      expect(err).toBeInstanceOf(ThrottledError);
      const t = err as ThrottledError;
      expect(t.code).toBe('BUILDSYNC_THROTTLED');
      expect(t.window).toBe('hour');
      expect(t.account).toBe('acme');
      expect(t.waitMs).toBeGreaterThan(3_000);
      expect(t.waitMs).toBeLessThanOrEqual(60_000);
      expect(t.message).toMatch(/^account acme: hourly budget of 25 used; waiting \d+ s$/);
    }
    const times = await sendTimes();
    expect(maxInSlidingInterval(times, 1_000)).toBeLessThanOrEqual(10);
    expect(maxInAlignedBucket(times, 1_000)).toBeLessThanOrEqual(10);
  });

  it('throws at once, recording nothing, when the wait is longer than maxInlineWaitMs', async () => {
    const [w] = throttles(1, { hour: 2 }, { maxInlineWaitMs: 100 });
    await w!.acquire();
    await w!.acquire();
    const err = await w!.acquire().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ThrottledError);
    expect((err as ThrottledError).window).toBe('hour');
    expect((err as ThrottledError).message).toBe('account acme: hourly budget of 2 used; waiting 1 h 1 min');
    expect(await sendTimes()).toHaveLength(2);
  });

  it('stops waiting when the signal aborts, with the signal\'s reason', async () => {
    const [w] = throttles(1, { second: 1 }, { maxInlineWaitMs: 5_000 });
    await w!.acquire();
    const controller = new AbortController();
    const waiting = w!.acquire(controller.signal);
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    await expect(waiting).rejects.toThrow('shutting down');
    expect(await sendTimes()).toHaveLength(1);
  });

  it('keeps accounts apart', async () => {
    const a = ctx.throttle({ redis: ctx.redis, account: 'acme', limits: { hour: 1 }, maxInlineWaitMs: 0 });
    const b = ctx.throttle({ redis: ctx.redis, account: 'globex', limits: { hour: 1 }, maxInlineWaitMs: 0 });
    await a.acquire();
    await expect(a.acquire()).rejects.toBeInstanceOf(ThrottledError);
    await b.acquire();
  });
});
