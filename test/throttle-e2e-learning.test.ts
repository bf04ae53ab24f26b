import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { AccountThrottle } from '../src/throttle/index.ts';
import { billPlan } from './helpers/bill-plan.ts';
import { REDIS_URL } from './helpers/redis.ts';
import { acceptedTimes, maxInSlidingInterval, perWindowCounts } from './helpers/request-log.ts';
import { accountEnv, sandboxBillProjects, throttleRig, type ThrottleRig } from './helpers/throttle-rig.ts';
import { startWorkerProcesses, stopAll, type WorkerProcess } from './helpers/worker-processes.ts';

// An "hour" lasts 1 s on both sides.
const SCALE = 3600;
const HOUR_MS = 3_600_000 / SCALE;
const SERVICE_LIMIT = 20;
const BILLS = 60;
// The first 429 comes back with the requests already in flight: at most this many in its window.
const CONCURRENCY = 3;

let rig: ThrottleRig;
let sandbox: Sandbox;
let workers: WorkerProcess[] = [];

beforeAll(async () => {
  rig = await throttleRig();
  // No Retry-After header: the 429's message is all the service says.
  sandbox = await startSandbox({ limits: { hour: SERVICE_LIMIT }, timeScale: SCALE, retryAfterHeader: false, projects: 20 });
  workers = await startWorkerProcesses(1, {
    BUILDSYNC_PREFIX: rig.prefix,
    BUILDSYNC_TIME_SCALE: String(SCALE),
    BUILDSYNC_CONCURRENCY: String(CONCURRENCY),
    ...accountEnv('default', sandbox, 0, 'none'),
  });
}, 40_000);

afterAll(async () => {
  await stopAll(workers);
  await rig?.close();
  await sandbox?.close();
});

describe('an account with no budget configured (BUILDSYNC_LIMITS=none)', () => {
  it('learns the service limit from its 429s and imports every bill once, with at most the concurrency in 429s in the first window and 1 in every later one', async () => {
    const plan = billPlan(BILLS, sandboxBillProjects(sandbox), { tag: 'learn' });
    const importId = await rig.submit(plan, 'default');
    const counts = await rig.settled(importId, BILLS, 25_000);
    expect(counts).toMatchObject({ created: BILLS, failed: 0, unknown: 0, settled: BILLS });

    const titles = sandbox.bills().map((b) => (b.payload as { TITLE?: string }).TITLE);
    expect(titles).toHaveLength(BILLS);
    expect(new Set(titles).size).toBe(BILLS);

    const log = sandbox.requests();
    const refused = log.filter((r) => r.status === 429).map((r) => r.at);
    expect(refused.length).toBeGreaterThan(0); // it had to find the limit somehow
    const perWindow = perWindowCounts(refused, HOUR_MS);
    expect(perWindow[0]).toBeLessThanOrEqual(CONCURRENCY);
    expect(perWindow.slice(1).every((n) => n <= 1), `429s per window: ${perWindow.join(', ')}`).toBe(true);
    expect(maxInSlidingInterval(acceptedTimes(log), HOUR_MS)).toBeLessThanOrEqual(SERVICE_LIMIT);

    const redis = new Redis(REDIS_URL);
    try {
      const status = await new AccountThrottle({ redis, account: 'default', limits: {}, prefix: rig.prefix, timeScale: SCALE }).status();
      const hour = status.windows.find((w) => w.window === 'hour');
      expect(hour).toMatchObject({ limit: SERVICE_LIMIT, configured: undefined, learned: { limit: SERVICE_LIMIT } });
    } finally {
      redis.disconnect();
    }
  }, 30_000);
});
