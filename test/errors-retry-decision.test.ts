import { describe, expect, it } from 'vitest';
import {
  AuthError,
  BadRequestError,
  BuildsyncError,
  ConfigError,
  DatabaseError,
  DatabaseUnavailableError,
  FileError,
  ImportUnknownError,
  InterruptedError,
  NetworkError,
  NotFoundError,
  RateLimitError,
  RecordBusyError,
  RecordInvalidError,
  RedisUnavailableError,
  ResponseInvalidError,
  RetryLaterError,
  RowError,
  ServerError,
  ThrottledError,
  UnexpectedStatusError,
  UsageError,
  retryDecision,
  type ErrorCode,
  type HttpErrorInit,
  type RetryDecision,
} from '../src/errors/index.ts';
import { isSafeToRetry } from '../src/api/request-retry.ts';

const http = (status: number): HttpErrorInit => ({ status, method: 'POST', path: '/api/v2/estimates', body: { Message: 'no' } });

type Row = [label: string, err: Error, notHandedOver: RetryDecision, handedOver: RetryDecision];

/**
 * The one retry table (src/errors/retry-policy.ts), code by code, before and after a create was
 * handed over to the connection. After the hand-over only a 4xx is a certain refusal; a 5xx, a
 * connection cut after sending, an unreadable success or anything unforeseen may have stored it.
 */
const TABLE: Record<ErrorCode, Row[]> = {
  BUILDSYNC_CONFIG_INVALID: [['ConfigError', new ConfigError('bad'), 'never', 'unknown']],
  BUILDSYNC_USAGE: [['UsageError', new UsageError('bad'), 'never', 'unknown']],
  BUILDSYNC_FILE_UNREADABLE: [['FileError', new FileError('a.csv', 'bad'), 'never', 'unknown']],
  BUILDSYNC_ROW_INVALID: [['RowError', new RowError('a.csv', 2, undefined, 'bad'), 'never', 'unknown']],
  BUILDSYNC_RECORD_INVALID: [['RecordInvalidError', new RecordInvalidError('bad'), 'never', 'unknown']],
  BUILDSYNC_HTTP_400: [['400', new BadRequestError(http(400)), 'never', 'never']],
  BUILDSYNC_HTTP_401: [
    ['401', new AuthError(http(401)), 'never', 'never'],
    ['403', new AuthError(http(403)), 'never', 'never'],
  ],
  BUILDSYNC_HTTP_404: [['404', new NotFoundError(http(404)), 'never', 'never']],
  BUILDSYNC_HTTP_429: [
    ['429 with Retry-After', new RateLimitError(http(429), 2_000, undefined), 'budget', 'budget'],
    ['429 without', new RateLimitError(http(429), undefined, undefined), 'budget', 'budget'],
  ],
  BUILDSYNC_THROTTLED: [['ThrottledError', new ThrottledError('main', 60_000, 'hour', 'spent'), 'budget', 'budget']],
  BUILDSYNC_HTTP_5XX: [
    ['500', new ServerError(http(500)), 'bounded', 'unknown'],
    ['503', new ServerError(http(503)), 'bounded', 'unknown'],
  ],
  BUILDSYNC_HTTP_OTHER: [
    ['409', new UnexpectedStatusError(http(409)), 'never', 'never'],
    ['302', new UnexpectedStatusError(http(302)), 'never', 'unknown'],
  ],
  BUILDSYNC_RESPONSE_INVALID: [['ResponseInvalidError', new ResponseInvalidError('no ID'), 'never', 'unknown']],
  BUILDSYNC_NETWORK: [
    ['connection refused', new NetworkError('ECONNREFUSED', false), 'bounded', 'bounded'],
    ['connection cut after sending', new NetworkError('ECONNRESET', true), 'bounded', 'unknown'],
  ],
  BUILDSYNC_REDIS_UNAVAILABLE: [['RedisUnavailableError', new RedisUnavailableError('redis://127.0.0.1:1'), 'never', 'unknown']],
  BUILDSYNC_RETRY_LATER: [['RetryLaterError', new RetryLaterError(new ServerError(http(502)), undefined), 'bounded', 'bounded']],
  BUILDSYNC_RECORD_BUSY: [['RecordBusyError', new RecordBusyError(Date.now() + 1000, 'another'), 'budget', 'budget']],
  BUILDSYNC_INTERRUPTED: [['InterruptedError', new InterruptedError(), 'never', 'unknown']],
  BUILDSYNC_DATABASE_UNAVAILABLE: [['DatabaseUnavailableError', new DatabaseUnavailableError('postgres://h/x', new Error('down')), 'bounded', 'bounded']],
  BUILDSYNC_DATABASE: [['DatabaseError', new DatabaseError('refused'), 'never', 'unknown']],
  BUILDSYNC_IMPORT_UNKNOWN: [['ImportUnknownError', new ImportUnknownError('imp-1'), 'never', 'unknown']],
  BUILDSYNC_UNEXPECTED: [
    ['a BuildsyncError of no class', new BuildsyncError('BUILDSYNC_UNEXPECTED', 'odd'), 'never', 'unknown'],
    ['not a BuildsyncError (a bug)', new TypeError('x is undefined'), 'never', 'unknown'],
  ],
};

const ROWS = Object.entries(TABLE).flatMap(([code, rows]) => rows.map(([label, err, before, after]) => [code, label, err, before, after] as const));

describe('retryDecision: every code, before and after the hand-over', () => {
  it.each(ROWS)('%s (%s): %s, then %s', (_code, _label, err, before, after) => {
    expect(retryDecision(err, { handedOver: false })).toBe(before);
    expect(retryDecision(err)).toBe(before);
    expect(retryDecision(err, { handedOver: true })).toBe(after);
  });

  it('each row is of its code', () => {
    for (const [code, , err] of ROWS) if (err instanceof BuildsyncError) expect(err.code).toBe(code);
  });
});

describe("the client retries exactly what the table calls 'bounded'", () => {
  it.each(ROWS)('%s (%s)', (_code, _label, err, before, after) => {
    // A GET may be repeated whatever reached the service; a create fails after its hand-over.
    expect(isSafeToRetry(err, true)).toBe(before === 'bounded');
    expect(isSafeToRetry(err, false)).toBe(after === 'bounded');
  });

  it('of what a request can fail with, a create is retried only when its connection could not be opened', () => {
    // The other 'bounded' rows come from the record sender and the export database, never from a request.
    const fromRequests = ROWS.filter(([, , err]) => !(err instanceof RetryLaterError || err instanceof DatabaseUnavailableError));
    expect(fromRequests.filter(([, , err]) => isSafeToRetry(err, false)).map(([, label]) => label)).toEqual(['connection refused']);
  });
});
