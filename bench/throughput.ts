/**
 * Records created per second through the whole path (queue, throttle, ledger, import store,
 * HTTP) against its ideal and two floors, in one run:
 * - whole path: 2,000 bills imported by one worker process at BUILDSYNC_CONCURRENCY=10 with no
 *   budget (`BUILDSYNC_LIMITS=none`) against a sandbox answering after 20 ms; ideal
 *   10 / 20 ms = 500 records/s; goal ratio >= 0.85;
 * - bare undici: a Pool doing the same 2,000 POSTs with 10 in flight;
 * - bare BullMQ: 2,000 jobs that each wait 20 ms, at worker concurrency 10.
 *
 *   npm run bench -- throughput
 *
 * The sandbox runs in a process of its own. The last stdout line is one JSON object.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import { encodeBillInfo } from '../src/payloads/index.ts';
import { ImportStore } from '../src/import/index.ts';
import { Queues, submitImport } from '../src/queue/index.ts';
import { billPlan } from '../test/helpers/bill-plan.ts';
import { deleteKeys } from '../test/helpers/redis.ts';
import { startWorkerProcesses, stopAll } from '../test/helpers/worker-processes.ts';
import { forkSandbox, type ForkedSandbox } from './lib/sandbox-process.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const RECORDS = 2_000;
const CONCURRENCY = 10;
const LATENCY_MS = 20;
const IDEAL_PER_S = CONCURRENCY / (LATENCY_MS / 1000);

async function wholePath(sandbox: ForkedSandbox, redis: Redis): Promise<{ perS: number; peakRssMb: number; created: number; duplicates: number }> {
  const prefix = `bench-throughput-${process.pid}`;
  await deleteKeys(redis, `${prefix}:*`);
  await sandbox.reset();
  const user = sandbox.users[0]!;
  const procs = await startWorkerProcesses(1, {
    BUILDSYNC_PREFIX: prefix,
    BUILDSYNC_BASE_URL: sandbox.url,
    BUILDSYNC_EMAIL: user.email,
    BUILDSYNC_PASSWORD: user.password,
    BUILDSYNC_API_KEY: user.apiKey,
    BUILDSYNC_LIMITS: 'none',
    BUILDSYNC_CONCURRENCY: String(CONCURRENCY),
  });
  const queues = new Queues(redis, prefix);
  const store = new ImportStore(redis, prefix);
  try {
    const plan = billPlan(RECORDS, sandbox.projectIds, { tag: 'tp' });
    const t = performance.now();
    const { importId } = await submitImport(queues, store, plan, { account: 'default', resendUnknown: false });
    for (;;) {
      const c = await store.counts(importId);
      if (c.settled >= RECORDS) break;
      await sleep(5);
    }
    const seconds = (performance.now() - t) / 1000;
    const c = await store.counts(importId);
    const stats = await sandbox.stats();
    return { perS: RECORDS / seconds, peakRssMb: procs[0]!.peakRssMb() ?? 0, created: c.created, duplicates: stats.bills - stats.distinctBills };
  } finally {
    await stopAll(procs);
    await queues.close();
    await deleteKeys(redis, `${prefix}:*`);
  }
}

/** The same POSTs with nothing around them: a keep-alive Pool, 10 in flight. */
async function bareUndici(sandbox: ForkedSandbox): Promise<number> {
  await sandbox.reset();
  const user = sandbox.users[0]!;
  const auth = `Basic ${Buffer.from(`${user.email}:${user.password}`).toString('base64')}`;
  const paths = billPlan(RECORDS, sandbox.projectIds, { tag: 'undici' }).records.map(
    (r) => `/api/Bills?Info=${encodeURIComponent(encodeBillInfo(r.payload))}`,
  );
  const pool = new Pool(sandbox.url, { connections: CONCURRENCY });
  try {
    let next = 0;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < paths.length) {
          const path = paths[next++]!;
          const res = await pool.request({ method: 'POST', path, headers: { authorization: auth, apikey: user.apiKey, accept: 'application/json' } });
          await res.body.text();
          if (res.statusCode !== 200) throw new Error(`bare undici: ${res.statusCode} for ${path}`);
        }
      }),
    );
    return RECORDS / ((performance.now() - t) / 1000);
  } finally {
    await pool.close();
  }
}

/** BullMQ alone: jobs that each wait as long as the sandbox's latency. */
async function bareBullmq(redis: Redis): Promise<number> {
  const prefix = `bench-bullmq-${process.pid}`;
  await deleteKeys(redis, `${prefix}:*`);
  const queue = new Queue('bare', { connection: redis, prefix });
  const workerConnection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  let done = 0;
  let finish!: () => void;
  const finished = new Promise<void>((r) => (finish = r));
  const worker = new Worker('bare', async () => sleep(LATENCY_MS), { connection: workerConnection, prefix, concurrency: CONCURRENCY });
  worker.on('completed', () => {
    if (++done === RECORDS) finish();
  });
  await worker.waitUntilReady();
  try {
    const t = performance.now();
    for (let i = 0; i < RECORDS; i += 1_000) {
      await queue.addBulk(Array.from({ length: Math.min(1_000, RECORDS - i) }, (_, j) => ({ name: 'wait', data: { i: i + j }, opts: { removeOnComplete: true } })));
    }
    await finished;
    return RECORDS / ((performance.now() - t) / 1000);
  } finally {
    await worker.close();
    await queue.close();
    workerConnection.disconnect();
    await deleteKeys(redis, `${prefix}:*`);
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  const sandbox = await forkSandbox({ limits: 'none', latencyMs: LATENCY_MS, projects: 50 });
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  try {
    console.log(`sandbox (pid ${sandbox.pid}) at ${sandbox.url}: no limits, ${LATENCY_MS} ms latency; ${RECORDS} records, ${CONCURRENCY} in flight; ideal ${IDEAL_PER_S}/s`);
    const undici = await bareUndici(sandbox);
    console.log(`bare undici Pool:  ${undici.toFixed(0)} records/s (ratio ${(undici / IDEAL_PER_S).toFixed(3)})`);
    const bull = await bareBullmq(redis);
    console.log(`bare BullMQ jobs:  ${bull.toFixed(0)} jobs/s (ratio ${(bull / IDEAL_PER_S).toFixed(3)})`);
    const whole = await wholePath(sandbox, redis);
    console.log(
      `whole path:        ${whole.perS.toFixed(0)} records/s (ratio ${(whole.perS / IDEAL_PER_S).toFixed(3)}, goal >= 0.85); ` +
        `${whole.created} created, ${whole.duplicates} duplicates; worker peak RSS ${whole.peakRssMb} MB`,
    );
    console.log(
      JSON.stringify({
        bench: 'throughput',
        ratio: round(whole.perS / IDEAL_PER_S, 3),
        records_per_s: Math.round(whole.perS),
        ideal_per_s: IDEAL_PER_S,
        bare_undici_ratio: round(undici / IDEAL_PER_S, 3),
        bare_bullmq_ratio: round(bull / IDEAL_PER_S, 3),
        seconds: round((performance.now() - started) / 1000, 1),
        peak_rss_mb: Math.max(whole.peakRssMb, Math.round(process.resourceUsage().maxRSS / 1024)),
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
