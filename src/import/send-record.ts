import type { ServiceClient } from '../api/index.ts';
import type { BillPayload, EstimatePayload } from '../payloads/index.ts';
import {
  BadRequestError,
  HttpError,
  NetworkError,
  ResponseInvalidError,
  LedgerUnsafeError,
  RecordBusyError,
  RetryLaterError,
  ServerError,
  coerceError,
  retryDecision,
} from '../errors/index.ts';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ClaimLostError, MarkerLostError, RESEND_LEASE_MS, type BeginResult, type DurabilityWatch, type Ledger } from '../ledger/index.ts';
import { type RecordOutcome } from './import-store.ts';

export type RecordKind = 'estimate' | 'bill';

export interface SendRecordInput {
  kind: RecordKind;
  account: string;
  importId: string;
  /** The record's key in the ledger (README, Reports, re-runs and `unknown`: an estimate by project, a bill by ref/project/vendor or content). */
  key: string;
  contentHash: string;
  payload: EstimatePayload | BillPayload;
  /** --resend-unknown: send a bill again although an earlier attempt may have stored it. */
  resendUnknown: boolean;
  /** Whether a retryable failure of this attempt should be retried (false on the last attempt). */
  mayRetry: boolean;
  /** The ledger's marker when the import was submitted: nothing is sent once it is gone or another (undefined: not checked). */
  marker?: string;
  /** How Redis kept the ledger when the import was submitted (a `DurabilityDecision` mode): nothing is sent once that changed. */
  durability?: string;
}

/** Why sending stopped, as every record not sent because of it says (docs/operators.md, "Durability"). */
function stoppedOutcome(why: string): RecordOutcome {
  return {
    status: 'failed',
    code: 'BUILDSYNC_LEDGER_UNSAFE',
    message: `not sent: sending stopped: ${why.replace(/\.$/, '')}. Run the import again once Redis keeps the ledger safely (docs/operators.md, "Durability")`,
  };
}

/** Why sending stopped when the ledger's marker was gone (`''`) or another (its value); undefined: one of the two. */
export function markerLostWhy(found?: string): string {
  if (found === '') return `the ledger's marker is gone from Redis (it restarted empty, or its data was flushed), so the ledger no longer knows what this import created`;
  if (found !== undefined) return `the ledger's marker is another than when the import started (Redis's data was replaced), so the ledger no longer knows what this import created`;
  return `the ledger's marker is gone or another than when the import started (Redis restarted empty, was flushed, or its data was replaced), so the ledger no longer knows what this import created`;
}

/** One sender's name in the ledger: this process and a fresh id per attempt. */
function newOwner(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/** The service's refusal of a second estimate for a project (docs/service.md, Estimates rule 3; status not shown). */
export function isEstimateExists(err: unknown): boolean {
  return err instanceof BadRequestError && /already (has|have|exists?)|exists/i.test(err.serviceMessage ?? '');
}

/**
 * Why a create that was handed over may have been stored, for the ledger and the report; undefined
 * for a failure nobody foresaw. `answeredSuccess`: the service said it stored it, so sending the
 * estimate again could only learn what it already said.
 */
function whyMaybeStored(err: Error): { reason: string; answeredSuccess: boolean } | undefined {
  if (err instanceof ServerError) return { reason: `the service answered ${err.status} to the create, which it may still have stored`, answeredSuccess: false };
  if (err instanceof ResponseInvalidError) return { reason: `the service answered success without a readable ID: ${err.message}`, answeredSuccess: true };
  if (err instanceof NetworkError) return { reason: 'the connection failed after the request was sent', answeredSuccess: false };
  return undefined;
}

/**
 * Sends one record once, guarded by the ledger: claim the record, send it (the claim becomes
 * `sending` at the moment the request is handed over), settle the ledger, and say what
 * happened. A claim is held under a lease renewed while this attempt lives. Throws only
 * `ThrottledError` (nothing was sent; wait for the budget), `RateLimitError` (likewise),
 * `RecordBusyError` (another live sender holds it) and `RetryLaterError` (try again later).
 */
export async function sendRecord(input: SendRecordInput, deps: { client: ServiceClient; ledger: Ledger; watch?: DurabilityWatch }): Promise<RecordOutcome> {
  const { ledger, client, watch } = deps;
  const { account, key, contentHash, importId } = input;
  const isEstimate = input.kind === 'estimate';
  const owner = newOwner();

  // Redis changed how it keeps the ledger since the import was submitted: nothing more is sent.
  const unsafe = watch?.unsafeFor(input.durability);
  if (unsafe !== undefined) return stoppedOutcome(unsafe);

  const begin = await ledger.claim(account, key, {
    owner,
    contentHash,
    importId,
    // One estimate per project makes a resend safe; a bill only on the user's word.
    allowResend: isEstimate || input.resendUnknown,
    marker: input.marker,
    // Two imports with --resend-unknown at once resend a bill once between them.
    resendLeaseMs: !isEstimate && input.resendUnknown ? RESEND_LEASE_MS : undefined,
  });
  const earlier = claimOutcome(begin, input, ledger);
  if (earlier !== undefined) return earlier;
  const resent = begin.action === 'resend';

  // The lease outlives this attempt only by its own length: renewed while the attempt lives
  // (waiting for the budget, a slot, the answer), so that only a dead worker's claim expires.
  const renewal = setInterval(() => {
    ledger.renew(account, key, owner).catch(() => {});
  }, Math.max(50, Math.floor(ledger.leaseMs / 3)));
  renewal.unref();
  let handedOver = false;
  const beforeSend = async (): Promise<void> => {
    // Persistence read again after a reconnection, then the note, checked against the ledger's marker.
    await watch?.require(input.durability);
    await ledger.handOver(account, key, owner, input.marker);
    handedOver = true;
  };

  try {
    const res = isEstimate
      ? await client.createEstimate(input.payload as EstimatePayload, { beforeSend })
      : await client.createBill(input.payload as BillPayload, { beforeSend });
    await ledger.created(account, key, res.id, contentHash, importId);
    return { status: 'created', id: res.id, message: resent ? 'created on a resend after an earlier attempt whose outcome was unknown' : '' };
  } catch (raw) {
    const err = coerceError(raw);

    if (err instanceof MarkerLostError) return stoppedOutcome(markerLostWhy());
    if (err instanceof LedgerUnsafeError) {
      await ledger.release(account, key, owner).catch(() => {});
      return stoppedOutcome(err.message);
    }
    if (err instanceof ClaimLostError) {
      // Our lease ran out while we waited (a stalled event loop): someone else may hold it now.
      throw new RecordBusyError(Date.now() + ledger.leaseMs, 'another sender (this attempt lost its claim while waiting)');
    }
    // The one retry table decides (src/errors/retry-policy.ts); this says what each decision
    // means for the ledger and the report.
    const decision = retryDecision(err, { handedOver });
    if (decision === 'budget') {
      // Nothing was stored (a 429 is a refusal, a budget wait sent nothing): the next attempt sends it.
      await ledger.release(account, key, owner);
      throw err;
    }
    if (isEstimate && isEstimateExists(err)) {
      await ledger.release(account, key, owner);
      return {
        status: 'exists',
        message: resent
          ? `the service reports an estimate for this project; an earlier attempt whose outcome was unknown may have created it`
          : `the project already has an estimate (${(err as HttpError).serviceMessage ?? 'refused'}); the service allows one per project`,
      };
    }
    if (decision === 'unknown') return settleUnknown(err, input, ledger);
    // The service did not store it: a later run sends it again.
    await ledger.release(account, key, owner);
    if (decision === 'never' && handedOver) {
      // A 4xx (401 included): refused. Retrying cannot help.
      return { status: 'failed', message: err.message, code: (err as HttpError).code };
    }
    // Certainly not delivered: the connection was refused (the client already retried it a few
    // times), or the request never reached the socket.
    const failed: RecordOutcome = { status: 'failed', code: (err as { code?: string }).code, message: `${err.message}; nothing was sent, run the import again to send it` };
    if (input.mayRetry && decision === 'bounded') throw new RetryLaterError<RecordOutcome>(err, failed);
    return failed;
  } finally {
    clearInterval(renewal);
  }
}

/**
 * What the ledger's answer to a claim means when it is not "send it": the ledger is gone, the
 * record was created before (by this import or by another), another sender holds it (a retry
 * later, `RecordBusyError`, when that is this import), or an earlier attempt's outcome is not
 * known. Undefined for `send` and `resend`.
 */
function claimOutcome(begin: BeginResult, input: SendRecordInput, ledger: Ledger): RecordOutcome | undefined {
  const { importId, contentHash } = input;
  if (begin.action === 'lost') return stoppedOutcome(markerLostWhy(begin.marker));
  if (begin.action === 'skip') {
    const prev = begin.previous;
    if (prev.importId === importId) {
      // This import created it: an earlier attempt of this very job got the ID into the ledger,
      // then its worker died before settling the outcome. The report must say `created`.
      return { status: 'created', id: prev.id, message: '' };
    }
    return {
      status: 'skipped',
      id: prev.id,
      message:
        prev.contentHash === contentHash
          ? `already created by this tool (ID ${prev.id})`
          : `already created by this tool as ID ${prev.id} from different content; the service offers no update, so the change was not sent`,
    };
  }
  if (begin.action === 'busy') {
    const prev = begin.previous;
    if (prev.importId !== importId) {
      // Another import (the same file started twice) is sending it now: its report says how it ends.
      return {
        status: 'skipped',
        message: `being sent by import ${prev.importId} at this moment (the same record in another import); that import's report says how it ended`,
      };
    }
    throw new RecordBusyError(prev.leaseUntil ?? Date.now() + ledger.leaseMs, `an earlier attempt of this import (${prev.state})`);
  }
  if (begin.action === 'unknown') {
    const prev = begin.previous;
    if (input.resendUnknown && prev.resentBy !== undefined && prev.resentBy !== importId) {
      return {
        status: 'unknown',
        message: `import ${prev.resentBy} resent it with --resend-unknown moments ago and its outcome is unknown again (${prev.reason ?? 'not recorded'}); not resent by this import, so that it goes out once. Check the project's bills in the service; if it is missing, run the import again with --resend-unknown after ${new Date(prev.resendUntil ?? Date.now()).toISOString().slice(11, 16)} UTC`,
      };
    }
    return {
      status: 'unknown',
      message: `an earlier attempt may have reached the service (${begin.previous.reason ?? 'its outcome was not recorded'}); not sent again, since the service would store the bill twice. Check the project's bills in the service; if it is missing, run the import again with --resend-unknown`,
    };
  }
  return undefined;
}

/** A create that was handed over and may have been stored: the ledger remembers it may exist. */
async function settleUnknown(err: Error, input: SendRecordInput, ledger: Ledger): Promise<RecordOutcome> {
  const { account, key, contentHash, importId } = input;
  const isEstimate = input.kind === 'estimate';
  const why = whyMaybeStored(err);
  if (why === undefined) {
    // A bug or an unforeseen failure after the hand-over: whether the request went out is not known.
    await ledger.unknown(account, key, `unexpected error: ${err.message}`, contentHash, importId);
    return { status: 'unknown', message: `unexpected error while sending: ${err.message}; check the service before sending it again` };
  }
  await ledger.unknown(account, key, why.reason, contentHash, importId);
  const unknown: RecordOutcome = {
    status: 'unknown',
    code: (err as { code?: string }).code,
    message: isEstimate
      ? `${why.reason}; run the import again: the estimate is sent again and the service's one-estimate rule settles it`
      : `${why.reason}; not sent again, since the service would store the bill twice. Check the project's bills in the service; if it is missing, run the import again with --resend-unknown`,
  };
  // An estimate may be resent: the service refuses a second one for the project.
  if (isEstimate && input.mayRetry && !why.answeredSuccess) throw new RetryLaterError<RecordOutcome>(err, unknown);
  return unknown;
}
