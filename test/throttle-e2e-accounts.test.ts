import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { AccountThrottle } from '../src/throttle/index.ts';
import { billPlan } from './helpers/bill-plan.ts';
import { REDIS_URL } from './helpers/redis.ts';
import { accountEnv, sandboxBillProjects, throttleRig, type ThrottleRig } from './helpers/throttle-rig.ts';
import { startWorkerProcesses, stopAll, type WorkerProcess } from './helpers/worker-processes.ts';

// A "day" lasts 24 s: account A's wait for its budget is far longer than the test.
const SCALE = 3600;
const A_LIMITS = 'day=30';
const BILLS = 40;

let rig: ThrottleRig;
let sandbox: Sandbox;
let workers: WorkerProcess[] = [];
let redis: Redis;

beforeAll(async () => {
  rig = await throttleRig();
  redis = new Redis(REDIS_URL);
  // The service itself limits nothing here: only A's own budget holds A back.
  sandbox = await startSandbox({ limits: 'none', latencyMs: 30, projects: 20 });
  workers = await startWorkerProcesses(2, {
    BUILDSYNC_PREFIX: rig.prefix,
    BUILDSYNC_TIME_SCALE: String(SCALE),
    BUILDSYNC_CONCURRENCY: '4',
    ...accountEnv('A', sandbox, 0, A_LIMITS),
    ...accountEnv('B', sandbox, 1, 'none'),
  });
}, 40_000);

afterAll(async () => {
  await stopAll(workers);
  redis?.disconnect();
  await rig?.close();
  await sandbox?.close();
});

async function timedImport(tag: string, account: string, userIndex: number): Promise<{ importId: string; ms: Promise<number> }> {
  const plan = billPlan(BILLS, sandboxBillProjects(sandbox, userIndex), { tag });
  const started = Date.now();
  const importId = await rig.submit(plan, account);
  return { importId, ms: rig.settled(importId, BILLS, 20_000).then(() => Date.now() - started) };
}

describe('two accounts on the same workers', () => {
  it('a throttled account waits delayed, off the worker slots, while the other imports at full speed', async () => {
    // B alone: its unthrottled time on these workers.
    const alone = await (await timedImport('b-alone', 'B', 1)).ms;

    // A's budget is nearly used up: 2 of 30 left this "day".
    const a = new AccountThrottle({ redis, account: 'A', limits: { day: 30 }, prefix: rig.prefix, timeScale: SCALE });
    for (let i = 0; i < 28; i++) await a.acquire();

    const importA = await timedImport('a', 'A', 0);
    // A cannot finish within the test (its budget is spent): its wait is never awaited, and its
    // end (a time-out, or the closed connection at teardown) must not surface as an unhandled rejection.
    importA.ms.catch(() => undefined);
    const importB = await timedImport('b-with-a', 'B', 1);
    const together = await importB.ms;

    // B was not slowed by A's waiting jobs (allowing for noise on a shared machine).
    expect(together).toBeLessThan(Math.max(2 * alone, alone + 1_500));
    const bBills = sandbox.bills().filter((b) => b.email === sandbox.users[1]!.email);
    expect(bBills).toHaveLength(2 * BILLS);

    // A sent what its budget allowed and no more; the rest wait in the delayed set, not in a worker.
    const aCounts = await rig.store.counts(importA.importId);
    expect(aCounts.created).toBe(2);
    expect(sandbox.bills().filter((b) => b.email === sandbox.users[0]!.email)).toHaveLength(2);
    const delayed = (await rig.queues.records.getDelayed()).filter((j) => j.data.account === 'A');
    expect(delayed).toHaveLength(BILLS - 2);
    expect(await rig.queues.records.getActiveCount()).toBe(0);
    const status = await a.status();
    expect(status.waitMs).toBeGreaterThan(5_000);
    for (const job of delayed) {
      // Put back until A's day frees up (about 24 s after the budget was used), with no attempt used.
      expect(job.attemptsMade).toBe(0);
      expect(job.timestamp + job.delay).toBeGreaterThan(Date.now() + 5_000);
    }
  }, 30_000);
});
