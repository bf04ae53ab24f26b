/**
 * A master of a real Redis Cluster SIGKILLed in the middle of an import that three worker
 * processes run: its replica takes over (cluster-node-timeout 1 s, then an election), the killed
 * node is started again and rejoins as the new master's replica, and the import completes with
 * every bill created exactly once: nothing sent twice, nothing lost. The cluster is this file's
 * own (three masters, three replicas), so that the kill disturbs no other file of the run.
 */
import { randomUUID } from 'node:crypto';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportStore } from '../src/import/index.ts';
import { Queues, submitImport } from '../src/queue/index.ts';
import { newCluster } from '../src/redis/cluster.ts';
import { keySlot, ledgerKeyOf, prefixPatterns, queuePrefix, unlinkAll } from '../src/redis/layout.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { billPlan } from './helpers/bill-plan.ts';
import { startRedisCluster, type RedisClusterProcess } from './helpers/redis-cluster.ts';
import { accountEnv, sandboxBillProjects } from './helpers/throttle-rig.ts';
import { startWorkerProcesses, stopAll, type WorkerProcess } from './helpers/worker-processes.ts';

const BILLS = 60;
// 20 a second over the three workers: the import takes about 3 s, long enough to kill a master in it.
const LIMITS = 'second=20';

let cluster: RedisClusterProcess;
let sandbox: Sandbox;
let redis: Cluster;
let workers: WorkerProcess[] = [];
const prefix = `test-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  cluster = await startRedisCluster({ replicas: 1 });
  sandbox = await startSandbox({ limits: 'none', projects: 20 });
  redis = newCluster(cluster.url, { retry: (n) => Math.min(n * 100, 1000), connectTimeoutMs: 5000, maxRedirections: 64 });
  await redis.ping();
  workers = await startWorkerProcesses(3, {
    REDIS_URL: cluster.url,
    REDIS_CLUSTER: '1',
    BUILDSYNC_PREFIX: prefix,
    BUILDSYNC_CONCURRENCY: '4',
    // A job whose lock the failover lost (replication is asynchronous: the promoted replica may
    // lack the last lock renewal) comes back to a worker once its lock expires: 2 s here, not 30.
    BUILDSYNC_LOCK_MS: '2000',
    ...accountEnv('default', sandbox, 0, LIMITS),
  });
}, 60_000);

afterAll(async () => {
  await stopAll(workers);
  if (redis) {
    for (const pattern of prefixPatterns(redis, prefix)) await unlinkAll(redis, pattern).catch(() => undefined);
    redis.disconnect();
  }
  await sandbox?.close();
  await cluster?.close();
});

describe('a Redis Cluster master killed during an import', () => {
  it('fails over to its replica, and the import completes with every bill created exactly once', async () => {
    const queues = new Queues(redis, prefix);
    const store = new ImportStore(redis, prefix);
    try {
      const plan = billPlan(BILLS, sandboxBillProjects(sandbox), { tag: 'failover' });
      const { importId } = await submitImport(queues, store, plan, { account: 'default', resendUnknown: false });

      // The master of the queues' slot: every BullMQ script of the import runs there.
      const queueSlot = keySlot(`${queuePrefix(redis, prefix)}:x`);
      const killedPort = await cluster.masterOf(queueSlot);
      const killed = cluster.nodes.find((n) => n.port === killedPort)!;
      await until(async () => (await store.counts(importId)).settled >= 10, 15_000, 'ten bills settled');
      await killed.kill();
      const killedAt = Date.now();

      // The replica is promoted (a node timeout and an election: a few seconds) ...
      await until(async () => (await cluster.masterOf(queueSlot)) !== killedPort, 20_000, 'a replica promoted');
      const failoverMs = Date.now() - killedAt;
      // ... and the old master comes back as its replica, so that ledger notes are confirmed (WAIT 1) again.
      await killed.start();
      await cluster.waitOk();

      const counts = await until(
        async () => {
          const c = await store.counts(importId);
          return c.settled >= BILLS ? c : undefined;
        },
        40_000,
        'every bill settled',
      ).catch(async (err: Error) => {
        // What the workers said and where the import stands, to tell a stall from a loss.
        const jobs = await queues.records.getJobCounts().catch(() => ({}));
        const parent = await queues.imports.getJob(importId).then((j) => j?.getState()).catch(() => 'unreadable');
        throw new Error(
          `${err.message}; counts ${JSON.stringify(await store.counts(importId).catch(() => 'unreadable'))}, record jobs ${JSON.stringify(jobs)}, parent ${parent}\n` +
            workers.map((w, i) => `worker ${i + 1}:\n${w.stderr().slice(-1500)}`).join('\n'),
        );
      });
      const notCreated = (await Promise.all(plan.records.map((r) => store.outcome(importId, r.key)))).filter((o) => o?.status !== 'created');
      expect(counts, JSON.stringify(notCreated)).toMatchObject({ created: BILLS, failed: 0, unknown: 0, settled: BILLS });

      // Nothing twice, nothing lost: every bill of the plan in the service exactly once.
      const titles = sandbox.bills().map((b) => (b.payload as { TITLE?: string }).TITLE);
      expect(titles).toHaveLength(BILLS);
      expect(new Set(titles)).toEqual(new Set(plan.records.map((r) => r.payload.TITLE)));
      expect(sandbox.requests().filter((r) => r.status === 429)).toEqual([]);

      // The ledger on the account's slot knows every one as created.
      const ledger = await redis.hgetall(ledgerKeyOf(redis, prefix, 'default'));
      expect(Object.values(ledger).filter((v) => JSON.parse(v).state === 'created')).toHaveLength(BILLS);
      expect(failoverMs).toBeLessThan(20_000);
    } finally {
      await queues.close().catch(() => undefined);
    }
  }, 90_000);
});

async function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v as T;
    } catch (err) {
      last = err; // the cluster may be failing over
    }
    if (Date.now() > deadline) throw new Error(`not ${what} within ${timeoutMs} ms${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
