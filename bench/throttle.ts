/**
 * How close the shared budget comes to the service's limit, end to end: 1,000 bills imported
 * through the queue by real worker processes under a budget of 50 per second set on both sides
 * (sandbox `limits: { second: 50 }`, `BUILDSYNC_LIMITS=second=50`), with one worker process and
 * with three. Ideal: 1,000 / 50 = 20 s; goal: measured / ideal <= 1.05 with no 429. Then with no
 * budget configured (`BUILDSYNC_LIMITS=none`: the tool learns the limit from 429s); goal: at most
 * one 429 per window on average.
 *
 *   npx tsx bench/throttle.ts          (or: npm run bench -- throttle)
 *
 * The sandbox runs in a process of its own. The last stdout line is one JSON object.
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { ImportStore } from '../src/ledger/index.ts';
import { Queues, submitImport } from '../src/queue/index.ts';
import { billPlan } from '../test/helpers/bill-plan.ts';
import { maxInAlignedBucket, maxInSlidingInterval, perWindowCounts } from '../test/helpers/request-log.ts';
import { deleteKeys } from '../test/helpers/redis.ts';
import { startWorkerProcesses, stopAll } from '../test/helpers/worker-processes.ts';
import { forkSandbox, type ForkedSandbox } from './lib/sandbox-process.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BILLS = 1_000;
const PER_SECOND = 50;
const WINDOW_MS = 1_000;
const IDEAL_S = BILLS / PER_SECOND;

interface Run {
  seconds: number;
  refused: number;
  refusedPerWindowMax: number;
  windows: number;
  maxSliding: number;
  maxAligned: number;
  created: number;
  duplicates: number;
  peakRssMb: number;
}

async function run(sandbox: ForkedSandbox, redis: Redis, label: string, workers: number, limits: string): Promise<Run> {
  const prefix = `bench-throttle-${process.pid}-${label}`;
  await deleteKeys(redis, `${prefix}:*`);
  await sandbox.reset();
  const user = sandbox.users[0]!;
  const procs = await startWorkerProcesses(workers, {
    BUILDSYNC_PREFIX: prefix,
    BUILDSYNC_BASE_URL: sandbox.url,
    BUILDSYNC_EMAIL: user.email,
    BUILDSYNC_PASSWORD: user.password,
    BUILDSYNC_API_KEY: user.apiKey,
    BUILDSYNC_LIMITS: limits,
    BUILDSYNC_CONCURRENCY: '8',
  });
  // Let the sandbox's window forget anything a previous run sent.
  await new Promise((r) => setTimeout(r, WINDOW_MS + 100));
  const queues = new Queues(redis, prefix);
  const store = new ImportStore(redis, prefix);
  try {
    const plan = billPlan(BILLS, sandbox.projectIds, { tag: label });
    const t = performance.now();
    const { importId } = await submitImport(queues, store, plan, { account: 'default', resendUnknown: false });
    for (;;) {
      const c = await store.counts(importId);
      if (c.settled >= BILLS) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const seconds = (performance.now() - t) / 1000;
    const counts = await store.counts(importId);
    const stats = await sandbox.stats();
    const peakRssMb = Math.max(...procs.map((p) => p.peakRssMb() ?? 0));
    const perWindow = perWindowCounts(stats.refusedAt, WINDOW_MS);
    const windows = Math.max(1, Math.ceil(seconds));
    return {
      seconds,
      refused: stats.refusedAt.length,
      refusedPerWindowMax: Math.max(0, ...perWindow),
      windows,
      maxSliding: maxInSlidingInterval(stats.acceptedAt, WINDOW_MS),
      maxAligned: maxInAlignedBucket(stats.acceptedAt, WINDOW_MS),
      created: counts.created,
      duplicates: stats.bills - stats.distinctBills,
      peakRssMb,
    };
  } finally {
    await stopAll(procs);
    await queues.close();
    await deleteKeys(redis, `${prefix}:*`);
  }
}

function describe(label: string, r: Run): void {
  console.log(
    `${label}: ${r.seconds.toFixed(2)} s (ideal ${IDEAL_S} s, ratio ${(r.seconds / IDEAL_S).toFixed(3)}), ` +
      `${r.created} created, ${r.duplicates} duplicates, 429s ${r.refused} (most in one window ${r.refusedPerWindowMax}), ` +
      `most accepted in any 1 s: sliding ${r.maxSliding}, aligned ${r.maxAligned}; worker peak RSS ${r.peakRssMb} MB`,
  );
}

async function main(): Promise<void> {
  const started = performance.now();
  const sandbox = await forkSandbox({ limits: { second: PER_SECOND }, projects: 50 });
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  try {
    console.log(`sandbox (pid ${sandbox.pid}) at ${sandbox.url}: second=${PER_SECOND}; ${BILLS} bills per run`);
    const one = await run(sandbox, redis, 'w1', 1, `second=${PER_SECOND}`);
    describe('1 worker,  BUILDSYNC_LIMITS=second=50', one);
    const three = await run(sandbox, redis, 'w3', 3, `second=${PER_SECOND}`);
    describe('3 workers, BUILDSYNC_LIMITS=second=50', three);
    const learning = await run(sandbox, redis, 'learn', 1, 'none');
    describe('1 worker,  BUILDSYNC_LIMITS=none (learning)', learning);
    console.log(
      `learning: ${learning.refused} 429s over ${learning.windows} windows = ${(learning.refused / learning.windows).toFixed(2)} per window (goal <= 1)`,
    );
    const peak = Math.max(one.peakRssMb, three.peakRssMb, learning.peakRssMb, Math.round(process.resourceUsage().maxRSS / 1024));
    console.log(
      JSON.stringify({
        bench: 'throttle',
        ratio: round(one.seconds / IDEAL_S, 3),
        ratio_3_workers: round(three.seconds / IDEAL_S, 3),
        '429s': one.refused + three.refused,
        '429s_learning': learning.refused,
        '429s_learning_per_window': round(learning.refused / learning.windows, 2),
        seconds: round((performance.now() - started) / 1000, 1),
        peak_rss_mb: peak,
      }),
    );
  } finally {
    redis.disconnect();
    await sandbox.close();
  }
}

function round(x: number, digits: number): number {
  const k = 10 ** digits;
  return Math.round(x * k) / k;
}

await main();
