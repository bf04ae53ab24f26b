import { WaitingChildrenError, type Job } from 'bullmq';
import * as z from 'zod';
import { importSummary, writeReportIfPossible, type ImportSummary } from '../src/import/index.ts';
import type { JobContext } from './context.ts';
import { jobFailure } from './job-failure.ts';

/** Job data of `import-estimates` / `import-bills`: the parent of the import's record jobs. */
export const importJobData = z.object({
  kind: z.enum(['estimates', 'bills']),
  account: z.string().min(1),
  importId: z.string().min(1),
  file: z.string(),
  /** Absolute path where the report goes; written by the worker when that folder exists where it runs. */
  reportPath: z.string().optional(),
  step: z.enum(['wait', 'report']).default('wait'),
});
export type ImportJobData = z.infer<typeof importJobData>;

/**
 * BullMQ's "process step jobs" pattern: wait for every child record job, then assemble the report
 * from the import store. The plan itself is made where the file is (the CLI), so that workers on
 * other machines need no access to it.
 */
export async function processImportParent(job: Job, token: string | undefined, ctx: JobContext): Promise<ImportSummary> {
  const data = importJobData.parse(job.data);
  if (data.step === 'wait') {
    if (await job.moveToWaitingChildren(token ?? '')) throw new WaitingChildrenError();
    await job.updateData({ ...job.data, step: 'report' });
  }
  const summary = await importSummary(ctx.store, data.importId).catch((err: unknown) => {
    throw jobFailure(err);
  });
  await job.updateProgress(100);
  const written = data.reportPath ? await writeReportIfPossible(ctx.store, data.importId, data.reportPath) : false;
  ctx.log.info({ import: data.importId, ...summary.counts, ignored: summary.ignored }, `import ${data.importId} done`);
  return { ...summary, reportPath: written ? data.reportPath : undefined };
}
