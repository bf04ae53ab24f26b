/**
 * The processors of every job kind, for the queue layer (src/queue/worker-host.ts), which imports
 * jobs/ through this file only. A processor validates its `job.data`, calls the engine and
 * reports progress; it holds no logic of its own.
 */
import type { Job } from 'bullmq';
import type { JobContext } from './context.ts';
import { processExportProjects, type ExportJobData } from './export-projects.ts';
import { processImportParent, type ImportJobData } from './import-parent.ts';
import { processSendRecord } from './send-record.ts';

/** A processor: the BullMQ job, its lock token, the worker's shared context and, for long jobs, a signal that cancels it. */
export type Processor = (job: Job, token: string | undefined, ctx: JobContext, signal?: AbortSignal) => Promise<unknown>;

/**
 * Job kind (the BullMQ job name, src/queue/names.ts `JOB`) → processor. worker-host checks that
 * every kind has one (`satisfies Record<JobKind, Processor>`).
 */
export const PROCESSORS = {
  'export-projects': (job, token, ctx, signal) => processExportProjects(job, token, ctx, signal),
  'import-estimates': (job, token, ctx) => processImportParent(job, token, ctx),
  'import-bills': (job, token, ctx) => processImportParent(job, token, ctx),
  'send-estimate': (job, token, ctx) => processSendRecord(job, token, ctx),
  'send-bill': (job, token, ctx) => processSendRecord(job, token, ctx),
} as const satisfies Record<string, Processor>;

/**
 * The fields of each kind's job data that name a file or folder a worker writes. Job data that
 * comes from the dashboard (bull-board's add, duplicate and edit) may give them only the values
 * the configured schedules give them (src/dashboard/job-paths.ts); a worker trusts its job data.
 */
export const PATH_FIELDS = {
  'export-projects': ['out', 'outDir'],
  'import-estimates': ['reportPath'],
  'import-bills': ['reportPath'],
  'send-estimate': [],
  'send-bill': [],
} as const satisfies {
  [K in keyof typeof PROCESSORS]: readonly (K extends 'export-projects' ? keyof ExportJobData : K extends `import-${string}` ? keyof ImportJobData : never)[];
};

export { createJobContext, type JobContext, type JobContextOptions } from './context.ts';
export { exportJobData, type ExportJobData, type ExportJobResult } from './export-projects.ts';
export { importJobData, type ImportJobData } from './import-parent.ts';
export { recordJobData, type RecordJobData } from './send-record.ts';
