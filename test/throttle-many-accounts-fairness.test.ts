/**
 * A worker's throttle (`maxInlineWaiters: 'auto'`) when many accounts share its job slots: an
 * account with a small budget keeps only a few waits inline and sends the other jobs away at
 * once, each told to come back one slot of the window after the one before, so that its backlog
 * neither fills the slots nor comes back all at the same moment.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ThrottledError } from '../src/errors/index.ts';
import { AccountThrottle } from '../src/throttle/index.ts';
import { testRedis } from './helpers/redis.ts';

let t: Awaited<ReturnType<typeof testRedis>>;
beforeEach(async () => {
  t = await testRedis();
});
afterEach(() => t.cleanup());

describe("a worker's throttle shared by many accounts", () => {
  it('keeps an eighth of the smallest limit waiting inline and sends the rest away at once, staggered by one slot each', async () => {
    // second=16: 'auto' allows 2 inline waits; a "second" lasts 1 s (no time scale), a slot 1050/16 ms.
    const throttle = new AccountThrottle({ redis: t.redis, account: 'small', limits: { second: 16 }, prefix: t.prefix, maxInlineWaiters: 'auto' });
    for (let i = 0; i < 16; i++) await throttle.acquire();
    const started = Date.now();
    const awayAfterMs: number[] = [];
    const results = await Promise.allSettled(
      Array.from({ length: 7 }, () =>
        throttle.acquire().catch((err: unknown) => {
          awayAfterMs.push(Date.now() - started);
          throw err;
        }),
      ),
    );
    const sent = results.filter((r) => r.status === 'fulfilled');
    const away = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as ThrottledError] : []));
    // Two waited inline for the next window; five were sent away without waiting for it.
    expect(sent).toHaveLength(2);
    expect(away).toHaveLength(5);
    for (const err of away) {
      expect(err).toBeInstanceOf(ThrottledError);
      expect(err.window).toBe('second');
    }
    // Sent away at once (they did not wait out the window), with waits one slot apart.
    expect(Math.max(...awayAfterMs)).toBeLessThan(500);
    const waits = away.map((e) => e.waitMs).sort((a, b) => a - b);
    const slot = 1050 / 16;
    for (let i = 1; i < waits.length; i++) expect(waits[i]! - waits[i - 1]!).toBeGreaterThanOrEqual(slot - 20);
    expect(waits[waits.length - 1]! - waits[0]!).toBeGreaterThanOrEqual(3 * slot);
  });

  it('waits inline as before without the cap (a command that sends on its own)', async () => {
    const throttle = new AccountThrottle({ redis: t.redis, account: 'alone', limits: { second: 8 }, prefix: t.prefix, timeScale: 4 });
    for (let i = 0; i < 8; i++) await throttle.acquire();
    const results = await Promise.allSettled(Array.from({ length: 7 }, () => throttle.acquire()));
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
  });
});
