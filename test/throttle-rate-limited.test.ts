import { describe, expect, it } from 'vitest';
import { RateLimitError, ThrottledError } from '../src/errors/index.ts';
import type { AccountThrottle, AccountThrottleOptions } from '../src/throttle/index.ts';
import { throttleKeyBase } from '../src/redis/layout.ts';
import { throttlesPerTest } from './helpers/throttle-factory.ts';

const throttles = throttlesPerTest({ limits: {}, maxInlineWaitMs: 0 });
/** One throttle per connection, as separate worker processes would have. */
const throttle = (account: string, opts: Partial<AccountThrottleOptions> = {}): AccountThrottle => throttles.throttle({ account, ...opts });

function tooMany(retryAfterMs?: number, window?: string): RateLimitError {
  return new RateLimitError({ status: 429, method: 'POST', path: '/api/v2/estimates', body: { Message: 'slow down' } }, retryAfterMs, window);
}

async function until(check: () => Promise<boolean>, timeoutMs = 2_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The account's current probe interval, as the shared pause script set it (none before the first 429 without a wait). */
async function probeInterval(account = 'acme'): Promise<number> {
  return Number(await throttles.redis.hget(`${throttleKeyBase(throttles.redis, throttles.prefix, account)}:probe`, 'interval'));
}

describe('a 429 from the service', () => {
  it('with a stated wait pauses every worker of the account for that long, and no other account', async () => {
    const [a1, a2, b] = [throttle('acme'), throttle('acme'), throttle('globex')];
    await a1.onRateLimited(tooMany(400, 'Hourly'));

    const err = await a2.acquire().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ThrottledError);
    expect((err as ThrottledError).window).toBe('hour');
    expect((err as ThrottledError).waitMs).toBeLessThanOrEqual(400);
    expect((err as ThrottledError).message).toBe('account acme: the service answered 429 (hourly limit); waiting 1 s');
    await b.acquire();

    const status = await a2.status();
    expect(status.reason).toBe('waiting 1 s: the service answered 429 (hourly limit)');
    expect(status.pausedUntil!.getTime() - status.at.getTime()).toBe(status.waitMs);
    expect(status.probing).toBe(false);

    // A worker that may wait inline resumes when the pause ends (not before), and nothing is probed after it.
    const patient = throttle('acme', { maxInlineWaitMs: 1_000 });
    await patient.acquire();
    expect(Date.now()).toBeGreaterThanOrEqual(status.pausedUntil!.getTime() - 5);
    await Promise.all([a1.acquire(), a2.acquire(), patient.acquire()]);
  });

  it('without a stated wait lets exactly one probe through after the pause, doubling the interval on each failed probe', async () => {
    // Intervals of 300 and 600 ms: the attempts made at once after a 429 fall inside its pause however slow the machine.
    const probe = { initialMs: 300, maxMs: 700 };
    const workers = [throttle('acme', { probe }), throttle('acme', { probe }), throttle('acme', { probe })];
    const other = throttle('globex', { probe });
    await workers[0]!.onRateLimited(tooMany());
    // The other 429s of the same burst (requests that were in flight) do not lengthen the pause.
    await workers[1]!.onRateLimited(tooMany());
    const paused = await workers[2]!.status();
    expect(paused.probing).toBe(true);
    expect(await probeInterval()).toBe(300);
    expect(paused.waitMs).toBeLessThanOrEqual(300);
    expect(paused.reason).toBe('paused by a 429 from the service; probing every 1 s');
    await other.acquire();

    const attempt = () => Promise.allSettled(workers.flatMap((w) => [w.acquire(), w.acquire()]));
    expect((await attempt()).every((r) => r.status === 'rejected')).toBe(true);

    await sleep(330);
    let results = await attempt();
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ThrottledError);
    const prober = workers[Math.floor(results.findIndex((r) => r.status === 'fulfilled') / 2)]!;

    // The probe meets a 429 too: the next pause is twice as long.
    await prober.onRateLimited(tooMany());
    expect(await probeInterval()).toBe(600);
    expect((await workers[0]!.status()).waitMs).toBeLessThanOrEqual(600);
    await sleep(630);
    results = await attempt();
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const prober2 = workers[Math.floor(results.findIndex((r) => r.status === 'fulfilled') / 2)]!;

    // Probe answered: every worker resumes, and the interval starts again from the first one.
    prober2.onSuccess();
    await until(async () => !(await workers[0]!.status()).probing);
    results = await attempt();
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
    await workers[0]!.onRateLimited(tooMany());
    expect(await probeInterval()).toBe(300);
    expect((await workers[1]!.status()).waitMs).toBeLessThanOrEqual(300);
  });

  it('caps the probe interval', async () => {
    const probe = { initialMs: 100, maxMs: 250 };
    const w = throttle('acme', { probe, maxInlineWaitMs: 1_000 });
    const intervals: number[] = [];
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      await w.onRateLimited(tooMany());
      intervals.push(await probeInterval());
      waits.push((await w.status()).waitMs);
      await w.acquire(); // waits out the pause inline and is granted the probe
    }
    // Doubled on each failed probe, up to the cap; each pause no longer than its interval.
    expect(intervals).toEqual([100, 200, 250, 250]);
    for (let i = 0; i < 4; i++) expect(waits[i]).toBeLessThanOrEqual(intervals[i]!);
  });
});
