import type { Redis } from 'ioredis';
import type { ImportPlan } from '../../src/import/index.ts';
import { ImportStore, type OutcomeCounts } from '../../src/import/index.ts';
import { Queues, submitImport } from '../../src/queue/index.ts';
import type { Sandbox } from '../../src/sandbox/index.ts';
import { billProjects } from './bill-plan.ts';
import { testRedis } from './redis.ts';

export interface ThrottleRig {
  redis: Redis;
  prefix: string;
  queues: Queues;
  store: ImportStore;
  /** Submits a plan as the CLI would (`submitImport`) and returns the import id. */
  submit(plan: ImportPlan, account: string): Promise<string>;
  /** Polls the import store until every record of the import settled; returns the counts. */
  settled(importId: string, records: number, timeoutMs?: number): Promise<OutcomeCounts>;
  close(): Promise<void>;
}

/** A Redis prefix of the test's own with the producer's queues and the import store on it. */
export async function throttleRig(): Promise<ThrottleRig> {
  const { redis, prefix, cleanup } = await testRedis();
  const queues = new Queues(redis, prefix);
  const store = new ImportStore(redis, prefix);
  return {
    redis,
    prefix,
    queues,
    store,
    async submit(plan, account) {
      const { importId } = await submitImport(queues, store, plan, { account, resendUnknown: false });
      return importId;
    },
    async settled(importId, records, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const c = await store.counts(importId);
        if (c.settled >= records) return c;
        if (Date.now() > until) throw new Error(`import ${importId}: ${c.settled} of ${records} settled after ${timeoutMs} ms (${JSON.stringify(c)})`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      await queues.close().catch(() => {});
      await cleanup();
    },
  };
}

/** The variables of `--account NAME` pointing at one sandbox user (README, Configuration). */
export function accountEnv(name: string, sandbox: Sandbox, userIndex: number, limits: string): Record<string, string> {
  const user = sandbox.users[userIndex]!;
  const p = name === 'default' ? 'BUILDSYNC_' : `BUILDSYNC_${name.toUpperCase()}_`;
  return {
    [`${p}BASE_URL`]: sandbox.url,
    [`${p}EMAIL`]: user.email,
    [`${p}PASSWORD`]: user.password,
    [`${p}API_KEY`]: user.apiKey,
    [`${p}LIMITS`]: limits,
  };
}

/** Projects of the sandbox that the given user may put bills on. */
export function sandboxBillProjects(sandbox: Sandbox, userIndex = 0): number[] {
  return billProjects(sandbox.visibleProjectIds(sandbox.users[userIndex]!.email, false), sandbox.project);
}
