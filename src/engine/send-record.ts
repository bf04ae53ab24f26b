import type { ServiceClient } from '../api/index.ts';
import type { BillPayload, EstimatePayload } from '../payloads/index.ts';
import {
  BadRequestError,
  HttpError,
  NetworkError,
  RateLimitError,
  ResponseInvalidError,
  ServerError,
  ThrottledError,
  coerceError,
} from '../errors/index.ts';
import type { Ledger, RecordOutcome } from '../ledger/index.ts';

export type RecordKind = 'estimate' | 'bill';

export interface SendRecordInput {
  kind: RecordKind;
  account: string;
  importId: string;
  /** The record's key in the ledger (CONTRACT.md §5: an estimate by project, a bill by ref/project/vendor or content). */
  key: string;
  contentHash: string;
  payload: EstimatePayload | BillPayload;
  /** --resend-unknown: send a bill again although an earlier attempt may have stored it. */
  resendUnknown: boolean;
  /** Whether a retryable failure of this attempt should be retried (false on the last attempt). */
  mayRetry: boolean;
}

/**
 * A failure worth another attempt later (5xx on an estimate, a connection that never reached the
 * service): the job layer retries it with jittered backoff, a bounded number of times.
 */
export class RetryLaterError extends Error {
  readonly outcomeIfFinal: RecordOutcome;
  constructor(cause: Error, outcomeIfFinal: RecordOutcome) {
    super(cause.message, { cause });
    this.name = 'RetryLaterError';
    this.outcomeIfFinal = outcomeIfFinal;
  }
}

/** The service's refusal of a second estimate for a project (seed §4.3 rule 3; status not shown). */
export function isEstimateExists(err: unknown): boolean {
  return err instanceof BadRequestError && /already (has|have|exists?)|exists/i.test(err.serviceMessage ?? '');
}

/**
 * Sends one record once, guarded by the ledger: read the ledger, send, settle the ledger, and
 * say what happened. Throws only `ThrottledError` (nothing was sent; wait for the budget),
 * `RateLimitError` (likewise) and `RetryLaterError` (try again later).
 */
export async function sendRecord(input: SendRecordInput, deps: { client: ServiceClient; ledger: Ledger }): Promise<RecordOutcome> {
  const { ledger, client } = deps;
  const { account, key, contentHash, importId } = input;
  const isEstimate = input.kind === 'estimate';

  const begin = await ledger.begin(account, key, {
    contentHash,
    importId,
    // One estimate per project makes a resend safe; a bill only on the user's word.
    allowResend: isEstimate || input.resendUnknown,
  });
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
  if (begin.action === 'unknown') {
    return {
      status: 'unknown',
      message: `an earlier attempt may have reached the service (${begin.previous.reason ?? 'its outcome was not recorded'}); not sent again, since the service would store the bill twice. Check the project's bills in the service; if it is missing, run the import again with --resend-unknown`,
    };
  }
  const resent = begin.action === 'resend';

  try {
    const res = isEstimate
      ? await client.createEstimate(input.payload as EstimatePayload)
      : await client.createBill(input.payload as BillPayload);
    await ledger.created(account, key, res.id, contentHash, importId);
    return { status: 'created', id: res.id, message: resent ? 'created on a resend after an earlier attempt whose outcome was unknown' : '' };
  } catch (raw) {
    const err = coerceError(raw);

    if (err instanceof ThrottledError || err instanceof RateLimitError) {
      // Nothing was stored (a 429 is a refusal): the next attempt sends it.
      await ledger.release(account, key);
      throw err;
    }
    if (isEstimate && isEstimateExists(err)) {
      await ledger.release(account, key);
      return {
        status: 'exists',
        message: resent
          ? `the service reports an estimate for this project; an earlier attempt whose outcome was unknown may have created it`
          : `the project already has an estimate (${(err as HttpError).serviceMessage ?? 'refused'}); the service allows one per project`,
      };
    }
    if (err instanceof HttpError && err.status >= 400 && err.status < 500) {
      // 4xx (401 included): refused and not stored. Retrying cannot help; a later run sends it again.
      await ledger.release(account, key);
      return { status: 'failed', message: err.message, code: err.code };
    }
    const ambiguous =
      err instanceof ServerError || (err instanceof NetworkError && err.maybeDelivered) || err instanceof ResponseInvalidError;
    if (ambiguous) {
      const reason =
        err instanceof ServerError
          ? `the service answered ${err.status} to the create, which it may still have stored`
          : err instanceof ResponseInvalidError
            ? `the service answered success without a readable ID: ${err.message}`
            : 'the connection failed after the request was sent';
      await ledger.unknown(account, key, reason, contentHash, importId);
      const unknown: RecordOutcome = {
        status: 'unknown',
        code: (err as { code?: string }).code,
        message: isEstimate
          ? `${reason}; run the import again: the estimate is sent again and the service's one-estimate rule settles it`
          : `${reason}; not sent again, since the service would store the bill twice. Check the project's bills in the service; if it is missing, run the import again with --resend-unknown`,
      };
      // An estimate may be resent: the service refuses a second one for the project.
      if (isEstimate && input.mayRetry && !(err instanceof ResponseInvalidError)) throw new RetryLaterError(err, unknown);
      return unknown;
    }
    if (err instanceof NetworkError) {
      // Certainly not delivered (the client already retried the connection a few times).
      await ledger.release(account, key);
      const failed: RecordOutcome = { status: 'failed', code: err.code, message: `${err.message}; nothing was stored, run the import again to send it` };
      if (input.mayRetry) throw new RetryLaterError(err, failed);
      return failed;
    }
    // A bug or an unforeseen failure: whether the request went out is not known.
    await ledger.unknown(account, key, `unexpected error: ${err.message}`, contentHash, importId);
    return { status: 'unknown', message: `unexpected error while sending: ${err.message}; check the service before sending it again` };
  }
}
