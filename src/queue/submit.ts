import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import type { ExportJobData, ImportJobData, RecordJobData } from '../../jobs/index.ts';
import type { ImportPlan } from '../import/index.ts';
import type { ImportStore } from '../import/index.ts';
import { StaticTally, type MappedRecord } from '../mapping/index.ts';
import type { StaticLine } from '../mapping/report-line.ts';
import type { Env } from '../env.ts';
import { knob, MAX_RECORDS_PER_JOB } from '../knobs.ts';
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
 * Records per record job. A BullMQ job costs Redis about 700 bytes whatever it carries (its hash
 * and options, its parent's dependency entry, its place in the wait list), more than a one-line
 * bill itself: a big import puts up to `MAX_RECORDS_PER_JOB` records in one job (sent one after
 * the other, jobs/send-record.ts), keeping at least `MIN_JOBS` jobs to spread over the workers;
 * an import of up to 2 × MIN_JOBS records sends one record per job. `BUILDSYNC_RECORDS_PER_JOB`
 * (a test knob, knobs.ts) sets it.
 */
export function recordsPerJob(records: number, env?: Env): number {
  return knob('BUILDSYNC_RECORDS_PER_JOB', env) ?? Math.max(1, Math.min(MAX_RECORDS_PER_JOB, Math.floor(records / MIN_JOBS)));
}
const MIN_JOBS = 512;

/** Plan batches written to the import store while planning goes on; more waits (back-pressure). */
const PLAN_WRITES_IN_FLIGHT = 2;

export interface SubmitImportOptions {
  account: string;
  reportPath?: string;
  resendUnknown: boolean;
  /** How the input was read (the engine's `ErrorsFileSource`), for `jobs report ID --errors`. */
  errorsSource?: unknown;
  /** How Redis keeps the ledger as the submitter read it (`DurabilityDecision` mode): workers stop sending when it changes. */
  durability?: string;
  /** Sees each batch of the plan as it is added (a `LocalReport` keeps the report's part of it). */
  onPlanned?: (records: readonly MappedRecord[], statics: readonly StaticLine[]) => void;
}

/**
 * One import being submitted while its file is planned (docs/reading-rules.md: nothing is sent before
 * the whole file is read and validated). Planned records go to the import store in batches as
 * they are mapped (`add`), so the planner holds none of them; nothing runnable exists until
 * `commit`, which adds the parent job (held delayed), one record job per record, then releases
 * the parent. A file-level error mid-file is `abort`: the plan written so far is deleted, and no
 * job was ever added.
 *
 * A record job carries the numbers of its records in the plan (`recordsPerJob`) and the account;
 * each record's key, payload and label are in the import store once (jobs/send-record.ts), and the
 * job's id is fixed (`IMPORT-rN`, N its first record), so adding a batch twice adds nothing twice.
 */
export class ImportSubmission {
  readonly importId = `import-${new Date().toISOString().slice(0, 10)}-${randomUUID().slice(0, 8)}`;
  #records = 0;
  readonly #tally = new StaticTally();
  #inFlight: Promise<void>[] = [];
  #failed: unknown;
  #closed = false;

  constructor(
    private readonly queues: Queues,
    private readonly store: ImportStore,
    private readonly kind: ImportPlan['kind'],
    private readonly opts: SubmitImportOptions,
  ) {}

  /** Records planned so far. */
  get records(): number {
    return this.#records;
  }

  /** Rows reported `invalid` so far. */
  get invalidRows(): number {
    return this.#tally.invalid;
  }

  /** Adds a batch of the plan to the import store; resolves once few enough writes are in flight. */
  async add(records: readonly MappedRecord[], statics: readonly StaticLine[]): Promise<void> {
    if (this.#closed) throw new Error(`import ${this.importId} was already committed or aborted`);
    if (this.#failed !== undefined) throw this.#failed;
    if (records.length === 0 && statics.length === 0) return;
    const first = this.#records;
    this.#records += records.length;
    this.#tally.add(statics);
    this.opts.onPlanned?.(records, statics);
    const stored = records.map((r) => ({ key: r.key, label: r.label, lines: r.lines, notes: r.notes, contentHash: r.contentHash, payloadJson: r.payloadJson ?? JSON.stringify(r.payload) }));
    const write = this.store.appendPlan(this.importId, first, stored, statics).catch((err: unknown) => {
      this.#failed ??= err;
    });
    this.#inFlight.push(write);
    while (this.#inFlight.length >= PLAN_WRITES_IN_FLIGHT) await this.#inFlight.shift();
    if (this.#failed !== undefined) throw this.#failed;
  }

  /**
   * The file is read and valid: saves the import's meta, adds the parent (held) and every record
   * job, then releases the parent. From here on the records are sent.
   */
  async commit(facts: { file: string; rows: number; errorsSource?: unknown }): Promise<{ importId: string; parent: Job; records: number; ledgerMarker: string }> {
    await this.#drain();
    this.#closed = true;
    const { importId, queues, opts } = this;
    const kind = this.kind;
    // The ledger's marker as the import starts: its records are sent only while it is there.
    const ledgerMarker = await this.store.ledgerMarker(opts.account);
    await this.store.saveMeta({
      importId,
      kind,
      account: opts.account,
      file: facts.file,
      reportPath: opts.reportPath,
      rows: facts.rows,
      records: this.#records,
      invalidRows: this.#tally.invalid,
      ignored: this.#tally.ignored,
      createdAt: Date.now(),
      resendUnknown: opts.resendUnknown || undefined,
      errorsSource: facts.errorsSource ?? opts.errorsSource,
      ledgerMarker,
      durability: opts.durability,
    });
    await this.store.keep(importId);
    const parentData: ImportJobData = { kind, account: opts.account, importId, file: facts.file, reportPath: opts.reportPath, step: 'wait' };
    const parent = await queues.imports.add(kind === 'estimates' ? JOB.importEstimates : JOB.importBills, parentData, {
      jobId: importId,
      delay: HOLD_PARENT_MS,
    });
    const parentRef = { id: importId, queue: queues.qualified(queues.imports) };
    const name = kind === 'estimates' ? JOB.sendEstimate : JOB.sendBill;
    // The options every record job stores: nothing BullMQ's defaults already say (retention is the
    // worker's, retention.ts), so that a pending record costs Redis little.
    const jobOpts = { parent: parentRef, attempts: RECORD_ATTEMPTS, backoff: { type: 'custom' }, ignoreDependencyOnFailure: true };
    const per = recordsPerJob(this.#records);
    for (let i = 0; i < this.#records; i += BATCH * per) {
      const jobs = [];
      for (let n = i; n < Math.min(i + BATCH * per, this.#records); n += per) {
        const count = Math.min(per, this.#records - n);
        const data: RecordJobData = count === 1 ? { account: opts.account, n } : { account: opts.account, n, count };
        // A record job that fails anyway must not leave the import waiting forever (ignoreDependencyOnFailure).
        jobs.push({ name, data, opts: { ...jobOpts, jobId: `${importId}-r${n}` } });
      }
      await queues.records.addBulk(jobs);
    }
    await parent.promote();
    return { importId, parent, records: this.#records, ledgerMarker };
  }

  /** Planning failed: deletes what was written of the plan (nothing runnable was added). */
  async abort(): Promise<void> {
    this.#closed = true;
    await this.#drain().catch(() => {});
    await this.store.remove(this.importId);
  }

  async #drain(): Promise<void> {
    while (this.#inFlight.length > 0) await this.#inFlight.shift();
    if (this.#failed !== undefined) throw this.#failed;
  }
}

/**
 * Submits an import planned in memory (the import page, tests): `ImportSubmission` fed the whole
 * plan at once. The parent waits for its children, then assembles the report (jobs/import-parent.ts).
 */
export async function submitImport(queues: Queues, store: ImportStore, plan: ImportPlan, opts: SubmitImportOptions): Promise<{ importId: string; parent: Job }> {
  const submission = new ImportSubmission(queues, store, plan.kind, opts);
  try {
    for (let i = 0; i < Math.max(plan.records.length, plan.statics.length); i += BATCH) {
      await submission.add(plan.records.slice(i, i + BATCH), plan.statics.slice(i, i + BATCH));
    }
    const { importId, parent } = await submission.commit({ file: plan.file, rows: plan.rows });
    return { importId, parent };
  } catch (err) {
    await submission.abort().catch(() => {});
    throw err;
  }
}
