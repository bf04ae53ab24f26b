import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { defaultExportPath, recordExportSuccess, runExport, type ProjectExportResult } from '../export/index.ts';
import { openSession } from '../session/index.ts';
import { exportJobData, submitExport, type ExportJobResult } from '../queue/index.ts';
import { connectRedis } from '../redis/index.ts';
import { parseFailureReason, redactUrl, UsageError } from '../errors/index.ts';
import { exitCodeOf } from './exit.ts';
import type { CommandContext } from './command.ts';
import { followJob } from './follow.ts';
import { copyFileToStdout } from './stdout-copy.ts';
import { parseExportOptions, type ExportOptionFlags } from './export-options.ts';
import { createProgress } from './progress.ts';
import { count } from './wording.ts';
import { AccountThrottle } from '../throttle/index.ts';
import { configFor, ensureWorker, openQueues, serviceAccount, timeScale } from './runtime.ts';

export interface ExportFlags extends ExportOptionFlags {
  out?: string;
  queue: boolean;
  detach?: boolean;
  json?: boolean;
}

/**
 * `export projects --json`: one object on stdout, always these keys (README, "Scripting").
 * `status` is `done`, `submitted` (--detach) or `failed`; `exitCode` is the command's.
 */
export interface ExportJson {
  status: 'done' | 'submitted' | 'failed';
  jobId: string | null;
  path: string | null;
  format: 'csv' | 'jsonl' | 'xlsx';
  projects: number | null;
  bytes: number | null;
  seconds: number | null;
  exitCode: number;
  error: { code: string | null; message: string } | null;
  /** `--to`; with `--changes` or `--to postgres`, what changed; with `--to postgres`, what the table got. */
  to: 'file' | 'postgres';
  changes: { path: string | null; added: number; changed: number; removed: number } | null;
  postgres: { inserted: number; updated: number; removed: number } | null;
}

export async function exportProjectsCommand(ctx: CommandContext, flags: ExportFlags): Promise<number> {
  const options = parseExportOptions(flags, flags.out);
  // `--out -`: the file on standard output. Standard output exists only in this process, so the
  // export runs here (as with --no-queue) into a private temporary file, which is copied to
  // stdout once complete: a failed export writes nothing there, as it leaves no file.
  const toStdout = flags.out === '-';
  if (toStdout && flags.detach) throw new UsageError('--out - writes the file to standard output, which a detached job cannot; give a file path with --detach');
  if (toStdout && options.to === 'postgres') throw new UsageError('--out - names the export file, and --to postgres writes none; leave --out out (the changes file of --changes goes to exports/)');
  if (toStdout && options.changes) throw new UsageError('--out - writes the export to standard output, so there is no file for the changes file to sit beside; give --out PATH with --changes');
  if (toStdout && flags.json) throw new UsageError('--out - and --json both write to standard output; write the file with --out PATH to get the --json summary');
  const tmp = toStdout ? await mkdtemp(join(tmpdir(), 'buildsync-export-')) : undefined;
  const spec = {
    ...options,
    // Absolute, so a worker in another directory writes where the user asked.
    out: tmp ? join(tmp, `projects.${options.format}`) : resolve(flags.out ?? defaultExportPath(options.format)),
  };
  const cfg = configFor(ctx);
  const account = serviceAccount(ctx, cfg);
  const summary = (r: ProjectExportResult, jobId?: string) => {
    if (flags.json) {
      ctx.out(JSON.stringify({ status: 'done', jobId: jobId ?? null, path: r.path || null, format: options.format, projects: r.projects, bytes: r.bytes, seconds: round(r.ms / 1000), exitCode: 0, error: null, ...destinationJson(r) } satisfies ExportJson));
    } else if (r.to === 'postgres' || r.changes?.path) {
      for (const line of destinationLines(r, jobId)) ctx.out(line);
    } else if (toStdout) {
      ctx.err(`wrote ${count(r.projects, 'project')} to standard output (${mb(r.bytes)}) in ${(r.ms / 1000).toFixed(1)} s`);
    } else {
      ctx.out(`wrote ${count(r.projects, 'project')} to ${r.path} (${mb(r.bytes)}) in ${(r.ms / 1000).toFixed(1)} s${jobId ? ` [job ${jobId}]` : ''}`);
    }
  };

  if (!flags.queue || toStdout) {
    // No queue, but the account's budget is still shared with every worker: every request takes
    // its token when Redis answers (README, Commands, Budget); without Redis only 429s pace it.
    const redis = await connectRedis(cfg.redisUrl, 'producer').catch(() => undefined);
    if (redis === undefined) ctx.err(`export: no Redis answers at ${redactUrl(cfg.redisUrl)}; its requests take no token from the account's shared budget (only the service's 429s pace them)`);
    const session = openSession(account, { redis, prefix: cfg.prefix, connections: cfg.concurrency, timeScale: timeScale() });
    const progress = createProgress('export');
    try {
      const r = await runExport(session.client, spec, {
        signal: ctx.signal,
        // --changes / --to postgres in this process: the state in the same Redis the workers use,
        // the database URL from this process's environment.
        changeState: redis ? { redis, prefix: cfg.prefix, account: account.name } : undefined,
        databaseUrl: account.exportDatabaseUrl,
        databaseVariable: account.exportDatabaseVariable,
        onProgress: (p) => progress.update(p.projects, undefined, progressUnit(spec.to, p.bytes)),
      });
      progress.stop();
      // The workers' staleness metrics count this export too (docs/data-teams.md).
      if (redis) await recordExportSuccess(redis, cfg.prefix, { account: account.name, schedule: '', result: r }).catch(() => {});
      if (toStdout) await copyFileToStdout(r.path, ctx.signal, `the export (${count(r.projects, 'project')})`);
      summary(r);
      return 0;
    } finally {
      progress.stop();
      await session.close();
      await redis?.quit().catch(() => {});
      if (tmp) await rm(tmp, { recursive: true, force: true });
    }
  }

  const { redis, queues, close } = await openQueues(cfg, ctx);
  try {
    const job = await submitExport(queues, exportJobData.parse({ account: account.name, ...spec }));
    if (flags.detach) {
      if (flags.json) ctx.out(JSON.stringify({ status: 'submitted', jobId: job.id!, path: spec.out, format: options.format, projects: null, bytes: null, seconds: null, exitCode: 0, error: null, to: options.to ?? 'file', changes: null, postgres: null } satisfies ExportJson));
      else ctx.out(job.id!);
      return 0;
    }
    const worker = await ensureWorker(ctx, cfg, queues);
    const progress = createProgress('export');
    // A paged export makes one request per page: show the budget and any wait, as imports do.
    const throttle = new AccountThrottle({ redis, account: account.name, limits: account.limits, prefix: cfg.prefix, timeScale: timeScale() });
    let budgetText = '';
    let budgetAt = 0;
    try {
      const done = await followJob(ctx, queues.exports, job.id!, async (j) => {
        if (Date.now() - budgetAt > 1000) {
          budgetAt = Date.now();
          const b = await throttle.status();
          budgetText = b.reason ?? (b.tightest ? `${b.tightest.remaining} requests left this ${b.tightest.window}` : '');
        }
        const p = j.progress as { projects?: number; bytes?: number } | number;
        const n = typeof p === 'object' && p ? p : { projects: 0, bytes: 0 };
        progress.update(n.projects ?? 0, undefined, `${progressUnit(spec.to, n.bytes ?? 0)}${budgetText ? ` | ${budgetText}` : ''}`);
      });
      progress.stop();
      if (done.state === 'failed') {
        // The same exit code as the same failure in this process (README, Commands).
        const f = parseFailureReason(done.job.failedReason);
        ctx.err(`buildsync: export job ${job.id} failed: ${f.message}${f.code ? ` [${f.code}]` : ''}`);
        const code = exitCodeOf(f.code);
        if (flags.json) ctx.out(JSON.stringify({ status: 'failed', jobId: job.id!, path: null, format: options.format, projects: null, bytes: null, seconds: null, exitCode: code, error: { code: f.code ?? null, message: f.message }, to: options.to ?? 'file', changes: null, postgres: null } satisfies ExportJson));
        return code;
      }
      summary(done.job.returnvalue as ExportJobResult, job.id!);
      return 0;
    } finally {
      progress.stop();
      await worker?.close();
    }
  } finally {
    await close();
  }
}

/** `--to postgres` and `--changes` in the --json summary: null when not asked for. */
function destinationJson(r: ProjectExportResult) {
  return {
    to: r.to,
    changes: r.changes ? { path: r.changes.path ?? null, added: r.changes.added, changed: r.changes.changed, removed: r.changes.removed } : null,
    postgres: r.postgres ?? null,
  };
}

function destinationLines(r: ProjectExportResult, jobId?: string): string[] {
  const job = jobId ? ` [job ${jobId}]` : '';
  const lines: string[] = [];
  if (r.to === 'postgres' && r.postgres) {
    const p = r.postgres;
    lines.push(`upserted ${count(r.projects, 'project')} into buildsync_projects in ${(r.ms / 1000).toFixed(1)} s: ${p.inserted} new, ${p.updated} updated, ${p.removed} marked removed; the others unchanged${job}`);
  } else {
    lines.push(`wrote ${count(r.projects, 'project')} to ${r.path} (${mb(r.bytes)}) in ${(r.ms / 1000).toFixed(1)} s${job}`);
  }
  if (r.changes?.path) lines.push(`changes: ${r.changes.added} added, ${r.changes.changed} changed, ${r.changes.removed} removed -> ${r.changes.path}`);
  return lines;
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/** The progress line's unit: `projects, 12.3 MB` of the export file; only `projects` into PostgreSQL, which writes no file. */
function progressUnit(to: string | undefined, bytes: number): string {
  return to === 'postgres' ? 'projects' : `projects, ${mb(bytes)}`;
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
