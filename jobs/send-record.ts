import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import * as z from 'zod';
import { sendRecord } from '../src/import/index.ts';
import { ConfigError, failureReason, ImportUnknownError, retryDecision, waitMs } from '../src/errors/index.ts';
import type { ServiceClient } from '../src/api/index.ts';
import type { RecordOutcome } from '../src/import/index.ts';
import type { JobContext } from './context.ts';

/**
 * Job data of `send-estimate` / `send-bill`: the numbers of its records in the import's plan
 * (`n`, and the `count` records from there, one unless the import is big: queue/submit.ts) and
 * the account (a name, never a secret). The records themselves (key, label, content hash,
 * payload) wait in the import store, once; the import is the job's parent.
 */
export const recordJobData = z.object({
  account: z.string().min(1),
  n: z.number().int().nonnegative(),
  count: z.number().int().positive().optional(),
});
export type RecordJobData = z.infer<typeof recordJobData>;

/** The job data record jobs had before the plan moved into the import store: jobs queued then are still sent. */
const inlineRecordJobData = z.object({
  kind: z.enum(['estimate', 'bill']),
  account: z.string().min(1),
  importId: z.string().min(1),
  key: z.string().min(1),
  label: z.string(),
  contentHash: z.string().min(1),
  payload: z.record(z.string(), z.unknown()),
  resendUnknown: z.boolean().default(false),
});

/** The account of either form of job data, read before anything else (see processSendRecord). */
const jobAccount = z.object({ account: z.string().min(1) });

interface RecordToSend {
  kind: 'estimate' | 'bill';
  account: string;
  importId: string;
  key: string;
  label: string;
  contentHash: string;
  payload: Record<string, unknown>;
  resendUnknown: boolean;
  /** The ledger's marker and Redis's durability when the import was submitted (absent from older imports). */
  marker?: string;
  durability?: string;
  /** An earlier run of the job settled its outcome: the first outcome stands (ImportStore.settle), it is not sent again. */
  settled: boolean;
}

/** The records a job sends: from the import store by their numbers, or (older jobs) from its data. */
async function recordsOf(job: Job, ctx: JobContext): Promise<RecordToSend[]> {
  // Today's form first: a failed parse builds its issues, which cost more than the job's own parse.
  const current = recordJobData.safeParse(job.data);
  if (!current.success) {
    const inline = inlineRecordJobData.safeParse(job.data);
    if (inline.success) return [{ ...inline.data, settled: false }];
    throw current.error;
  }
  const data = current.data;
  const importId = job.parent?.id;
  if (importId === undefined) throw new UnrecoverableError(`record job ${job.id} has no parent import; it cannot be sent`);
  // The records, the import's meta and which records an earlier run settled: one round trip.
  const { records: stored, meta } = await ctx.store.recordsToSend(importId, data.n, data.count ?? 1);
  if (meta === undefined || stored.some((r) => r === undefined)) {
    throw new UnrecoverableError(failureReason(new ImportUnknownError(importId, `, so records ${data.n}+${data.count ?? 1} cannot be sent`)));
  }
  return stored.map((record) => ({
    kind: meta.kind === 'estimates' ? 'estimate' : 'bill',
    account: data.account,
    importId,
    key: record!.key,
    label: record!.label,
    contentHash: record!.contentHash,
    payload: JSON.parse(record!.payloadJson) as Record<string, unknown>,
    resendUnknown: meta.resendUnknown === true,
    marker: meta.ledgerMarker,
    durability: meta.durability,
    settled: record!.settled,
  }));
}

/** How long to put a job back when the service said 429 without saying how long. */
const DEFAULT_429_DELAY_MS = 5_000;

/**
 * Sends a job's records one after the other (engine `sendRecord`) and settles each outcome in the
 * import's store. A record waiting for the account's budget puts the job back in the delayed set
 * instead of holding a worker slot, so that one throttled account does not slow another; that
 * does not use up an attempt (BullMQ's DelayedError). A record that may be retried (5xx, a
 * refused connection) makes the job fail this attempt once the others are sent; the next attempt
 * skips the records already settled, so each record gets the job's attempts.
 */
export async function processSendRecord(job: Job, token: string | undefined, ctx: JobContext): Promise<RecordOutcome | Partial<Record<RecordOutcome['status'], number>>> {
  const { account } = jobAccount.parse(job.data);
  let client;
  try {
    client = ctx.client(account);
  } catch (err) {
    // This worker cannot reach the account (missing variables, refused http://): nothing was
    // sent; say so on the record instead of failing the job into an unexplained `unknown`.
    if (!(err instanceof ConfigError)) throw err;
    const records = await recordsOf(job, ctx);
    const failed: RecordOutcome = { status: 'failed', code: err.code, message: `this worker's configuration: ${err.message}` };
    for (const r of records) await ctx.store.settle(records[0]!.importId, r.key, failed);
    ctx.count('failed', records.length);
    return failed;
  }
  // When this worker already knows the account is over its budget (its jobs sent away earlier
  // are due back after now), the job goes back before its records are read and claimed in the
  // ledger, to be released again: nothing read, claimed or sent, one step, and the worker
  // reaches the other accounts' jobs behind it in the one queue sooner (issue 16: their first
  // sends came up to 1.5 s late). While more of the account's jobs are under way here than it
  // could send in a window, the job waits for one of them to end, which usually tells. All
  // without Redis: AccountThrottle.admit.
  const admission = await ctx.throttle(account)?.admit();
  if (admission?.away) {
    await job.moveToDelayed(Date.now() + waitMs(admission.away, Date.now(), DEFAULT_429_DELAY_MS), token);
    throw new DelayedError();
  }
  try {
    return await sendRecords(job, token, ctx, client);
  } finally {
    admission?.done();
  }
}

/** The records of a job that may go on (see processSendRecord), one after the other. */
async function sendRecords(job: Job, token: string | undefined, ctx: JobContext, client: ServiceClient): Promise<RecordOutcome | Partial<Record<RecordOutcome['status'], number>>> {
  const records = await recordsOf(job, ctx);
  const attempts = job.opts.attempts ?? 1;
  let retry: unknown;
  let bug: UnrecoverableError | undefined;
  let last: RecordOutcome | undefined;
  const counts: Partial<Record<RecordOutcome['status'], number>> = {};
  for (const data of records) {
    // An earlier run of this job settled it (then failed on another record, stalled, or was
    // retried): the first outcome stands, and it is not sent again.
    if (data.settled) continue;
    let outcome: RecordOutcome;
    try {
      outcome = await sendRecord(
        {
          kind: data.kind,
          account: data.account,
          importId: data.importId,
          key: data.key,
          contentHash: data.contentHash,
          payload: data.payload as never,
          resendUnknown: data.resendUnknown,
          mayRetry: job.attemptsMade + 1 < attempts,
          marker: data.marker,
          durability: data.durability,
        },
        { client, ledger: ctx.ledger, watch: ctx.watch },
      );
    } catch (err) {
      // The one retry table (src/errors/retry-policy.ts) decides: wait without using an attempt
      // (the budget, or another live sender holding the record), retry with backoff, or never.
      switch (retryDecision(err)) {
        case 'budget':
          await job.moveToDelayed(Date.now() + waitMs(err, Date.now(), DEFAULT_429_DELAY_MS), token);
          throw new DelayedError();
        case 'bounded':
          ctx.log.warn({ job: job.id, record: data.label, attempt: job.attemptsMade + 1 }, `will retry: ${(err as Error).message}`);
          retry ??= err;
          continue;
        default:
          // sendRecord turns every failure it understands into an outcome; what is left is a bug.
          bug ??= new UnrecoverableError(failureReason(err));
          continue;
      }
    }
    await ctx.store.settle(data.importId, data.key, outcome);
    if (data.marker !== undefined) ctx.remember({ account: data.account, importId: data.importId, marker: data.marker, key: data.key, contentHash: data.contentHash, outcome });
    ctx.count(outcome.status);
    counts[outcome.status] = (counts[outcome.status] ?? 0) + 1;
    last = outcome;
    await ctx.importProgress(data.importId);
  }
  if (bug !== undefined) throw bug;
  if (retry !== undefined) throw retry;
  return records.length === 1 && last !== undefined ? last : counts;
}
