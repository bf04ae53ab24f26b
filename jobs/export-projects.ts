import path from 'node:path';
import { WaitingError, type Job } from 'bullmq';
import * as z from 'zod';
import { defaultExportPath, runExport, type ExportFormat, type ProjectExportResult } from '../src/export/index.ts';
import { recordExportSuccess } from '../src/export/freshness.ts';
import type { JobContext } from './context.ts';
import { jobFailure } from './job-failure.ts';

/** Job data of `export-projects`: the account by name and the export's options, never a secret. */
export const exportJobData = z.object({
  account: z.string().min(1),
  source: z.enum(['v2', 'paged']).default('v2'),
  includeClientSub: z.boolean().default(true),
  pageSize: z.number().int().min(1).max(10_000).default(500),
  format: z.enum(['csv', 'jsonl', 'xlsx']).default('csv'),
  myDocuments: z.enum(['exclude', 'official', 'all']).default('exclude'),
  /** Exact output path; when absent the file is `projects-YYYY-MM-DD.<ext>` in `outDir`. */
  out: z.string().optional(),
  outDir: z.string().default('exports'),
  /** `postgres`: upsert into buildsync_projects of the worker's BUILDSYNC_EXPORT_DATABASE_URL (docs/data-teams.md); no export file. */
  to: z.enum(['file', 'postgres']).default('file'),
  /** Also write the changes file beside the export file's path (docs/data-teams.md). */
  changes: z.boolean().default(false),
});
export type ExportJobData = z.infer<typeof exportJobData>;

export type ExportJobResult = ProjectExportResult;

/**
 * Runs one export. A scheduled run is dated by the time it was scheduled for (not when a worker
 * got to it), so a late worker still writes the night's own file. When the worker shuts down
 * mid-export the temporary file is removed and the job goes back to the queue for another worker.
 */
export async function processExportProjects(job: Job, token: string | undefined, ctx: JobContext, signal?: AbortSignal): Promise<ExportJobResult> {
  const data = exportJobData.parse(job.data);
  const out = data.out ?? datedExportPath(data.format, scheduledAt(job), data.outDir, schedulerZone(job));
  let lastReport = 0;
  try {
    const db = data.to === 'postgres' ? ctx.exportDatabase(data.account) : undefined;
    const result = await runExport(
      ctx.client(data.account),
      { ...data, out },
      {
        signal,
        changeState: { redis: ctx.redis, prefix: ctx.prefix, account: data.account },
        databaseUrl: db?.url,
        databaseVariable: db?.variable,
        onProgress: (p) => {
          const now = Date.now();
          if (now - lastReport < 500) return;
          lastReport = now;
          void job.updateProgress({ projects: p.projects, bytes: p.bytes }).catch(() => {});
        },
      },
    );
    await job.updateProgress({ projects: result.projects, bytes: result.bytes, done: true });
    ctx.log.info({ job: job.id, to: result.to, path: result.path || undefined, projects: result.projects, changes: result.changes, postgres: result.postgres }, 'export written');
    // For the staleness alert (docs/data-teams.md); a metric is not worth failing the export.
    await recordExportSuccess(ctx.redis, ctx.prefix, { account: data.account, schedule: job.repeatJobKey ?? '', result }).catch((err: unknown) =>
      ctx.log.warn({ job: job.id, err: (err as Error).message }, 'could not record the export for the buildsync_export_last_success metrics'),
    );
    return { ...result };
  } catch (err) {
    if (signal?.aborted && token) {
      // The worker is closing: hand the job back untouched (no attempt used); nothing was written.
      await job.moveToWait(token);
      throw new WaitingError();
    }
    throw jobFailure(err);
  }
}

/**
 * When this run was meant to happen. A job scheduler's job carries its firing time exactly in
 * `opts.prevMillis` (BullMQ 6 `JobScheduler.getNextJobOpts`; the job id is
 * `repeat:<scheduler>:<prevMillis>` too). `timestamp + delay` is not that time: BullMQ takes
 * `timestamp` and computes `delay` at different moments, so for a midnight cron it can land a few
 * ms before midnight and date the file a day early. Any other job is dated when it was added.
 */
export function scheduledAt(job: Job): Date {
  if (job.repeatJobKey && typeof job.opts.prevMillis === 'number') return new Date(job.opts.prevMillis);
  return new Date(job.timestamp + (job.opts.delay ?? 0));
}

/**
 * The `--tz` of the schedule that made this job. BullMQ 6 copies the scheduler's repeat options
 * into each job's `opts.repeat` (typed only internally, as `RepeatableJobsOptions`).
 */
function schedulerZone(job: Job): string | undefined {
  if (!job.repeatJobKey) return undefined;
  const tz = (job.opts as { repeat?: { tz?: unknown } }).repeat?.tz;
  return typeof tz === 'string' && tz !== '' ? tz : undefined;
}

/**
 * `DIR/projects-YYYY-MM-DD.<ext>`. A schedule with `--tz` fires at that zone's wall-clock time, so
 * its file is dated by that zone's calendar day, not the worker's (02:00 in Tokyo is the previous
 * evening in UTC).
 */
function datedExportPath(format: ExportFormat, at: Date, dir: string, tz: string | undefined): string {
  if (!tz) return defaultExportPath(format, at, dir);
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value;
  return path.join(dir, `projects-${part('year')}-${part('month')}-${part('day')}.${format}`);
}
