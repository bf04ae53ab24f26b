import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { billPlan } from './helpers/bill-plan.ts';
import { acceptedTimes, maxInAlignedBucket, maxInSlidingInterval } from './helpers/request-log.ts';
import { accountEnv, sandboxBillProjects, throttleRig, type ThrottleRig } from './helpers/throttle-rig.ts';
import { startWorkerProcesses, stopAll, type WorkerProcess } from './helpers/worker-processes.ts';

// An "hour" lasts 2 s on both sides: the sandbox's timeScale and the workers' BUILDSYNC_TIME_SCALE. The tool
// counts each send for the window plus a 5% margin (100 ms here) against grant-to-arrival jitter.
const SCALE = 1800;
const HOUR_MS = 3_600_000 / SCALE;
const LIMIT = 10;
const BILLS = 35;

let rig: ThrottleRig;
let sandboxes: Record<'rolling' | 'aligned', Sandbox>;
let workers: WorkerProcess[] = [];

beforeAll(async () => {
  rig = await throttleRig();
  sandboxes = {
    rolling: await startSandbox({ limits: { hour: LIMIT }, timeScale: SCALE, counting: 'rolling', projects: 20 }),
    aligned: await startSandbox({ limits: { hour: LIMIT }, timeScale: SCALE, counting: 'aligned', projects: 20 }),
  };
  // Three worker processes on one prefix; each account is one sandbox user with the sandbox's own budget.
  workers = await startWorkerProcesses(3, {
    BUILDSYNC_PREFIX: rig.prefix,
    BUILDSYNC_TIME_SCALE: String(SCALE),
    BUILDSYNC_CONCURRENCY: '4',
    ...accountEnv('rolling', sandboxes.rolling, 0, `hour=${LIMIT}`),
    ...accountEnv('aligned', sandboxes.aligned, 0, `hour=${LIMIT}`),
  });
}, 40_000);

afterAll(async () => {
  await stopAll(workers);
  await rig?.close();
  for (const s of Object.values(sandboxes ?? {})) await s.close();
});

describe('three worker processes sharing one account', () => {
  for (const counting of ['rolling', 'aligned'] as const) {
    it(`never pass the budget in any window and get no 429 when the budget equals the service's (${counting} counting)`, async () => {
      const sandbox = sandboxes[counting];
      const plan = billPlan(BILLS, sandboxBillProjects(sandbox), { tag: counting });
      const started = Date.now();
      const importId = await rig.submit(plan, counting);
      const counts = await rig.settled(importId, BILLS, 25_000);
      const seconds = (Date.now() - started) / 1000;

      expect(counts).toMatchObject({ created: BILLS, failed: 0, unknown: 0, settled: BILLS });
      const log = sandbox.requests();
      expect(log.filter((r) => r.status === 429)).toEqual([]);
      // Every bill created exactly once.
      const titles = sandbox.bills().map((b) => (b.payload as { TITLE?: string }).TITLE);
      expect(new Set(titles).size).toBe(BILLS);
      expect(titles).toHaveLength(BILLS);

      const times = acceptedTimes(log);
      expect(times).toHaveLength(BILLS);
      expect(maxInSlidingInterval(times, HOUR_MS)).toBeLessThanOrEqual(LIMIT);
      expect(maxInAlignedBucket(times, HOUR_MS)).toBeLessThanOrEqual(LIMIT);
      // The budget was used, not wasted: 35 sends at 10 per window need 3 full windows and a bit.
      expect(seconds).toBeGreaterThanOrEqual((3 * HOUR_MS) / 1000);
      expect(seconds).toBeLessThan((6 * HOUR_MS) / 1000 + 2);
    }, 30_000);
  }
});
