import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { loadConfig, requireService, type Env } from '../config.ts';
import { coerceError } from '../errors/index.ts';
import { defaultExportPath, recordExportSuccess, runExport, type ExportFormat } from '../export/index.ts';
import type { RedisConnection } from '../redis/layout.ts';
import { openSession } from '../session/index.ts';

/** One export the page started: what its status region shows, and the file once done. */
export interface ExportRun {
  id: string;
  account: string;
  format: ExportFormat;
  state: 'running' | 'done' | 'failed';
  projects: number;
  bytes: number;
  error?: string;
  /** The finished file, in the run's private directory. */
  file?: string;
  /** The name the download gets: projects-YYYY-MM-DD.xlsx. */
  name: string;
}

interface Kept extends ExportRun {
  dir: string;
  abort: AbortController;
  timer?: NodeJS.Timeout;
}

export interface ExportRunsOptions {
  redis: RedisConnection;
  prefix: string;
  env: Env;
  timeScale?: number;
  /** How long a finished file is kept for its download. */
  keepMs: number;
  /** Where each run's private directory is made. @defaultValue os.tmpdir() */
  dir?: string;
  log?: Logger;
}

/**
 * The exports the dashboard runs itself (README, "The export page"): in this process, as
 * `export projects --no-queue` runs one, so the file lands on the dashboard's disk (a worker's
 * disk may be another machine's); every request takes its token from the account's budget in
 * Redis, shared with the workers. A file is kept, in a private directory, for `keepMs` after it
 * is done (the upload's hour of the import page), or until the dashboard stops.
 */
export class ExportRuns {
  private readonly runs = new Map<string, Kept>();

  constructor(private readonly opts: ExportRunsOptions) {}

  /** Starts an export of `account`'s projects; its status is `get(id)` from now on. */
  async start(account: string, format: ExportFormat): Promise<ExportRun> {
    const cfg = loadConfig({ env: this.opts.env, account });
    const service = requireService(cfg.account);
    const dir = await mkdtemp(path.join(this.opts.dir ?? tmpdir(), 'buildsync-export-'));
    const out = defaultExportPath(format, new Date(), dir);
    const run: Kept = { id: `export-${randomBytes(8).toString('hex')}`, account: service.name, format, state: 'running', projects: 0, bytes: 0, name: path.basename(out), dir, abort: new AbortController() };
    this.runs.set(run.id, run);
    const session = openSession(service, { redis: this.opts.redis, prefix: this.opts.prefix, connections: cfg.concurrency, timeScale: this.opts.timeScale });
    const spec = { source: 'v2' as const, includeClientSub: true, pageSize: 500, format, myDocuments: 'exclude' as const, out };
    void runExport(session.client, spec, {
      signal: run.abort.signal,
      onProgress: (p) => Object.assign(run, { projects: p.projects, bytes: p.bytes }),
    })
      .then(async (result) => {
        Object.assign(run, { state: 'done', projects: result.projects, bytes: result.bytes, file: result.path });
        // The staleness metrics count it, as they count the CLI's --no-queue exports.
        await recordExportSuccess(this.opts.redis, this.opts.prefix, { account: service.name, schedule: '', result }).catch(() => {});
      })
      .catch((err: unknown) => {
        const e = coerceError(err);
        this.opts.log?.warn({ err: e, account: service.name }, 'export page: export failed');
        Object.assign(run, { state: 'failed', error: e.message });
      })
      .finally(() => {
        void session.close().catch(() => {});
        run.timer = setTimeout(() => void this.drop(run.id), this.opts.keepMs);
        run.timer.unref();
      });
    return view(run);
  }

  get(id: unknown): ExportRun | undefined {
    const run = typeof id === 'string' ? this.runs.get(id) : undefined;
    return run && view(run);
  }

  /** Stops the running exports and removes every kept file. */
  async close(): Promise<void> {
    await Promise.all([...this.runs.keys()].map((id) => this.drop(id)));
  }

  private async drop(id: string): Promise<void> {
    const run = this.runs.get(id);
    if (!run) return;
    this.runs.delete(id);
    clearTimeout(run.timer);
    run.abort.abort();
    await rm(run.dir, { recursive: true, force: true });
  }
}

function view(run: Kept): ExportRun {
  const { dir: _dir, abort: _abort, timer: _timer, ...shown } = run;
  return { ...shown };
}
