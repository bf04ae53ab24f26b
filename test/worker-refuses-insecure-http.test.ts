import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ImportPlan } from '../src/import/plan-types.ts';
import { ImportStore } from '../src/import/index.ts';
import { Queues, startWorkers, submitImport, type WorkerHost } from '../src/queue/index.ts';
import { REDIS_URL, testRedis } from './helpers/redis.ts';

let t: Awaited<ReturnType<typeof testRedis>>;
let worker: WorkerHost | undefined;
beforeEach(async () => {
  t = await testRedis();
});
afterEach(async () => {
  await worker?.close();
  await t.cleanup();
});

const plan: ImportPlan = {
  kind: 'bills',
  file: 'bills.csv',
  rows: 1,
  records: [{ key: 'bill:ref:A|1|2', label: 'bill A / project 1 / vendor 2', lines: [2], contentHash: 'h', payload: { PRJ_ID: 1, VENDOR_ID: 2, ITEMS: [{ NAME: 'x', RATE: '1' }] } }],
  statics: [],
};

describe('a worker', () => {
  it('refuses plain http:// to a host other than loopback, sends nothing and reports the record failed with why', async () => {
    // `.invalid` never resolves (RFC 2606); the refusal comes before any connection anyway.
    const env = { BUILDSYNC_BASE_URL: 'http://service.invalid:4010', BUILDSYNC_EMAIL: 'a@b.c', BUILDSYNC_PASSWORD: 'pw-secret', BUILDSYNC_API_KEY: 'k-secret', BUILDSYNC_LIMITS: 'none' };
    worker = await startWorkers({ redisUrl: REDIS_URL, prefix: t.prefix, concurrency: 1, env, log: pino({ level: 'silent' }) });
    const queues = new Queues(t.redis, t.prefix);
    const store = new ImportStore(t.redis, t.prefix);
    try {
      const { importId } = await submitImport(queues, store, plan, { account: 'default', resendUnknown: false });
      await expect.poll(async () => (await store.counts(importId)).settled, { timeout: 10_000 }).toBe(1);
      const outcome = await store.outcome(importId, 'bill:ref:A|1|2');
      expect(outcome).toMatchObject({ status: 'failed', code: 'BUILDSYNC_CONFIG_INVALID' });
      expect(outcome!.message).toMatch(/--allow-insecure-http/);
      expect(outcome!.message).not.toMatch(/pw-secret|k-secret/);
    } finally {
      await queues.close();
    }
  });
});
