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
    await new Promise((r) => setTimeout(r, 120));
    throttle.settle(ticket);
    // settle is fire-and-forget; one round trip later it has landed.
    await t.redis.ping();
    const settled = Number(await t.redis.zscore(key, ticket));
    expect(settled - granted).toBeGreaterThanOrEqual(110);
    // The window's next slot now opens a second after the settle, not after the grant.
    const status = await throttle.status();
    expect(status.waitMs).toBeGreaterThan(1000 - 120 - 50 + 100);
  });

  it('counts a send the service answered for one window from the answer, without the margin a send on its way needs', async () => {
    // second=1 with the default margin (50 ms on a second): a send not yet answered counts until
    // 1050 ms after its grant, an answered one until the window's length after its answer.
    const counted = 1050;
    const answered = new AccountThrottle({ redis: t.redis, account: 'c', limits: { second: 1 }, prefix: t.prefix });
    const ticket = await answered.acquire();
    await new Promise((r) => setTimeout(r, 30));
    const answeredAt = Date.now();
    answered.settle(ticket, true);
    const countedUntil = (await movedScore(`${throttleKeyBase(t.redis, t.prefix, 'c')}:log`, String(ticket))) + counted;
    expect(countedUntil - answeredAt).toBeGreaterThanOrEqual(1000);
    expect(countedUntil - answeredAt).toBeLessThan(1015);
    // The next send of the window may go a second after the answer, not 1050 ms after it.
    expect((await answered.status()).waitMs).toBeLessThan(1015 - (Date.now() - answeredAt));

    // A send that failed on the connection may still reach the service: it keeps the margin.
    const unanswered = new AccountThrottle({ redis: t.redis, account: 'd', limits: { second: 1 }, prefix: t.prefix });
    const other = await unanswered.acquire();
    await new Promise((r) => setTimeout(r, 30));
    const failedAt = Date.now();
    unanswered.settle(other, false);
    const otherUntil = (await movedScore(`${throttleKeyBase(t.redis, t.prefix, 'd')}:log`, String(other))) + counted;
    expect(otherUntil - failedAt).toBeGreaterThanOrEqual(counted - 1);
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
