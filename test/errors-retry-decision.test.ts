import { describe, expect, it } from 'vitest';
import {
  BuildsyncError,
  DatabaseUnavailableError,
  RetryLaterError,
  retryDecision,
  type ErrorCode,
  type RetryDecision,
} from '../src/errors/index.ts';
import { ERROR_SAMPLES, type ErrorSample } from './helpers/error-samples.ts';
import { isSafeToRetry } from '../src/api/request-retry.ts';

type Row = [sample: ErrorSample, notHandedOver: RetryDecision, handedOver: RetryDecision];

/**
 * The one retry table (src/errors/retry-policy.ts), code by code, before and after a create was
 * handed over to the connection. After the hand-over only a 4xx is a certain refusal; a 5xx, a
 * connection cut after sending, an unreadable success or anything unforeseen may have stored it.
 */
const TABLE: Record<ErrorCode, Row[]> = {
  BUILDSYNC_CONFIG_INVALID: [
    ['ConfigError', 'never', 'unknown'],
    ['RedisNotDurableError', 'never', 'unknown'],
  ],
  BUILDSYNC_USAGE: [['UsageError', 'never', 'unknown']],
  BUILDSYNC_SERVICE_NOT_FOUND: [['ServiceNotFoundError', 'never', 'unknown']],
  BUILDSYNC_FILE_UNREADABLE: [['FileError', 'never', 'unknown']],
  BUILDSYNC_ROW_INVALID: [['RowError', 'never', 'unknown']],
  BUILDSYNC_RECORD_INVALID: [['RecordInvalidError', 'never', 'unknown']],
  BUILDSYNC_HTTP_400: [['BadRequestError', 'never', 'never']],
  BUILDSYNC_HTTP_401: [
    ['AuthError 401', 'never', 'never'],
    ['AuthError 403', 'never', 'never'],
  ],
  BUILDSYNC_HTTP_404: [['NotFoundError', 'never', 'never']],
  BUILDSYNC_HTTP_429: [
    ['RateLimitError with Retry-After', 'budget', 'budget'],
    ['RateLimitError without', 'budget', 'budget'],
  ],
  BUILDSYNC_THROTTLED: [['ThrottledError', 'budget', 'budget']],
  BUILDSYNC_HTTP_5XX: [
    ['ServerError 500', 'bounded', 'unknown'],
    ['ServerError 503', 'bounded', 'unknown'],
  ],
  BUILDSYNC_HTTP_OTHER: [
    ['UnexpectedStatusError 409', 'never', 'never'],
    ['UnexpectedStatusError 302', 'never', 'unknown'],
  ],
  BUILDSYNC_RESPONSE_INVALID: [['ResponseInvalidError', 'never', 'unknown']],
  BUILDSYNC_NETWORK: [
    ['NetworkError, connection refused', 'bounded', 'bounded'],
    ['NetworkError, cut after sending', 'bounded', 'unknown'],
  ],
  BUILDSYNC_REDIS_UNAVAILABLE: [['RedisUnavailableError', 'never', 'unknown']],
  BUILDSYNC_RETRY_LATER: [['RetryLaterError', 'bounded', 'bounded']],
  BUILDSYNC_RECORD_BUSY: [['RecordBusyError', 'budget', 'budget']],
  BUILDSYNC_INTERRUPTED: [['InterruptedError', 'never', 'unknown']],
  BUILDSYNC_DATABASE_UNAVAILABLE: [['DatabaseUnavailableError', 'bounded', 'bounded']],
  BUILDSYNC_DATABASE: [['DatabaseError', 'never', 'unknown']],
  BUILDSYNC_IMPORT_UNKNOWN: [['ImportUnknownError', 'never', 'unknown']],
  BUILDSYNC_OUTPUT_INCOMPLETE: [['OutputIncompleteError', 'never', 'unknown']],
  BUILDSYNC_LEDGER_UNSAFE: [['LedgerUnsafeError', 'never', 'unknown']],
  BUILDSYNC_UNEXPECTED: [
    ['BuildsyncError of no class', 'never', 'unknown'],
    ['not a BuildsyncError (a bug)', 'never', 'unknown'],
  ],
};

const ROWS = Object.entries(TABLE).flatMap(([code, rows]) => rows.map(([label, before, after]) => [code, label, before, after, ERROR_SAMPLES[label] as Error] as const));

describe('retryDecision: every code, before and after the hand-over', () => {
  it.each(ROWS)('%s (%s): %s, then %s', (_code, _label, before, after, err) => {
    expect(retryDecision(err, { handedOver: false })).toBe(before);
    expect(retryDecision(err)).toBe(before);
    expect(retryDecision(err, { handedOver: true })).toBe(after);
  });

  it('each row is of its code', () => {
    for (const [code, , , , err] of ROWS) if (err instanceof BuildsyncError) expect(err.code).toBe(code);
  });
});

describe("the client retries exactly what the table calls 'bounded'", () => {
  it.each(ROWS)('%s (%s)', (_code, _label, before, after, err) => {
    // A GET may be repeated whatever reached the service; a create fails after its hand-over.
    expect(isSafeToRetry(err, true)).toBe(before === 'bounded');
    expect(isSafeToRetry(err, false)).toBe(after === 'bounded');
  });

  it('of what a request can fail with, a create is retried only when its connection could not be opened', () => {
    // The other 'bounded' rows come from the record sender and the export database, never from a request.
    const fromRequests = ROWS.filter(([, , , , err]) => !(err instanceof RetryLaterError || err instanceof DatabaseUnavailableError));
    expect(fromRequests.filter(([, , , , err]) => isSafeToRetry(err, false)).map(([, label]) => label)).toEqual(['NetworkError, connection refused']);
  });
});
