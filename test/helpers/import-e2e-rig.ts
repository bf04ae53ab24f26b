/**
 * End-to-end rig of the import-estimates / import-bills / cli-import tests: a sandbox over real
 * sockets, a Redis key prefix of the test's own, imports submitted through the real queue
 * (submitImport) and run by real workers (startWorkers); `rig.env` is the environment the CLI
 * (test/helpers/cli.ts) runs with.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import pino from 'pino';
import type { Redis } from 'ioredis';
import { ServiceClient } from '../../src/api/index.ts';
import { importSummary, loadProjectResolver, planBills, planEstimates, type ImportSummary, type PlanOptions, type ProjectResolver } from '../../src/import/index.ts';
import { ImportStore, type ReportLine } from '../../src/import/index.ts';
import { Queues, startWorkers, submitImport, type WorkerHost } from '../../src/queue/index.ts';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.ts';
import { REDIS_URL, testRedis } from './redis.ts';

export interface ReportRow {
  line: string;
  record: string;
  status: string;
  id: string;
  message: string;
}

export interface ImportResult {
  importId: string;
  summary: ImportSummary;
  report: ReportLine[];
}

export interface E2eRig {
  sandbox: Sandbox;
  redis: Redis;
  prefix: string;
  /** A temp folder removed by close(). */
  dir: string;
  /** Environment of the account (sandbox credentials, no limits, this test's prefix and Redis). */
  env: Record<string, string>;
  queues: Queues;
  store: ImportStore;
  /** Writes `text` to a file in `dir`; returns its path. */
  file(name: string, text: string): string;
  /** The main user's project resolver (one v2 listing, cached). */
  resolver(): Promise<ProjectResolver>;
  /** In-process workers with `env` as their environment; closed by close(). */
  workers(opts?: { concurrency?: number; lockMs?: number; leaseMs?: number }): Promise<WorkerHost>;
  /** Plans FILE against the sandbox, submits it through the queue and waits for its parent job. */
  importFile(kind: 'estimates' | 'bills', file: string, opts?: Omit<PlanOptions, 'resolver'> & { resendUnknown?: boolean }): Promise<ImportResult>;
  /** Waits for an import's parent job to complete (throws on `failed` or after `timeoutMs`). */
  waitForImport(importId: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export const silentLog = pino({ level: 'silent' });

export async function startE2eRig(sandboxOpts: SandboxOptions = {}): Promise<E2eRig> {
  const sandbox = await startSandbox({ limits: 'none', ...sandboxOpts });
  const t = await testRedis();
  const dir = mkdtempSync(join(tmpdir(), 'buildsync-import-'));
  return buildRig({
    sandbox,
    redis: t.redis,
    redisUrl: REDIS_URL,
    prefix: t.prefix,
    dir,
    async close() {
      await t.cleanup();
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

/**
 * The rig over a sandbox, a Redis connection and a prefix the caller owns; `close` closes the
 * rig's workers and queues, then calls the caller's `close` (what it set up, it takes down).
 */
export function buildRig(parts: { sandbox: Sandbox; redis: Redis; redisUrl: string; prefix: string; dir: string; close(): Promise<void> }): E2eRig {
  const { sandbox, redis, redisUrl, prefix, dir } = parts;
  const env: Record<string, string> = {
    BUILDSYNC_BASE_URL: sandbox.url,
    BUILDSYNC_EMAIL: sandbox.credentials.email,
    BUILDSYNC_PASSWORD: sandbox.credentials.password,
    BUILDSYNC_API_KEY: sandbox.credentials.apiKey,
    BUILDSYNC_LIMITS: 'none',
    BUILDSYNC_PREFIX: prefix,
    REDIS_URL: redisUrl,
    LOG_LEVEL: 'warn',
    // This machine's Redis keeps nothing on disk (docs/operators.md, "Durability").
    BUILDSYNC_ALLOW_VOLATILE_REDIS: '1',
  };
  const queues = new Queues(redis, prefix);
  const store = new ImportStore(redis, prefix);
  const hosts: WorkerHost[] = [];
  let cachedResolver: ProjectResolver | undefined;

  const rig: E2eRig = {
    sandbox,
    redis,
    prefix,
    dir,
    env,
    queues,
    store,
    file(name, text) {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
    async resolver() {
      if (cachedResolver) return cachedResolver;
      const client = new ServiceClient({ baseUrl: sandbox.url, ...sandbox.credentials });
      try {
        cachedResolver = await loadProjectResolver(client);
      } finally {
        await client.close();
      }
      return cachedResolver;
    },
    async workers(opts = {}) {
      const host = await startWorkers({
        redisUrl,
        prefix,
        concurrency: opts.concurrency ?? 4,
        env,
        lockMs: opts.lockMs,
        leaseMs: opts.leaseMs,
        log: silentLog,
      });
      hosts.push(host);
      return host;
    },
    async importFile(kind, file, opts = {}) {
      const { resendUnknown = false, ...planOpts } = opts;
      const resolver = await rig.resolver();
      const plan = kind === 'estimates' ? await planEstimates(file, { ...planOpts, resolver }) : await planBills(file, { ...planOpts, resolver });
      const { importId } = await submitImport(queues, store, plan, { account: 'default', resendUnknown });
      if (hosts.length === 0) await rig.workers();
      await rig.waitForImport(importId);
      return { importId, summary: await importSummary(store, importId), report: await store.report(importId) };
    },
    async waitForImport(importId, timeoutMs = 25_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const job = await queues.imports.getJob(importId);
        const state = job ? await job.getState() : 'missing';
        if (state === 'completed') return;
        if (state === 'failed') throw new Error(`import ${importId} failed: ${job!.failedReason}`);
        if (Date.now() > until) throw new Error(`import ${importId} still ${state} after ${timeoutMs} ms; counts ${JSON.stringify(await store.counts(importId))}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      for (const h of hosts.reverse()) await h.close().catch(() => {});
      await queues.close().catch(() => {});
      await parts.close();
    },
  };
  return rig;
}

/** A report CSV, parsed (every cell as text). */
export function parseReport(text: string): ReportRow[] {
  return parse(text, { columns: true, skip_empty_lines: true }) as ReportRow[];
}

/** CSV text of rows under `header`, quoting every cell that needs it. */
export function csv(header: string[], rows: Array<Array<string | number>>): string {
  const cell = (v: string | number) => {
    const s = String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [header, ...rows].map((r) => r.map(cell).join(',')).join('\n') + '\n';
}

/** Company-1 projects of the main user that hold no estimate yet, ascending. */
export function freeProjectIds(sandbox: Sandbox): number[] {
  const taken = new Set(sandbox.projectIdsWithEstimate());
  return sandbox
    .visibleProjectIds(sandbox.credentials.email, false)
    .filter((id) => sandbox.project(id)!.NAME !== 'My Documents' && !taken.has(id));
}

/** Counts by a key. */
export function countBy<T>(items: T[], key: (t: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of items) out[key(i)] = (out[key(i)] ?? 0) + 1;
  return out;
}
