import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { z } from 'zod';
import { sendRecord } from '../src/engine/index.ts';
import { ConfigError, failureReason, retryDecision, waitMs } from '../src/errors/index.ts';
import type { RecordOutcome } from '../src/ledger/index.ts';
import type { JobContext } from './context.ts';

/** Job data of `send-estimate` / `send-bill`: one record, never a secret (the account is a name). */
export const recordJobData = z.object({
  kind: z.enum(['estimate', 'bill']),
  account: z.string().min(1),
  importId: z.string().min(1),
  key: z.string().min(1),
  label: z.string(),
  contentHash: z.string().min(1),
  payload: z.record(z.string(), z.unknown()),
  resendUnknown: z.boolean().default(false),
});
export type RecordJobData = z.infer<typeof recordJobData>;

/** How long to put a job back when the service said 429 without saying how long. */
const DEFAULT_429_DELAY_MS = 5_000;

/**
 * Sends one record (engine `sendRecord`) and settles its outcome in the import's store.
 * A record waiting for the account's budget goes back to the delayed set instead of holding a
 * worker slot, so that one throttled account does not slow another; that does not use up an
 * attempt (BullMQ's DelayedError).
 */
export async function processSendRecord(job: Job, token: string | undefined, ctx: JobContext): Promise<RecordOutcome> {
  const data = recordJobData.parse(job.data);
  const attempts = job.opts.attempts ?? 1;
  let client;
  try {
    client = ctx.client(data.account);
  } catch (err) {
    // This worker cannot reach the account (missing variables, refused http://): nothing was
    // sent; say so on the record instead of failing the job into an unexplained `unknown`.
    if (!(err instanceof ConfigError)) throw err;
    const failed: RecordOutcome = { status: 'failed', code: err.code, message: `this worker's configuration: ${err.message}` };
    await ctx.store.settle(data.importId, data.key, failed);
    ctx.count('failed');
    return failed;
  }
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
      },
      { client, ledger: ctx.ledger },
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
        throw err;
      default:
        // sendRecord turns every failure it understands into an outcome; what is left is a bug.
        throw new UnrecoverableError(failureReason(err));
    }
  }
  await ctx.store.settle(data.importId, data.key, outcome);
  ctx.count(outcome.status);
  await ctx.importProgress(data.importId);
  return outcome;
}
