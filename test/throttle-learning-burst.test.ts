import type { Redis as IORedis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RateLimitError } from '../src/errors/index.ts';
import type { AccountThrottle, AccountThrottleOptions } from '../src/throttle/index.ts';
import { throttlesPerTest } from './helpers/throttle-factory.ts';

// What a burst of 429s teaches when the service states no limit (the seed shows no 429 body):
// the limit learned must be what the service accepted, never more, or every later window is
// refused again. Tickets are handed back as the client does (src/api/request-retry.ts): settle
// when the attempt ends, then onRateLimited with the refused attempt's ticket, or withdraw for
// a send that never left.

const ctx = throttlesPerTest({ account: 'acme', limits: {}, maxInlineWaitMs: 0 });
/** One throttle per connection, as separate worker processes would have. */
const throttle = (opts: Partial<AccountThrottleOptions> = {}): AccountThrottle => ctx.throttle(opts);

/** A 429 that names neither the limit, nor the window, nor a wait. */
function bare429(): RateLimitError {
  return new RateLimitError({ status: 429, method: 'POST', path: '/api/Bills', body: { Message: 'Rate limit exceeded.' } }, undefined, undefined);
}

async function grant(t: AccountThrottle, n: number): Promise<string[]> {
  const tickets: string[] = [];
  for (let i = 0; i < n; i++) tickets.push((await t.acquire()) as string);
  return tickets;
}

/** settle and withdraw are fire and forget: one round trip on the same connection later they have landed. */
async function landed(t: AccountThrottle): Promise<void> {
  await (t as unknown as { redis: IORedis }).redis.ping();
}

async function hourLimit(t: AccountThrottle): Promise<number | undefined> {
  return (await t.status()).windows.find((w) => w.window === 'hour')?.limit;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('learning from a burst of 429s that state no limit', () => {
  it('takes every 429 of a send made before the first one as refused, also after the pause ended, and does not pause again for it', async () => {
    const probe = { initialMs: 50, maxMs: 400 };
    const [a, b] = [throttle({ probe }), throttle({ probe })];
    // 12 sends from each worker before the service said no; it accepted 20 of the 24.
    const sentA = await grant(a, 12);
    const sentB = await grant(b, 12);
    for (const ticket of sentA) a.settle(ticket);
    for (const ticket of sentB.slice(0, 9)) b.settle(ticket);
    await Promise.all([landed(a), landed(b)]);
    await a.onRateLimited(bare429(), sentA[11]);
    expect(await hourLimit(a)).toBe(23);

    // The other three were in flight in worker b and come back after the 50 ms pause, while a
    // probe is awaited: still the same burst, whatever the timing.
    await sleep(70);
    for (const ticket of sentB.slice(9)) {
      b.settle(ticket);
      await b.onRateLimited(bare429(), ticket);
    }
    expect(await hourLimit(b)).toBe(20);
    const status = await b.status();
    expect(status.windows.find((w) => w.window === 'hour')).toMatchObject({ limit: 20, learned: { limit: 20 }, used: 24 });
    // They said nothing new about the service: no second pause, and the probe interval is not doubled.
    const key = `${ctx.prefix}:throttle:acme`;
    expect(await ctx.redis.pttl(`${key}:pause`)).toBe(-2);
    expect(await ctx.redis.hmget(`${key}:probe`, 'probing', 'interval')).toEqual(['1', '50']);
  });

  it('does not take a send withdrawn unsent for one the service accepted', async () => {
    const [a, b] = [throttle(), throttle()];
    const sent = await grant(a, 20);
    // Worker b held 4 tickets waiting for send slots when a's 429 came; they go stale there.
    const waiting = await grant(b, 4);
    for (const ticket of sent) a.settle(ticket);
    await landed(a);
    await a.onRateLimited(bare429(), sent[19]);
    expect(await hourLimit(a)).toBe(23);
    for (const ticket of waiting) b.withdraw(ticket);
    await landed(b);
    expect(await hourLimit(a)).toBe(19);
    expect((await a.status()).windows.find((w) => w.window === 'hour')!.used).toBe(20);
  });

  it("counts what was sent in the service's window, not in the budget's margin beyond it", async () => {
    // An "hour" of 1 s; the budget counts each send for 2 s (a margin of the whole window, so that
    // the first five still count however slowly the ten below are granted: 900 ms to spare).
    const opts = { timeScale: 3600, margin: { share: 1, maxMs: 1_000 } };
    const t = throttle(opts);
    await grant(t, 5);
    await sleep(1_100);
    const recent = await grant(t, 10);
    for (const ticket of recent) t.settle(ticket);
    await landed(t);
    // The first five left the service's hour 100 ms ago: it accepted 9 of the last 10.
    await t.onRateLimited(bare429(), recent[9]);
    expect(await hourLimit(t)).toBe(9);
    // The budget still counts all 15 for the margin's sake.
    expect((await t.status()).windows.find((w) => w.window === 'hour')!.used).toBe(15);
  });

  it('does not take a send the service refused in an earlier burst for an accepted one', async () => {
    // A pause and probe lock of 300 ms: the two 429s of the burst land in one pause, and the probe is
    // answered while it holds the lock, however slow the machine.
    const probe = { initialMs: 300, maxMs: 300 };
    const t = throttle({ probe, maxInlineWaitMs: 1_000 });
    const first = await grant(t, 10);
    for (const ticket of first) t.settle(ticket);
    await landed(t);
    for (const ticket of first.slice(8)) await t.onRateLimited(bare429(), ticket);
    expect(await hourLimit(t)).toBe(8);
    // With that forgotten, the probe is answered, and the next send is refused (another client
    // of the same key took the rest): the service accepted the 8 and the probe, 9, and not the
    // 11 it would be if the two it refused in the first burst had counted.
    await t.resetLearned();
    const probeTicket = (await t.acquire()) as string;
    t.settle(probeTicket);
    t.onSuccess();
    await landed(t);
    const later = (await t.acquire()) as string;
    t.settle(later);
    await t.onRateLimited(bare429(), later);
    expect(await hourLimit(t)).toBe(9);
  });
});
