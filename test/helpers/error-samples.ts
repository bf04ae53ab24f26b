import {
  AuthError,
  BadRequestError,
  BuildsyncError,
  ConfigError,
  DatabaseError,
  DatabaseUnavailableError,
  FileError,
  ImportUnknownError,
  LedgerUnsafeError,
  OutputIncompleteError,
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
  ServiceNotFoundError,
  ThrottledError,
  UnexpectedStatusError,
  UsageError,
  type HttpErrorInit,
} from '../../src/errors/index.ts';
import { RedisNotDurableError } from '../../src/ledger/durability.ts';
import { noRedisAnswers } from '../../src/redis/failures.ts';

const http = (status: number): HttpErrorInit => ({ status, method: 'POST', path: '/api/Bills?Info=x', body: { Message: 'no' } });

/**
 * One failure of every error class (and the variants the tables tell apart), for the tests of the
 * exit-code and retry tables.
 */
export const ERROR_SAMPLES = {
  ConfigError: new ConfigError('bad value'),
  RedisNotDurableError: new RedisNotDurableError('refused', 'turn AOF on'),
  UsageError: new UsageError('bad flag'),
  FileError: new FileError('a.csv', 'cannot open a.csv'),
  RowError: new RowError('a.csv', 3, 'rate', 'not a number'),
  RedisUnavailableError: new RedisUnavailableError('redis://u:secret@127.0.0.1:1', { message: noRedisAnswers('redis://u:secret@127.0.0.1:1').message }),
  'AuthError 401': new AuthError(http(401)),
  'AuthError 403': new AuthError(http(403)),
  InterruptedError: new InterruptedError(),
  RecordInvalidError: new RecordInvalidError('too long'),
  BadRequestError: new BadRequestError(http(400)),
  NotFoundError: new NotFoundError(http(404)),
  'RateLimitError with Retry-After': new RateLimitError(http(429), 2_000, 'hour'),
  'RateLimitError without': new RateLimitError(http(429), undefined, undefined),
  ThrottledError: new ThrottledError('main', 60_000, 'hour', 'budget spent'),
  'ServerError 500': new ServerError(http(500)),
  'ServerError 503': new ServerError(http(503)),
  'UnexpectedStatusError 409': new UnexpectedStatusError(http(409)),
  'UnexpectedStatusError 302': new UnexpectedStatusError(http(302)),
  ResponseInvalidError: new ResponseInvalidError('no readable ID'),
  'NetworkError, connection refused': new NetworkError('ECONNREFUSED', false),
  'NetworkError, cut after sending': new NetworkError('ECONNRESET', true),
  RetryLaterError: new RetryLaterError(new ServerError(http(502)), undefined),
  RecordBusyError: new RecordBusyError(Date.now() + 1_000, 'another attempt'),
  DatabaseUnavailableError: new DatabaseUnavailableError('postgres://127.0.0.1/x', new Error('ECONNREFUSED')),
  DatabaseError: new DatabaseError('permission denied'),
  ServiceNotFoundError: new ServiceNotFoundError('http://127.0.0.1:4010', { path: '/api/v2/Projects', baseUrlVariable: 'BUILDSYNC_BASE_URL' }),
  ImportUnknownError: new ImportUnknownError('imp-1'),
  OutputIncompleteError: new OutputIncompleteError('standard output took 0 of the 10 bytes', 0),
  LedgerUnsafeError: new LedgerUnsafeError('the ledger marker is gone'),
  'BuildsyncError of no class': new BuildsyncError('BUILDSYNC_UNEXPECTED', 'odd'),
  'not a BuildsyncError (a bug)': new TypeError('x is undefined'),
} satisfies Record<string, Error>;

export type ErrorSample = keyof typeof ERROR_SAMPLES;
