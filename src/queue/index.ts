export { QUEUE, JOB, DEFAULT_PREFIX, type JobKind, type QueueName } from './names.ts';
export { Queues } from './queues.ts';
export { RETENTION, RECORD_JOB_RETENTION, RECORD_ATTEMPTS, EXPORT_ATTEMPTS } from './retention.ts';
export { submitExport, submitImport, ImportSubmission, type SubmitImportOptions } from './submit.ts';
export { startWorkers, type WorkerHost, type WorkerHostOptions } from './worker-host.ts';
export { Metrics } from './metrics.ts';
export { exportJobData, PATH_FIELDS, type ExportJobData, type ExportJobResult } from '../../jobs/index.ts';
export type { ImportSummary } from '../import/index.ts';
