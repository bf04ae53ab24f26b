import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AccountThrottle } from '../src/throttle/index.ts';
import { throttleKeyBase } from '../src/redis/layout.ts';
import { testRedis } from './helpers/redis.ts';

let t: Awaited<ReturnType<typeof testRedis>>;
beforeEach(async () => {
  t = await testRedis();
});
afterEach(() => t.cleanup());

describe('a send is counted from when its attempt ended', () => {
  it('moves the send in the log from its grant to the settle time, so a slow start cannot open the next window early', async () => {
    const throttle = new AccountThrottle({ redis: t.redis, account: 'a', limits: { second: 1 }, prefix: t.prefix, margin: { share: 0, maxMs: 0 } });
    const ticket = await throttle.acquire();
    expect(typeof ticket).toBe('string');
    const key = `${throttleKeyBase(t.redis, t.prefix, 'a')}:log`;
    const granted = Number(await t.redis.zscore(key, ticket));
    await new Promise((r) => setTimeout(r, 300));
    throttle.settle(ticket);
    // settle is fire-and-forget; one round trip later it has landed.
    await t.redis.ping();
    const settled = Number(await t.redis.zscore(key, ticket));
    expect(settled - granted).toBeGreaterThanOrEqual(290);
    // The window's next slot now opens a second after the settle, not after the grant: the wait
    // read is that, bracketed by the Redis clock (TIME, the scripts' clock) around the reading.
    const from = await redisNow();
    const status = await throttle.status();
    const to = await redisNow();
    expect(status.waitMs).toBeGreaterThanOrEqual(settled + 1000 - to - 2);
    expect(status.waitMs).toBeLessThanOrEqual(settled + 1000 - from + 2);
  });

  it('counts a send the service answered for one window from the answer, without the margin a send on its way needs', async () => {
    // second=1 with a margin of a whole second: a send not yet answered counts until 2 s after its
    // attempt ended, an answered one until 1 s (the window's length) after its answer. The margin
    // is wide so that the two readings stay apart however slowly the machine runs: each is
    // bracketed by the Redis clock (TIME, the clock the scripts read) before and after the settle.
    const margin = { share: 1, maxMs: 1000 };
    const windowMs = 1000;
    const counted = 2000;
    const answered = new AccountThrottle({ redis: t.redis, account: 'c', limits: { second: 1 }, prefix: t.prefix, margin });
    const ticket = await answered.acquire();
    const answeredFrom = await redisNow();
    answered.settle(ticket, true);
    const countedUntil = (await movedScore(`${throttleKeyBase(t.redis, t.prefix, 'c')}:log`, String(ticket))) + counted;
    const answeredTo = await redisNow();
    // A window from the answer at least, and not the margin on top (the 2 ms are the service clock's rounding).
    expect(countedUntil).toBeGreaterThanOrEqual(answeredFrom + windowMs);
    expect(countedUntil).toBeLessThanOrEqual(answeredTo + windowMs + 2);
    // The next send of the window may go a second after the answer, not two.
    expect((await answered.status()).waitMs).toBeLessThanOrEqual(windowMs + 2);

    // A send that failed on the connection may still reach the service: it keeps the margin.
    const unanswered = new AccountThrottle({ redis: t.redis, account: 'd', limits: { second: 1 }, prefix: t.prefix, margin });
    const other = await unanswered.acquire();
    const failedFrom = await redisNow();
    unanswered.settle(other, false);
    const otherUntil = (await movedScore(`${throttleKeyBase(t.redis, t.prefix, 'd')}:log`, String(other))) + counted;
    const failedTo = await redisNow();
    expect(otherUntil).toBeGreaterThanOrEqual(failedFrom + counted - 1);
    expect(otherUntil).toBeLessThanOrEqual(failedTo + counted);
  });

  it('never moves a send back in time', async () => {
    const throttle = new AccountThrottle({ redis: t.redis, account: 'b', limits: { second: 5 }, prefix: t.prefix });
    const ticket = await throttle.acquire();
    const key = `${throttleKeyBase(t.redis, t.prefix, 'b')}:log`;
    await t.redis.zadd(key, 'XX', String(Date.now() + 60_000), ticket);
    const future = Number(await t.redis.zscore(key, ticket));
    throttle.settle(ticket);
    await t.redis.ping();
    expect(Number(await t.redis.zscore(key, ticket))).toBe(future);
  });
});

/** The Redis clock in ms, as the throttle's scripts read it (TIME). */
async function redisNow(): Promise<number> {
  const [seconds, micros] = await t.redis.time();
  return Number(seconds) * 1000 + Number(micros) / 1000;
}

/** The send's score once settle (fire and forget) has moved it from its grant. */
async function movedScore(key: string, ticket: string): Promise<number> {
  const granted = Number(ticket.slice(0, ticket.indexOf(':')));
  const until = Date.now() + 2_000;
  for (;;) {
    const score = Number(await t.redis.zscore(key, ticket));
    if (score !== granted || Date.now() > until) return score;
    await new Promise((r) => setTimeout(r, 5));
  }
}
