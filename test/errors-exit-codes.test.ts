import { describe, expect, it } from 'vitest';
import {
  BuildsyncError,
  EXIT,
  exitCodeOf,
  firstExit,
  type ErrorCode,
} from '../src/errors/index.ts';
import { ERROR_SAMPLES, type ErrorSample } from './helpers/error-samples.ts';
import { describeFailure } from '../src/cli/exit.ts';
import { importExitCode, type ImportSummary } from '../src/import/index.ts';
import { CellValueError } from '../src/mapping/index.ts';

// The one home of "which exit status does a failure give": src/errors/exit-codes.ts. Every code
// of the union has its row (a `Record<ErrorCode, …>`: a new code does not compile without one).
const STATUS_OF_CODE: Record<ErrorCode, number> = {
  BUILDSYNC_CONFIG_INVALID: 2,
  BUILDSYNC_USAGE: 2,
  BUILDSYNC_FILE_UNREADABLE: 2,
  BUILDSYNC_ROW_INVALID: 2,
  BUILDSYNC_RECORD_INVALID: 1,
  BUILDSYNC_HTTP_400: 1,
  BUILDSYNC_HTTP_401: 3,
  BUILDSYNC_HTTP_404: 1,
  BUILDSYNC_HTTP_429: 1,
  BUILDSYNC_THROTTLED: 1,
  BUILDSYNC_HTTP_5XX: 4,
  BUILDSYNC_HTTP_OTHER: 1,
  BUILDSYNC_RESPONSE_INVALID: 1,
  BUILDSYNC_NETWORK: 4,
  BUILDSYNC_REDIS_UNAVAILABLE: 2,
  BUILDSYNC_RETRY_LATER: 4,
  BUILDSYNC_RECORD_BUSY: 1,
  BUILDSYNC_INTERRUPTED: 130,
  BUILDSYNC_DATABASE_UNAVAILABLE: 2,
  BUILDSYNC_DATABASE: 2,
  BUILDSYNC_IMPORT_UNKNOWN: 2,
  BUILDSYNC_OUTPUT_INCOMPLETE: 2,
  BUILDSYNC_LEDGER_UNSAFE: 2,
  BUILDSYNC_SERVICE_NOT_FOUND: 2,
  BUILDSYNC_UNEXPECTED: 1,
};

describe('the exit-code table', () => {
  it.each(Object.entries(STATUS_OF_CODE))('%s exits %i', (code, status) => {
    expect(exitCodeOf(code as ErrorCode)).toBe(status);
  });

  it('no code (a bug), or a code this version does not know (a newer worker), exits 1', () => {
    expect(exitCodeOf(undefined)).toBe(EXIT.partial);
    expect(exitCodeOf('BUILDSYNC_FROM_THE_FUTURE' as ErrorCode)).toBe(EXIT.partial);
    expect(exitCodeOf('toString' as ErrorCode)).toBe(EXIT.partial);
  });

  it('several statuses at once: the first of 130, 2, 3, 4, 1 wins', () => {
    expect(firstExit([])).toBe(0);
    expect(firstExit([false, false])).toBe(0);
    expect(firstExit([1, 4, 3])).toBe(3);
    expect(firstExit([1, 4])).toBe(4);
    expect(firstExit([3, 2])).toBe(2);
    expect(firstExit([2, 130, 1])).toBe(130);
  });
});

/**
 * One failure of every class, with the exit status and message form the command gave before the
 * status came from the table (an `instanceof` chain): `plain` prints the message alone, else it
 * ends in `[CODE]`.
 */
const FAILURES: Array<[ErrorSample, number, 'plain' | 'coded']> = [
  ['ConfigError', 2, 'plain'],
  ['RedisNotDurableError', 2, 'plain'],
  ['UsageError', 2, 'plain'],
  ['FileError', 2, 'plain'],
  ['RowError', 2, 'plain'],
  ['RedisUnavailableError', 2, 'plain'],
  ['AuthError 401', 3, 'plain'],
  ['AuthError 403', 3, 'plain'],
  ['InterruptedError', 130, 'plain'],
  ['RecordInvalidError', 1, 'coded'],
  ['BadRequestError', 1, 'coded'],
  ['NotFoundError', 1, 'coded'],
  ['RateLimitError with Retry-After', 1, 'coded'],
  ['ThrottledError', 1, 'coded'],
  ['ServerError 503', 4, 'coded'],
  ['UnexpectedStatusError 302', 1, 'coded'],
  ['ResponseInvalidError', 1, 'coded'],
  ['NetworkError, connection refused', 4, 'coded'],
  ['NetworkError, cut after sending', 4, 'coded'],
  ['RetryLaterError', 4, 'coded'],
  ['RecordBusyError', 1, 'coded'],
  ['DatabaseUnavailableError', 2, 'coded'],
  ['DatabaseError', 2, 'coded'],
  ['ImportUnknownError', 2, 'coded'],
  ['OutputIncompleteError', 2, 'coded'],
  ['LedgerUnsafeError', 2, 'coded'],
  ['ServiceNotFoundError', 2, 'coded'],
  ['BuildsyncError of no class', 1, 'coded'],
];

describe('describeFailure takes the status from the table', () => {
  it.each(FAILURES)('%s exits as before', (name, status, form) => {
    const err = ERROR_SAMPLES[name];
    const f = describeFailure(err);
    expect(f.code).toBe(status);
    const code = (err as BuildsyncError).code;
    expect(f.message).toBe(form === 'plain' ? `buildsync: ${err.message}` : `buildsync: ${err.message} [${code}]`);
    expect(f.message).not.toMatch(/\n\s+at /);
  });

  it('covers every code of the union with a failure of some class', () => {
    const covered = new Set(FAILURES.map(([name]) => (ERROR_SAMPLES[name] as BuildsyncError).code));
    expect(Object.keys(STATUS_OF_CODE).filter((c) => !covered.has(c as ErrorCode))).toEqual([]);
  });

  it('a cell error that escaped its row still exits 2', () => {
    expect(describeFailure(new CellValueError('expected a number')).code).toBe(EXIT.usage);
  });

  it('a failure that is not a BuildsyncError keeps its stack and exits 1', () => {
    const f = describeFailure(new TypeError('x is undefined'));
    expect(f.code).toBe(EXIT.partial);
    expect(f.message).toMatch(/^buildsync: unexpected error: TypeError: x is undefined\n\s+at /);
    expect(describeFailure('a thrown string')).toMatchObject({ code: EXIT.partial, message: expect.stringContaining('a thrown string') });
  });

  it("ioredis's own failures are BUILDSYNC_REDIS_UNAVAILABLE: exit 2, no stack", () => {
    const refused = Object.assign(new Error('WRONGPASS invalid username-password pair or user is disabled.'), { name: 'ReplyError' });
    const lost = Object.assign(new Error('Reached the max retries per request limit (which is 20).'), { name: 'MaxRetriesPerRequestError' });
    for (const err of [refused, lost, new Error('Connection is closed.')]) {
      const f = describeFailure(err);
      expect(f.code).toBe(exitCodeOf('BUILDSYNC_REDIS_UNAVAILABLE'));
      expect(f.message).toMatch(/^buildsync: .*\[BUILDSYNC_REDIS_UNAVAILABLE\]$/);
      expect(f.message).not.toMatch(/\n\s+at /);
    }
  });
});

function summary(over: Partial<Omit<ImportSummary, 'counts'>> & { counts?: Partial<ImportSummary['counts']> } = {}): ImportSummary {
  return {
    importId: 'imp-1',
    kind: 'bills',
    file: 'bills.csv',
    rows: 10,
    records: 5,
    ignored: {},
    authFailed: false,
    serviceFailed: false,
    unsettled: 0,
    ...over,
    counts: { created: 5, exists: 0, failed: 0, skipped: 0, unknown: 0, invalidRows: 0, ...over.counts },
  };
}

describe("an import's exit code: the first of 3, 4, 1", () => {
  it.each<[string, ImportSummary, number]>([
    ['all created', summary(), 0],
    ['invalid rows only', summary({ counts: { invalidRows: 2 } }), 1],
    ['refused records only', summary({ counts: { failed: 1 } }), 1],
    ['a record never settled', summary({ unsettled: 1 }), 1],
    ['failed after network errors', summary({ serviceFailed: true, counts: { failed: 1, invalidRows: 3 } }), 4],
    ['unknown after a 5xx', summary({ serviceFailed: true, counts: { unknown: 1 } }), 4],
    ['service failures that a later attempt got past', summary({ serviceFailed: true }), 0],
    ['credentials refused, and the service failing too', summary({ authFailed: true, serviceFailed: true, counts: { failed: 2, invalidRows: 1 } }), 3],
  ])('%s: exit %i', (_name, s, status) => {
    expect(importExitCode(s)).toBe(status);
  });
});
