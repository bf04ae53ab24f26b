import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { AccountThrottle } from '../src/throttle/index.ts';
import { startBareProxy } from './helpers/bare-429-proxy.ts';
import { billPlan } from './helpers/bill-plan.ts';
import { REDIS_URL } from './helpers/redis.ts';
import { acceptedTimes, maxInSlidingInterval, perWindowCounts } from './helpers/request-log.ts';
import { accountEnv, sandboxBillProjects, throttleRig, type ThrottleRig } from './helpers/throttle-rig.ts';
import { startWorkerProcesses, stopAll, type WorkerProcess } from './helpers/worker-processes.ts';

// The service as the seed shows it (§7, §8): a 429 whose body names no limit, no window and no
// wait. The tool must learn the limit from what it sent, and after the first burst of 429s keep
// every later window clear of them. An "hour" lasts 1 s on both sides.
const SCALE = 3600;
const HOUR_MS = 3_600_000 / SCALE;
const SERVICE_LIMIT = 20;
const BILLS = 100;
const WORKERS = 3;
const CONCURRENCY = 3;

let rig: ThrottleRig;
let sandbox: Sandbox;
let proxy: Awaited<ReturnType<typeof startBareProxy>> | undefined;
let workers: WorkerProcess[] = [];


beforeAll(async () => {
  rig = await throttleRig();
  sandbox = await startSandbox({ limits: { hour: SERVICE_LIMIT }, timeScale: SCALE, retryAfterHeader: false, projects: 20 });
  const bare = await startBareProxy(sandbox.url);
  proxy = bare;
  workers = await startWorkerProcesses(WORKERS, {
    BUILDSYNC_PREFIX: rig.prefix,
    BUILDSYNC_TIME_SCALE: String(SCALE),
    BUILDSYNC_CONCURRENCY: String(CONCURRENCY),
    ...accountEnv('default', sandbox, 0, 'none'),
    BUILDSYNC_BASE_URL: bare.url,
  });
}, 40_000);

afterAll(async () => {
  await stopAll(workers);
  await proxy?.close();
  await rig?.close();
  await sandbox?.close();
});

describe('learning a limit the 429s do not state, with three workers', () => {
  it('gets at most the concurrency in 429s in the first window and at most one in every later one', async () => {
    const plan = billPlan(BILLS, sandboxBillProjects(sandbox), { tag: 'learn-unstated' });
    const importId = await rig.submit(plan, 'default');
    const counts = await rig.settled(importId, BILLS, 30_000);
    expect(counts).toMatchObject({ created: BILLS, failed: 0, unknown: 0, settled: BILLS });
    const titles = sandbox.bills().map((b) => (b.payload as { TITLE?: string }).TITLE);
    expect(new Set(titles).size).toBe(BILLS);

    const log = sandbox.requests();
    const perWindow = perWindowCounts(log.filter((r) => r.status === 429).map((r) => r.at), HOUR_MS);
    expect(perWindow.length).toBeGreaterThan(0); // it had to find the limit somehow
    expect(perWindow[0]).toBeLessThanOrEqual(WORKERS * CONCURRENCY);
    expect(perWindow.slice(1).every((n) => n <= 1), `429s per window: ${perWindow.join(', ')}`).toBe(true);
    expect(maxInSlidingInterval(acceptedTimes(log), HOUR_MS)).toBeLessThanOrEqual(SERVICE_LIMIT);

    const redis = new Redis(REDIS_URL);
    try {
      const status = await new AccountThrottle({ redis, account: 'default', limits: {}, prefix: rig.prefix, timeScale: SCALE }).status();
      const hour = status.windows.find((w) => w.window === 'hour')!;
      // Learned from counting: never above the service's limit, and not far below it.
      expect(hour.learned!.limit).toBeLessThanOrEqual(SERVICE_LIMIT);
      expect(hour.learned!.limit).toBeGreaterThanOrEqual(SERVICE_LIMIT - CONCURRENCY);
    } finally {
      redis.disconnect();
    }
  }, 40_000);
});
