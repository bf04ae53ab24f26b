/**
 * A worker's throttle (`maxInlineWaiters: 'auto'`) when many accounts share its job slots: an
 * account with a small budget keeps only a few waits inline and sends the other jobs away at
 * once, each told to come back a little less than one slot of the window after the one before
 * (so that one worker alone still calls back enough to keep the budget used), so that its backlog
 * neither fills the slots nor comes back all at the same moment; and all the accounts of one
 * worker together keep at most a pool's worth of waits inline, so the worker keeps fetching jobs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ThrottledError } from '../src/errors/index.ts';
import { AccountThrottle, InlineWaitPool } from '../src/throttle/index.ts';
import { testConnection, testRedis } from './helpers/redis.ts';

let t: Awaited<ReturnType<typeof testRedis>>;
beforeEach(async () => {
  t = await testRedis();
});
afterEach(() => t.cleanup());

/**
 * When a job sent away is due back, bracketed by the local clock: its wait is counted from a
 * moment between `before` (the call) and now (its answer). Brackets, not one reading, so that a
 * slow machine widens them instead of failing the spacing below.
 */
interface Bracket {
  lo: number;
  hi: number;
}
const dueBetween = (before: number, err: ThrottledError): Bracket => ({ lo: before + err.waitMs, hi: Date.now() + err.waitMs });

/** Consecutive due times (in the order they were sent away) can be `min` to under `max` ms apart. */
function expectSpacedBy(due: Bracket[], min: number, max: number): void {
  for (let i = 1; i < due.length; i++) {
    expect(due[i]!.hi - due[i - 1]!.lo, `due ${i} at least ${min} ms after due ${i - 1}`).toBeGreaterThanOrEqual(min);
    expect(due[i]!.lo - due[i - 1]!.hi, `due ${i} under ${max} ms after due ${i - 1}`).toBeLessThan(max);
  }
}

describe("a worker's throttle shared by many accounts", () => {
  it('keeps a quarter of the smallest limit waiting inline and sends the rest away at once, each due a little less than a slot after the one before', async () => {
    // second=16: 'auto' allows 4 inline waits; a "second" lasts 1 s (no time scale).
    const throttle = new AccountThrottle({ redis: t.redis, account: 'small', limits: { second: 16 }, prefix: t.prefix, maxInlineWaiters: 'auto' });
    for (let i = 0; i < 16; i++) await throttle.acquire();
    const started = Date.now();
    const awayAfterMs: number[] = [];
    // When each one sent away is due back: its wait is counted from the moment it was sent away,
    // somewhere between the start of the calls and its answer (in the order they were sent away).
    const dueAt: Bracket[] = [];
    const results = await Promise.allSettled(
      Array.from({ length: 9 }, () =>
        throttle.acquire().catch((err: unknown) => {
          awayAfterMs.push(Date.now() - started);
          dueAt.push(dueBetween(started, err as ThrottledError));
          throw err;
        }),
      ),
    );
    const sent = results.filter((r) => r.status === 'fulfilled');
    const away = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as ThrottledError] : []));
    // Four waited inline for the next window; five were sent away without waiting for it.
    expect(sent).toHaveLength(4);
    expect(away).toHaveLength(5);
    for (const err of away) {
      expect(err).toBeInstanceOf(ThrottledError);
      expect(err.window).toBe('second');
    }
    // Sent away at once (they did not wait out the window), with waits one slot apart.
    expect(Math.max(...awayAfterMs)).toBeLessThan(500);
    // Spaced by 0.9 of the budget's slot (1000/16 ms): apart, yet called back a little faster than
    // the budget sends, so that one worker alone keeps its budget used.
    expectSpacedBy(dueAt, 0.9 * (1000 / 16) - 5, 1000 / 16 - 1);
  });

  it("sends a job away at once when the worker's pool of inline waits is full, whatever its own account's cap", async () => {
    // Two accounts of second=16 ('auto': 4 inline waits each) in one worker whose pool holds 1.
    const pool = new InlineWaitPool(1);
    const opts = { redis: t.redis, limits: { second: 16 }, prefix: t.prefix, maxInlineWaiters: 'auto' as const, inlineWaits: pool };
    const a = new AccountThrottle({ ...opts, account: 'pool-a' });
    const b = new AccountThrottle({ ...opts, account: 'pool-b' });
    for (let i = 0; i < 16; i++) {
      await a.acquire();
      await b.acquire();
    }
    const started = Date.now();
    // A's wait takes the pool's one place; B's, with its own cap free, is sent away without waiting.
    const waiting = a.acquire();
    await expect.poll(() => pool.inUse).toBe(1);
    const sentAway = await b.acquire().catch((err: unknown) => err);
    expect(sentAway).toBeInstanceOf(ThrottledError);
    expect((sentAway as ThrottledError).window).toBe('second');
    expect(Date.now() - started).toBeLessThan(500);
    // A's wait ends with a send, and gives its place back: B may wait inline again.
    expect(typeof (await waiting)).toBe('string');
    expect(pool.inUse).toBe(0);
    expect(typeof (await b.acquire())).toBe('string');
    expect(pool.inUse).toBe(0);
  });

  it('refuses a pool of no places', () => {
    expect(() => new InlineWaitPool(0)).toThrow(/at least 1, got 0/);
  });

  it('waits inline as before without the cap (a command that sends on its own)', async () => {
    const throttle = new AccountThrottle({ redis: t.redis, account: 'alone', limits: { second: 8 }, prefix: t.prefix, timeScale: 4 });
    for (let i = 0; i < 8; i++) await throttle.acquire();
    const results = await Promise.allSettled(Array.from({ length: 7 }, () => throttle.acquire()));
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
  });
});

describe("a job's admission by its account's throttle, before its records are read and claimed", () => {
  it('holds a job back while as many of its account\'s jobs as a window sends, plus the inline waits, are under way, and lets it go when one is done', async () => {
    // second=5: 'auto' allows 2 inline waits, so 7 jobs go on at once.
    const throttle = new AccountThrottle({ redis: t.redis, account: 'admit', limits: { second: 5 }, prefix: t.prefix, maxInlineWaiters: 'auto' });
    expect(throttle.admitCap).toBe(7);
    const admitted = await Promise.all(Array.from({ length: 7 }, () => throttle.admit()));
    expect(admitted.every((a) => typeof a.done === 'function')).toBe(true);
    let seventh: Awaited<ReturnType<AccountThrottle['admit']>> | undefined;
    const waiting = throttle.admit().then((a) => (seventh = a));
    await new Promise((r) => setTimeout(r, 250));
    expect(seventh).toBeUndefined();
    expect(throttle.admittedJobs).toBe(7);
    admitted[0]!.done!();
    await waiting;
    expect(typeof seventh?.done).toBe('function');
    expect(throttle.admittedJobs).toBe(7);
    // A job's `done` frees one place once, however often it is called.
    admitted[0]!.done!();
    let eighth: unknown;
    const eighthAdmitted = throttle.admit().then((a) => (eighth = a));
    await new Promise((r) => setTimeout(r, 250));
    expect(eighth).toBeUndefined();
    for (const a of admitted.slice(1)) a.done!();
    await eighthAdmitted;
    expect(eighth).toBeDefined();
  });

  it('sends a job away at once, without a round trip to Redis, once the worker knows its account is over budget', async () => {
    // Its own connection, closed below: an admission that asked Redis would fail.
    const own = testConnection();
    // A pool far larger than the account's two places, only to count the waits under way.
    const pool = new InlineWaitPool(10);
    const throttle = new AccountThrottle({ redis: own, account: 'known', limits: { second: 5 }, prefix: t.prefix, maxInlineWaiters: 'auto', inlineWaits: pool });
    for (let i = 0; i < 5; i++) await throttle.acquire();
    // Two jobs wait inline (the account's two places); the next is sent away by the budget.
    const inline = [throttle.acquire().catch((err: unknown) => err), throttle.acquire().catch((err: unknown) => err)];
    await expect.poll(() => pool.inUse).toBe(2);
    let before = Date.now();
    const first = await throttle.acquire().catch((err: unknown) => err);
    expect(first).toBeInstanceOf(ThrottledError);
    const dueAt = [dueBetween(before, first as ThrottledError)];
    own.disconnect();
    const sentAway: ThrottledError[] = [];
    for (let i = 0; i < 3; i++) {
      before = Date.now();
      const a = await throttle.admit();
      expect(a.done).toBeUndefined();
      sentAway.push(a.away!);
      dueAt.push(dueBetween(before, a.away!));
    }
    expect(throttle.admittedJobs).toBe(0);
    // Each due back a little less than one slot (1000/5 ms) after the one before, the budget's reason kept.
    expectSpacedBy(dueAt, 0.9 * 200 - 10, 200);
    for (const e of sentAway) expect(e.window).toBe('second');
    await Promise.all(inline);
  });

  it('never holds a job back without a cap on inline waits (a command that sends on its own)', async () => {
    const throttle = new AccountThrottle({ redis: t.redis, account: 'uncapped', limits: { second: 2 }, prefix: t.prefix });
    const all = await Promise.all(Array.from({ length: 20 }, () => throttle.admit()));
    expect(all.every((a) => typeof a.done === 'function')).toBe(true);
    expect(throttle.admittedJobs).toBe(20);
  });
});
