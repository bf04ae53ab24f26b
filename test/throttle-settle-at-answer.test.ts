import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AccountThrottle } from '../src/throttle/index.ts';
import { throttleKeyBase } from '../src/redis-layout.ts';
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
