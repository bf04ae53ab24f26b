import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import type { ExportJobData } from '../../jobs/export-projects.ts';
import type { ImportJobData } from '../../jobs/import-parent.ts';
import type { RecordJobData } from '../../jobs/send-record.ts';
import type { ImportPlan } from '../engine/index.ts';
import type { ImportStore } from '../ledger/index.ts';
import { JOB } from './names.ts';
import type { Queues } from './queues.ts';
import { EXPORT_ATTEMPTS, RECORD_ATTEMPTS } from './retention.ts';

/** Adds an export job; returns it. */
export async function submitExport(queues: Queues, data: ExportJobData): Promise<Job> {
  return queues.exports.add(JOB.exportProjects, data, {
    jobId: `export-${Date.now().toString(36)}-${randomUUID().slice(0, 6)}`,
    attempts: EXPORT_ATTEMPTS,
    backoff: { type: 'custom' },
  });
}

/** Record jobs are added in batches of this many (one round trip each). */
const BATCH = 1_000;
/** The parent waits delayed while its children are added, so it cannot finish before the last one is there. */
const HOLD_PARENT_MS = 7 * 24 * 3600 * 1000;

/**
 * Submits a planned import: its plan to the import store, a parent job, and one child job per
 * record with deterministic ids (a resubmission of the same batch adds nothing twice). The parent
 * is held delayed until every child is added, then promoted; it then waits for its children and
 * assembles the report (jobs/import-parent.ts).
 */
export async function submitImport(
  queues: Queues,
  store: ImportStore,
  plan: ImportPlan,
  opts: { account: string; reportPath?: string; resendUnknown: boolean; errorsSource?: unknown },
): Promise<{ importId: string; parent: Job }> {
  const importId = `import-${new Date().toISOString().slice(0, 10)}-${randomUUID().slice(0, 8)}`;
  await store.saveMeta({
    importId,
    kind: plan.kind,
    account: opts.account,
    file: plan.file,
    reportPath: opts.reportPath,
    rows: plan.rows,
    records: plan.records.length,
    invalidRows: plan.statics.filter((s) => s.status === 'invalid').length,
    createdAt: Date.now(),
    errorsSource: opts.errorsSource,
  });
  await store.savePlan(importId, plan.records, plan.statics);

  const parentData: ImportJobData = {
    kind: plan.kind,
    account: opts.account,
    importId,
    file: plan.file,
    reportPath: opts.reportPath,
    step: 'wait',
  };
  const parent = await queues.imports.add(plan.kind === 'estimates' ? JOB.importEstimates : JOB.importBills, parentData, {
    jobId: importId,
    delay: HOLD_PARENT_MS,
  });
  const parentRef = { id: importId, queue: queues.qualified(queues.imports) };
  const name = plan.kind === 'estimates' ? JOB.sendEstimate : JOB.sendBill;
  const kind = plan.kind === 'estimates' ? 'estimate' : 'bill';
  for (let i = 0; i < plan.records.length; i += BATCH) {
    await queues.records.addBulk(
      plan.records.slice(i, i + BATCH).map((r, j) => {
        const data: RecordJobData = {
          kind,
          account: opts.account,
          importId,
          key: r.key,
          label: r.label,
          contentHash: r.contentHash,
          payload: r.payload as Record<string, unknown>,
          resendUnknown: opts.resendUnknown,
        };
        return {
          name,
          data,
          opts: {
            jobId: `${importId}-r${i + j}`,
            parent: parentRef,
            attempts: RECORD_ATTEMPTS,
            backoff: { type: 'custom' },
            // A record job that fails anyway must not leave the import waiting forever.
            ignoreDependencyOnFailure: true,
          },
        };
      }),
    );
  }
  await parent.promote();
  return { importId, parent };
}
