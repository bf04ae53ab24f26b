import { WaitingError, type Job } from 'bullmq';
import { z } from 'zod';
import { defaultExportPath, runExport } from '../src/engine/index.ts';
import type { JobContext } from './context.ts';

/** Job data of `export-projects`: the account by name and the export's options, never a secret. */
export const exportJobData = z.object({
  account: z.string().min(1),
  source: z.enum(['v2', 'paged']).default('v2'),
  includeClientSub: z.boolean().default(true),
  pageSize: z.number().int().min(1).max(10_000).default(500),
  format: z.enum(['csv', 'jsonl']).default('csv'),
  myDocuments: z.enum(['exclude', 'official', 'all']).default('exclude'),
  /** Exact output path; when absent the file is `projects-YYYY-MM-DD.<ext>` in `outDir`. */
  out: z.string().optional(),
  outDir: z.string().default('exports'),
});
export type ExportJobData = z.infer<typeof exportJobData>;

export interface ExportJobResult {
  path: string;
  projects: number;
  bytes: number;
  skippedMyDocuments: number;
  ms: number;
}

/**
 * Runs one export. A scheduled run is dated by the time it was scheduled for (not when a worker
 * got to it), so a late worker still writes the night's own file. When the worker shuts down
 * mid-export the temporary file is removed and the job goes back to the queue for another worker.
 */
export async function processExportProjects(job: Job, token: string | undefined, ctx: JobContext, signal?: AbortSignal): Promise<ExportJobResult> {
  const data = exportJobData.parse(job.data);
  const day = new Date(job.opts.timestamp ?? job.timestamp ?? Date.now());
  const out = data.out ?? defaultExportPath(data.format, new Date(day.getTime() + (job.opts.delay ?? 0)), data.outDir);
  let lastReport = 0;
  try {
    const result = await runExport(
      ctx.client(data.account),
      { ...data, out },
      {
        signal,
        onProgress: (p) => {
          const now = Date.now();
          if (now - lastReport < 500) return;
          lastReport = now;
          void job.updateProgress({ projects: p.projects, bytes: p.bytes }).catch(() => {});
        },
      },
    );
    await job.updateProgress({ projects: result.projects, bytes: result.bytes, done: true });
    ctx.log.info({ job: job.id, path: result.path, projects: result.projects }, 'export written');
    return { ...result };
  } catch (err) {
    if (signal?.aborted && token) {
      // The worker is closing: hand the job back untouched (no attempt used); nothing was written.
      await job.moveToWait(token);
      throw new WaitingError();
    }
    throw err;
  }
}
