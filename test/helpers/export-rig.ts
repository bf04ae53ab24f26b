import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Job } from 'bullmq';
import pino from 'pino';
import { exportJobData, Queues, startWorkers, submitExport, type ExportJobData, type WorkerHost } from '../../src/queue/index.ts';
import { startSandbox } from '../../src/sandbox/index.ts';
import type { Sandbox, SandboxOptions } from '../../src/sandbox/index.ts';
import { REDIS_URL, testRedis } from './redis.ts';

/** The variables a worker needs to reach the sandbox as its main user (README, Configuration). */
export function sandboxEnv(sandbox: Sandbox, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    BUILDSYNC_BASE_URL: sandbox.url,
    BUILDSYNC_EMAIL: sandbox.credentials.email,
    BUILDSYNC_PASSWORD: sandbox.credentials.password,
    BUILDSYNC_API_KEY: sandbox.credentials.apiKey,
    ...overrides,
  };
}

export interface ExportRig {
  sandbox: Sandbox;
  prefix: string;
  queues: Queues;
  /** A temp dir of the test's own, removed by `close()`. */
  dir: string;
  env: Record<string, string>;
  /** Starts an in-process worker host on the test's prefix; `close()` stops it. */
  startHost(opts?: { env?: Record<string, string>; lockMs?: number }): Promise<WorkerHost>;
  /** Submits an export of the default account and returns the job. */
  submit(data: Partial<ExportJobData>): Promise<Job>;
  /** Polls until the job completes or fails. */
  settle(job: Job, timeoutMs?: number): Promise<{ state: 'completed' | 'failed'; job: Job }>;
  close(): Promise<void>;
}

/** A sandbox, a Redis prefix, the producer's queues and a temp dir, all of the test's own. */
export async function exportRig(sandboxOpts: SandboxOptions = {}): Promise<ExportRig> {
  const sandbox = await startSandbox(sandboxOpts);
  const { redis, prefix, cleanup } = await testRedis();
  const queues = new Queues(redis, prefix);
  const dir = await mkdtemp(path.join(tmpdir(), 'export-queue-'));
  const env = sandboxEnv(sandbox);
  const hosts: WorkerHost[] = [];
  const log = pino({ level: 'silent' });

  return {
    sandbox,
    prefix,
    queues,
    dir,
    env,
    async startHost(opts = {}) {
      const host = await startWorkers({ redisUrl: REDIS_URL, prefix, concurrency: 4, env: opts.env ?? env, log, lockMs: opts.lockMs });
      hosts.push(host);
      return host;
    },
    submit(data) {
      return submitExport(queues, exportJobData.parse({ account: 'default', outDir: dir, ...data }));
    },
    async settle(job, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const state = await job.getState();
        if (state === 'completed' || state === 'failed') {
          const fresh = await queues.exports.getJob(job.id!);
          return { state, job: fresh! };
        }
        if (Date.now() > until) throw new Error(`job ${job.id} still ${state} after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      for (const h of hosts.reverse()) await h.close().catch(() => {});
      await queues.close().catch(() => {});
      await cleanup();
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Names in `dir` that look like the atomic writer's temporary files (`.NAME.<pid>.<hex>.tmp`). */
export async function tempFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.endsWith('.tmp'));
}

/** Waits until `check()` is true, polling. */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
