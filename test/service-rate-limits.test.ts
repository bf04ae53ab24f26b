/**
 * Seed §8: a per-user rate limit over hour/day/week/month, 429 when exceeded. The sandbox's windows
 * are shrunk with timeScale so that an "hour" passes in under a second; the client must read the
 * wait from the sandbox's message (or Retry-After), and with the shared throttle as its gate a
 * burst must end with every request done.
 */
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestGate } from '../src/api/index.ts';
import { NotFoundError, RateLimitError } from '../src/errors/index.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { AccountThrottle } from '../src/throttle/index.ts';
import { clientFor, collect, freeProjectIds, requestsTo } from './helpers/sandbox-client.ts';
import { REDIS_URL, testRedis } from './helpers/redis.ts';

/** An "hour" of 800 real ms. */
const HOUR_MS = 800;
const TIME_SCALE = 3_600_000 / HOUR_MS;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function sandboxWith(opts: Parameters<typeof startSandbox>[0]): Promise<Sandbox> {
  const sb = await startSandbox({ projects: 10, ...opts });
  closers.push(() => sb.close());
  return sb;
}

function client(sb: Sandbox, opts: Parameters<typeof clientFor>[1] = {}) {
  const c = clientFor(sb, opts);
  closers.push(() => c.close());
  return c;
}

/** The wait the sandbox wrote: "… Try again in <S> seconds." */
function statedWaitMs(err: RateLimitError): number {
  const m = /Try again in (\d+(?:\.\d+)?) seconds\./.exec(err.serviceMessage ?? '');
  expect(m, err.serviceMessage).not.toBeNull();
  return Math.round(Number(m![1]) * 1000);
}

const bill = (prj: number) => ({ PRJ_ID: prj, VENDOR_ID: 7, ITEMS: [{ NAME: 'x', RATE: '1' }] });

describe.each([false, true])('429 with retryAfterHeader %s', (retryAfterHeader) => {
  it('is a RateLimitError whose window and wait are parsed from the answer, when the client may not wait', async () => {
    const sb = await sandboxWith({ limits: { hour: 3 }, timeScale: TIME_SCALE, retryAfterHeader });
    const c = client(sb, { retries: 0 });
    for (let i = 0; i < 3; i++) await collect(c.listProjectsV2({ includeClientSub: true }));
    const err = await collect(c.listProjectsV2({ includeClientSub: true })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    const e = err as RateLimitError;
    expect(e.code).toBe('BUILDSYNC_HTTP_429');
    expect(e.window).toBe('hour');
    expect(e.serviceMessage).toMatch(/^Rate limit exceeded: 3 requests per hour\. Try again in /);
    const stated = statedWaitMs(e);
    expect(stated).toBeGreaterThan(0);
    expect(stated).toBeLessThanOrEqual(HOUR_MS);
    if (retryAfterHeader) {
      expect(e.headers['retry-after']).toBe(String(Math.max(1, Math.ceil(stated / 1000))));
      expect(e.retryAfterMs).toBe(Number(e.headers['retry-after']) * 1000);
    } else {
      expect(e.headers['retry-after']).toBeUndefined();
      expect(e.retryAfterMs).toBe(stated);
    }
    expect(sb.requests().map((r) => r.status)).toEqual([200, 200, 200, 429]);
  });

  it('with no gate, the client waits what the answer asked and the request succeeds', async () => {
    const sb = await sandboxWith({ limits: { hour: 3 }, timeScale: TIME_SCALE, retryAfterHeader });
    const c = client(sb);
    const prj = freeProjectIds(sb)[0]!;
    for (let i = 0; i < 3; i++) await c.createBill(bill(prj));
    const started = Date.now();
    const { id } = await c.createBill(bill(prj));
    const waited = Date.now() - started;
    expect(sb.bills().map((b) => b.id)).toContain(id);
    expect(sb.bills()).toHaveLength(4);
    const statuses = requestsTo(sb, 'POST', '/api/Bills').map((r) => r.status);
    expect(statuses).toEqual([200, 200, 200, 429, 200]);
    // It waited (about) what it was told, not a blind backoff: the hour had to roll over.
    expect(waited).toBeGreaterThanOrEqual(retryAfterHeader ? 950 : 50);
    expect(waited).toBeLessThan(retryAfterHeader ? 2_000 : HOUR_MS + 500);
  });
});

describe('the window a 429 names (docs/service.md, Rate limits: hour, day, week, month)', () => {
  it.each(['hour', 'day', 'week', 'month'] as const)('a full %s budget is a RateLimitError for that window with its wait', async (window) => {
    const sb = await sandboxWith({ limits: { [window]: 1 } });
    const c = client(sb);
    await collect(c.listProjectsV2({ includeClientSub: true }));
    const err = await collect(c.listProjectsV2({ includeClientSub: true })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).window).toBe(window);
    // A wait that long is handed back at once (maxRetryAfterMs), with the wait the sandbox stated.
    expect((err as RateLimitError).retryAfterMs).toBe(statedWaitMs(err as RateLimitError));
    expect(sb.requests().map((r) => r.status)).toEqual([200, 429]);
  });
});

describe('per-user budgets (docs/service.md, Rate limits: "per user")', () => {
  it("one user's exhausted budget does not stop another user", async () => {
    const sb = await sandboxWith({ limits: { day: 2 } });
    const main = client(sb, { retries: 0 });
    await collect(main.listProjectsV2({ includeClientSub: false }));
    await collect(main.listProjectsV2({ includeClientSub: false }));
    const err = await collect(main.listProjectsV2({ includeClientSub: false })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).window).toBe('day');
    // A 429 asking for a day's wait is handed back at once, not slept through.
    const patient = client(sb);
    const started = Date.now();
    await expect(collect(patient.listProjectsV2({ includeClientSub: false }))).rejects.toBeInstanceOf(RateLimitError);
    expect(Date.now() - started).toBeLessThan(1_000);

    const colleague = client(sb, { creds: sb.users[1]!, retries: 0 });
    const listed = await collect(colleague.listProjectsV2({ includeClientSub: false }));
    expect(listed.length).toBeGreaterThan(0);
  });
});

describe('with the shared AccountThrottle as the gate (real Redis)', () => {
  it('a burst over the sandbox\'s limit ends with every request done, the 429s all in the first wave', async () => {
    const r = await testRedis();
    closers.push(() => r.cleanup());
    // A "minute" of 500 real ms for both sides. The throttle believes in a looser limit (20) than
    // the sandbox enforces (6), as after the service lowered it: the first wave meets 429s, the
    // throttle learns 6 from them, and nothing after that is refused.
    const timeScale = 120;
    const sb = await sandboxWith({ limits: { minute: 6 }, timeScale });
    const redis = new Redis(REDIS_URL);
    closers.push(async () => redis.disconnect());
    const throttle = new AccountThrottle({ redis, account: 'burst', limits: { minute: 20 }, prefix: r.prefix, timeScale, maxInlineWaitMs: 5_000 });
    const c = client(sb, { gate: throttle, connections: 8 });
    const prj = freeProjectIds(sb)[0]!;

    const results = await Promise.allSettled(Array.from({ length: 24 }, () => c.createBill(bill(prj))));
    expect(results.filter((x) => x.status === 'rejected')).toEqual([]);
    expect(sb.bills()).toHaveLength(24);
    const statuses = requestsTo(sb, 'POST', '/api/Bills').map((x) => x.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(24);
    // The first wave: 20 granted at once, the sandbox takes 6, the other 14 are 429.
    const firstOk = statuses.indexOf(200, statuses.indexOf(429));
    const firstWave = statuses.slice(0, firstOk);
    expect(firstWave.filter((s) => s === 200)).toHaveLength(6);
    expect(firstWave.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(firstWave.filter((s) => s === 429).length).toBeLessThanOrEqual(20 - 6);
    // Afterwards the learned pace holds: at most a window-edge 429 (see the next test) per window.
    expect(statuses.slice(firstOk).filter((s) => s === 429).length).toBeLessThanOrEqual(3);
    const learned = (await throttle.status()).windows.find((w) => w.window === 'minute')!.learned?.limit;
    expect(learned === 6 || learned === 5).toBe(true);
  });

  it('a throttle that knows the limit paces a burst: all done, at most a boundary 429 per window', async () => {
    const r = await testRedis();
    closers.push(() => r.cleanup());
    const timeScale = 120;
    const sb = await sandboxWith({ limits: { minute: 5 }, timeScale });
    const redis = new Redis(REDIS_URL);
    closers.push(async () => redis.disconnect());
    const throttle = new AccountThrottle({ redis, account: 'known', limits: { minute: 5 }, prefix: r.prefix, timeScale, maxInlineWaitMs: 5_000 });
    const c = client(sb, { gate: throttle });
    const pages = await Promise.all(Array.from({ length: 12 }, () => collect(c.listProjectsPaged({ pageSize: 1000 }))));
    expect(pages.every((p) => p.length === sb.visibleProjectIds(sb.credentials.email, true).length)).toBe(true);
    const statuses = sb.requests().map((x) => x.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(12);
    // The throttle counts a send when it grants it, the sandbox when it arrives a few ms later, so
    // a slot freed at a window's edge can be a few ms early (seen: about one run in two). Two
    // window edges in this burst: at most two such 429s, and never the burst that no gate gives.
    expect(statuses.filter((s) => s === 429).length).toBeLessThanOrEqual(2);
    // The first window: exactly the limit, at once.
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
  });

  it('a non-2xx answer that is not a 429 ends the throttle\'s probing (onSuccess on any answer)', async () => {
    const r = await testRedis();
    closers.push(() => r.cleanup());
    const sb = await sandboxWith({ limits: 'none' });
    const redis = new Redis(REDIS_URL);
    closers.push(async () => redis.disconnect());
    const throttle = new AccountThrottle({
      // A long maxMs keeps the probe state alive well past this test (its TTL is ten times maxMs);
      // the probe holds its lock for initialMs, 500 ms for its request to be answered in.
      redis, account: 'probe', limits: {}, prefix: r.prefix, maxInlineWaitMs: 2_000, probe: { initialMs: 500, maxMs: 60_000 },
    });
    // A 429 that states no wait puts the account in probe mode: one request at a time tests the water.
    await throttle.onRateLimited(
      new RateLimitError({ status: 429, method: 'GET', path: '/api/v2/Projects', body: { Message: 'Too many requests' } }, undefined, undefined),
    );
    expect((await throttle.status()).probing).toBe(true);

    const c = client(sb, { gate: throttle });
    const err = await c.createBill(bill(777_777_777)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    // The probe was answered (404 is an answer, not a limit): probing ends for every worker.
    await expect.poll(async () => (await throttle.status()).probing, { timeout: 1_000 }).toBe(false);
  });

  it('the client tells its gate about every answer: onSuccess for 2xx and 4xx/5xx, onRateLimited for 429', async () => {
    const sb = await sandboxWith({ limits: { hour: 2 }, timeScale: TIME_SCALE });
    const calls: string[] = [];
    const gate: RequestGate = {
      acquire: async () => {
        calls.push('acquire');
      },
      onRateLimited: async (e) => {
        calls.push(`429 ${e.window}`);
        await new Promise((res) => setTimeout(res, e.retryAfterMs ?? 0));
      },
      onSuccess: () => {
        calls.push('answered');
      },
    };
    const c = client(sb, { gate });
    await c.createBill(bill(freeProjectIds(sb)[0]!));
    await c.createBill(bill(666_666_666)).catch(() => undefined);
    await c.createBill(bill(freeProjectIds(sb)[0]!));
    expect(calls).toEqual(['acquire', 'answered', 'acquire', 'answered', 'acquire', '429 hour', 'acquire', 'answered']);
  });
});
