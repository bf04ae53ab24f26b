import pino from 'pino';
import { startDashboard, type Dashboard } from '../../src/dashboard/index.ts';
import { startWorkers, type WorkerHost } from '../../src/queue/index.ts';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.ts';
import { browserSession, type BrowserSession } from './chromium.ts';
import { REDIS_URL, testRedis } from './redis.ts';

export interface ImportPageRig {
  t: Awaited<ReturnType<typeof testRedis>>;
  sandbox: Sandbox;
  /** Undefined until `startWorker()` when the rig was started with `worker: false`. */
  worker: WorkerHost | undefined;
  dashboard: Dashboard;
  /** Contexts on the worker's shared Chromium, closed with the rig; undefined with `browser: false`. */
  browser: BrowserSession | undefined;
  /** The accounts' variables the dashboard and the worker read (secrets included: tests assert they never leak). */
  env: Record<string, string>;
  startWorker(): Promise<WorkerHost>;
  close(): Promise<void>;
}

export interface ImportPageRigOptions {
  /** BUILDSYNC_LIMITS of the default account. */
  limits: string;
  maxUploadMb?: number;
  /** `--max-uploads-total-mb`. */
  maxUploadsTotalMb?: number;
  /** Start a worker at once. @defaultValue true */
  worker?: boolean;
  /** Open a session on the worker's Chromium (launched on first use). @defaultValue true */
  browser?: boolean;
  /** Variables added to the accounts' environment (BUILDSYNC_UPLOAD_KEEP_MS, REDIS_URL…). */
  env?: Record<string, string>;
  /** More accounts on the same sandbox user, NAME → BUILDSYNC_<NAME>_LIMITS. */
  accounts?: Record<string, string>;
  /** The parent of the dashboard's private upload directory. */
  uploadDir?: string;
}

/** The sandbox, real Redis under a prefix of the test's own, a worker, the dashboard with imports, and Chromium. */
export async function startImportPageRig(opts: ImportPageRigOptions): Promise<ImportPageRig> {
  const t = await testRedis();
  const sandbox = await startSandbox({ limits: 'none' });
  const env: Record<string, string> = {
    BUILDSYNC_BASE_URL: sandbox.url,
    BUILDSYNC_EMAIL: sandbox.credentials.email,
    BUILDSYNC_PASSWORD: sandbox.credentials.password,
    BUILDSYNC_API_KEY: sandbox.credentials.apiKey,
    BUILDSYNC_LIMITS: opts.limits,
    BUILDSYNC_ALLOW_VOLATILE_REDIS: '1',
    ...opts.env,
  };
  for (const [name, limits] of Object.entries(opts.accounts ?? {})) {
    const n = name.toUpperCase();
    Object.assign(env, {
      [`BUILDSYNC_${n}_BASE_URL`]: sandbox.url,
      [`BUILDSYNC_${n}_EMAIL`]: sandbox.credentials.email,
      [`BUILDSYNC_${n}_PASSWORD`]: sandbox.credentials.password,
      [`BUILDSYNC_${n}_API_KEY`]: sandbox.credentials.apiKey,
      [`BUILDSYNC_${n}_LIMITS`]: limits,
    });
  }
  let worker: WorkerHost | undefined;
  const startWorker = async () => (worker ??= await startWorkers({ redisUrl: REDIS_URL, prefix: t.prefix, concurrency: 2, log: pino({ level: 'silent' }), env }));
  if (opts.worker ?? true) await startWorker();
  const dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, env, allowImports: true, maxUploadMb: opts.maxUploadMb, maxUploadsTotalMb: opts.maxUploadsTotalMb, uploadDir: opts.uploadDir });
  const browser = (opts.browser ?? true) ? await browserSession() : undefined;
  return {
    t, sandbox, dashboard, browser, env, startWorker,
    get worker() {
      return worker;
    },
    async close() {
      await browser?.close();
      await dashboard.close();
      await worker?.close();
      await sandbox.close();
      await t.cleanup();
    },
  };
}

/** Sandbox projects a test may import into (the personal "My Documents" project left out). */
export function importableProjects(sandbox: Sandbox): number[] {
  return sandbox.visibleProjectIds(sandbox.credentials.email, false).filter((id) => sandbox.project(id)?.NAME !== 'My Documents');
}
