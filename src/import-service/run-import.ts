/**
 * The one import sequence the CLI's `import` command and the dashboard's import page both run:
 * read the project listing (the resolver), check and plan the file, decide whether Redis keeps the
 * ledger safely (durability), submit through the queue, and after the import job ended collect
 * its report and rows to fix. Printing, progress and HTTP stay with the callers.
 */
import { resolve } from 'node:path';
import { allowVolatileRedis, type Env, type ServiceAccount } from '../config.ts';
import {
  errorsFileSource,
  importSummary,
  linesToFix,
  loadProjectListing,
  loadProjectResolver,
  planBills,
  planEstimates,
  streamBills,
  streamEstimates,
  writeErrorsFile,
  writeReport,
  type ErrorsFileSource,
  type ImportPlan,
  type ImportStore,
  type ImportSummary,
  type PlanFacts,
  type PlanSink,
  type PlanOptions,
  type ProjectListing,
} from '../import/index.ts';
import { durabilityDecision, Ledger, readDurabilityFacts, RedisNotDurableError, type DurabilityDecision } from '../ledger/index.ts';
import type { LocalReport } from '../import/index.ts';
import type { EarlierReport } from './earlier-report.ts';
import { projectResolverFromListing, type ProjectResolver, type StaticLine } from '../mapping/index.ts';
// The queue (BullMQ) is loaded when a file is submitted: a dry run and the page's check never load it.
import type { Queues } from '../queue/index.ts';
import type { RedisConnection as Redis } from '../redis/layout.ts';
import { openSession } from '../session/index.ts';
import { withAccountVendors } from './account-vendors.ts';
import { accountVendorList } from './page-vendors.ts';
import { pagePlan, type PagePlanInput } from './page-plan.ts';
import type { VendorEntry } from '../vendors/vendor-store.ts';

export type ImportKind = 'estimates' | 'bills';

/** Where the account's session runs: its budget in Redis (when given) under `prefix`. */
export interface SessionPlace {
  redis?: Redis;
  prefix: string;
  /** Connections of the session's client. */
  connections: number;
  timeScale?: number;
  signal?: AbortSignal;
}

/** Checks and plans a file in memory (the page's check, the dry run). */
export function planImport(kind: ImportKind, file: string, opts: PlanOptions): Promise<ImportPlan> {
  return kind === 'estimates' ? planEstimates(file, opts) : planBills(file, opts);
}

/**
 * The account's project listing as a resolver of project numbers and names: one request, which
 * takes its token from the account's shared budget when Redis is given.
 */
export async function listProjects(account: ServiceAccount, place: SessionPlace): Promise<ProjectResolver> {
  return projectResolverFromListing(await projectListing(account, place));
}

/** `listProjects` as plain data (the import page hands it to its reader thread, which makes the resolver). */
export async function projectListing(account: ServiceAccount, place: SessionPlace): Promise<ProjectListing> {
  const session = openSession(account, { redis: place.redis, prefix: place.prefix, connections: place.connections, timeScale: place.timeScale });
  try {
    return await loadProjectListing(session.client, place.signal);
  } finally {
    await session.close();
  }
}

/** Which of `keys` the account's ledger has created (looked up, nothing claimed): the import page's check asks it batch by batch. */
export function createdInLedger(redis: Redis, prefix: string, account: string): (keys: string[]) => Promise<boolean[]> {
  const ledger = new Ledger(redis, prefix);
  return (keys) => ledger.createdAmong(account, keys);
}

/** Whether this Redis keeps the ledger safely (docs/operators.md, "Durability"); `env` gives BUILDSYNC_ALLOW_VOLATILE_REDIS. */
export async function redisDurability(redis: Redis, env?: Env): Promise<DurabilityDecision> {
  return durabilityDecision(await readDurabilityFacts(redis), { allowVolatile: allowVolatileRedis(env) });
}

/** The CLI's form: a Redis that does not keep the ledger safely is a configuration error (exit 2). */
export async function requireDurableRedis(redis: Redis, env?: Env): Promise<Exclude<DurabilityDecision, { mode: 'refuse' }>> {
  const durability = await redisDurability(redis, env);
  if (durability.mode === 'refuse') throw new RedisNotDurableError('refused', durability.message);
  return durability;
}

export interface SubmitFileOptions {
  queues: Queues;
  store: ImportStore;
  account: ServiceAccount;
  place: SessionPlace & { redis: Redis };
  planOpts: PlanOptions;
  /** Where the CLI writes the report (the import page has none: its report is downloaded). */
  reportPath?: string;
  resendUnknown: boolean;
  /**
   * The import page's send: the file as the user uploaded it (`name`, the job's and the report's
   * name for it), every message of the plan passed through `scrub` (no message names where the
   * upload is kept), and the vendor IDs typed in the check's vendor table over the account's list.
   */
  page?: {
    name: string;
    scrub: (message: string) => string;
    typedVendors: readonly VendorEntry[];
    /**
     * Where the plan runs: the dashboard runs it in its reader thread, within that thread's memory
     * and time limits (src/dashboard/upload-reading.ts); by default, here. Either way `pagePlan`.
     */
    plan?: (input: PagePlanInput, sink: PlanSink) => Promise<PlanFacts>;
  };
  /** How Redis keeps the ledger as read before submitting (`DurabilityDecision` mode): workers stop sending when it changes. */
  durability?: string;
  /** An earlier run's report, checked against the ledger before anything is sent (`EarlierReport`). */
  earlier?: EarlierReport;
  /** `--ledger-lost accept`: the earlier report's created records the ledger lost are written into it. */
  ledgerLostAccept?: boolean;
  /** Keeps the report's part of the plan as it is submitted, to write the report if Redis loses it (`LocalReport`). */
  local?: LocalReport;
  /** Told what was written into the ledger from the earlier report. */
  onAdopted?: (written: { created: number; unknown: number }, from: string) => void;
}

/** A submitted file; `importId` undefined when it had a header and no data rows (nothing was submitted). */
export type SubmittedFile =
  | { importId: string; planned: PlanFacts; errorsSource: ErrorsFileSource; ledgerMarker: string }
  | { importId: undefined; planned: PlanFacts };

/**
 * The CLI's import: the plan streams into the import store while the file is read, so memory
 * stays flat; no record job exists before the whole file is read and valid (commit), and a
 * file-level error deletes what was written (abort).
 */
export async function submitFile(kind: ImportKind, file: string, o: SubmitFileOptions): Promise<SubmittedFile> {
  const { ImportSubmission } = await import('../queue/index.ts');
  const submission = new ImportSubmission(o.queues, o.store, kind, {
    account: o.account.name,
    reportPath: o.reportPath,
    resendUnknown: o.resendUnknown,
    durability: o.durability,
    onPlanned: o.local === undefined && o.earlier === undefined ? undefined : (records, statics) => {
      o.local?.planned(records, statics);
      o.earlier?.watch(records);
    },
  });
  const { place } = o;
  // The page's messages name the file as uploaded.
  const sink: PlanSink = o.page === undefined ? submission : { add: (records, statics) => submission.add(records, statics.map((st) => scrubbed(st, o.page!.scrub))) };
  let planned: PlanFacts;
  try {
    const session = openSession(o.account, { redis: place.redis, prefix: place.prefix, connections: place.connections, timeScale: place.timeScale });
    try {
      if (o.page === undefined) {
        const stream = kind === 'estimates' ? streamEstimates : streamBills;
        const planOpts = await withAccountVendors(kind, o.planOpts, place.redis, place.prefix, o.account.name);
        planned = await stream(file, { ...planOpts, resolver: await loadProjectResolver(session.client, place.signal) }, sink);
      } else {
        const vendors = { account: o.account.name, listed: await accountVendorList({ redis: place.redis, prefix: place.prefix, account: o.account.name }), typed: o.page.typedVendors };
        const input: PagePlanInput = { kind, file, planOpts: o.planOpts, projects: await loadProjectListing(session.client, place.signal), vendors };
        planned = await (o.page.plan ?? pagePlan)(input, sink);
      }
    } finally {
      await session.close();
    }
  } catch (err) {
    await submission.abort().catch(() => {});
    throw err;
  }
  if (planned.rows === 0) {
    await submission.abort();
    return { importId: undefined, planned };
  }
  if (o.earlier !== undefined) {
    try {
      const written = await o.earlier.settle(new Ledger(place.redis, place.prefix), o.account.name, { accept: o.ledgerLostAccept === true, importId: submission.importId });
      if (written.created + written.unknown > 0) o.onAdopted?.(written, o.earlier.path);
    } catch (err) {
      await submission.abort().catch(() => {});
      throw err;
    }
  }
  const errorsSource = errorsFileSource(planned, resolve(file), o.planOpts);
  const { importId, ledgerMarker } = await submission.commit({ file: o.page?.name ?? planned.file, rows: planned.rows, errorsSource });
  return { importId, planned, errorsSource, ledgerMarker };
}

/** A report line with its message (what the report keeps) passed through `scrub`. */
function scrubbed(st: StaticLine, scrub: (message: string) => string): StaticLine {
  return { ...st, message: scrub(st.message) };
}

/** After the import job ended: its summary, its report at `reportPath` and its rows to fix at `errorsPath` (how many). */
export async function collectResults(
  store: ImportStore,
  importId: string,
  o: { reportPath: string; errorsPath: string; errorsSource: ErrorsFileSource; signal?: AbortSignal },
): Promise<{ summary: ImportSummary; fixRows: number }> {
  const summary = await importSummary(store, importId);
  await writeReport(store, importId, o.reportPath);
  const fixRows = await writeErrorsFile(o.errorsSource, linesToFix(await store.report(importId)), o.errorsPath, o.signal);
  return { summary, fixRows };
}
