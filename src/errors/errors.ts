/**
 * One small error hierarchy with stable string codes, in the manner of undici's `UND_ERR_*`.
 * The class decides how a failure is retried (see `retry-policy.ts`); the message says what the
 * user should do. Messages never contain secrets: HTTP errors carry the path and query of the
 * request, never its headers.
 */

export type ErrorCode =
  | 'BUILDSYNC_CONFIG_INVALID'
  | 'BUILDSYNC_USAGE'
  | 'BUILDSYNC_FILE_UNREADABLE'
  | 'BUILDSYNC_ROW_INVALID'
  | 'BUILDSYNC_RECORD_INVALID'
  | 'BUILDSYNC_HTTP_400'
  | 'BUILDSYNC_HTTP_401'
  | 'BUILDSYNC_HTTP_404'
  | 'BUILDSYNC_SERVICE_NOT_FOUND'
  | 'BUILDSYNC_HTTP_429'
  | 'BUILDSYNC_THROTTLED'
  | 'BUILDSYNC_HTTP_5XX'
  | 'BUILDSYNC_HTTP_OTHER'
  | 'BUILDSYNC_RESPONSE_INVALID'
  | 'BUILDSYNC_NETWORK'
  | 'BUILDSYNC_REDIS_UNAVAILABLE'
  | 'BUILDSYNC_RETRY_LATER'
  | 'BUILDSYNC_RECORD_BUSY'
  | 'BUILDSYNC_INTERRUPTED'
  | 'BUILDSYNC_DATABASE_UNAVAILABLE'
  | 'BUILDSYNC_DATABASE'
  | 'BUILDSYNC_IMPORT_UNKNOWN'
  | 'BUILDSYNC_OUTPUT_INCOMPLETE'
  | 'BUILDSYNC_LEDGER_UNSAFE'
  /** Not an error class: what a failure notice says of a failure that carries no code (a bug). */
  | 'BUILDSYNC_UNEXPECTED';

import { render, type Worded, type Wording } from './wording.ts';

const CODE_IN_REASON = /^\[(BUILDSYNC_[A-Z0-9_]+)\] /;

/**
 * A failure as a job carries it (BullMQ's `failedReason` is a string): the stable code first,
 * `[BUILDSYNC_HTTP_401] the service refused …`, so that the CLI following the job exits exactly
 * as it would have in-process. The message is the error's own, which never holds a secret.
 */
export function failureReason(err: unknown): string {
  const e = coerceError(err);
  const code = e instanceof BuildsyncError ? e.code : undefined;
  if (code === undefined || CODE_IN_REASON.test(e.message)) return e.message;
  return `[${code}] ${e.message}`;
}

/** The code and message of a `failureReason`; no code for a reason that carries none. */
export function parseFailureReason(reason: string | undefined): { code: ErrorCode | undefined; message: string } {
  const m = CODE_IN_REASON.exec(reason ?? '');
  return m ? { code: m[1] as ErrorCode, message: reason!.slice(m[0].length) } : { code: undefined, message: reason ?? '' };
}

/** A message as text, or as parts whose advice each front end words its own way (`wording.ts`). */
export type ErrorMessage = Worded;

export class BuildsyncError extends Error {
  readonly code: ErrorCode;
  /**
   * The message as parts, when its advice is worded per front end: `message` is the CLI's
   * rendering, `messageFor(err, 'page')` the import page's.
   */
  readonly wording: Wording | undefined;
  constructor(code: ErrorCode, message: ErrorMessage, options?: { cause?: unknown }) {
    super(typeof message === 'string' ? message : render(message, 'cli'), options);
    this.code = code;
    this.name = new.target.name;
    this.wording = typeof message === 'string' ? undefined : message;
  }
}

/** A bad configuration value (env var, flag, mapping file). Exit code 2. */
export class ConfigError extends BuildsyncError {
  constructor(message: ErrorMessage, options?: { cause?: unknown }) {
    super('BUILDSYNC_CONFIG_INVALID', message, options);
  }
}

/** A command line the tool cannot act on. Exit code 2. */
export class UsageError extends BuildsyncError {
  constructor(message: ErrorMessage, options?: { cause?: unknown }) {
    super('BUILDSYNC_USAGE', message, options);
  }
}

/** A file that cannot be opened or decoded at all. Exit code 2. */
export class FileError extends BuildsyncError {
  readonly file: string;
  constructor(file: string, message: ErrorMessage, options?: { cause?: unknown }) {
    super('BUILDSYNC_FILE_UNREADABLE', message, options);
    this.file = file;
  }
}

/** One bad cell or row of an input file: carries where it is and what was expected. */
export class RowError extends BuildsyncError {
  readonly file: string;
  readonly line: number;
  readonly column: string | undefined;
  /** `cell`: in an .xlsx, the cell as Excel names it (`Sheet1!D2`), said besides the line and the column. */
  constructor(file: string, line: number, column: string | undefined, message: ErrorMessage, cell?: string) {
    const where = `${file}:${line}${column ? ` column ${column}` : ''}${cell ? ` (${cell})` : ''}: `;
    super('BUILDSYNC_ROW_INVALID', typeof message === 'string' ? `${where}${message}` : [where, ...message]);
    this.file = file;
    this.line = line;
    this.column = column;
  }
}

/** A payload that the service's rules (docs/service.md) would refuse; never sent. */
export class RecordInvalidError extends BuildsyncError {
  constructor(message: string) {
    super('BUILDSYNC_RECORD_INVALID', message);
  }
}

export interface HttpErrorInit {
  status: number;
  method: string;
  /** Path and query, never the origin's credentials or headers. */
  path: string;
  body: unknown;
  headers?: Record<string, string | string[] | undefined>;
}

/** A non-2xx answer of the service. `body` is the parsed JSON body when there was one. */
export class HttpError extends BuildsyncError {
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  readonly headers: Record<string, string | string[] | undefined>;
  constructor(code: ErrorCode, init: HttpErrorInit, message: ErrorMessage) {
    super(code, message);
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.body = init.body;
    this.headers = init.headers ?? {};
  }

  /** The `Message` field of the service's JSON error body, when it has one. */
  get serviceMessage(): string | undefined {
    const b = this.body as { Message?: unknown; message?: unknown } | null;
    if (b && typeof b === 'object') {
      const m = b.Message ?? b.message;
      if (typeof m === 'string') return m;
    }
    return undefined;
  }
}

export class BadRequestError extends HttpError {
  constructor(init: HttpErrorInit) {
    super('BUILDSYNC_HTTP_400', init, `${init.method} ${stripQuery(init.path)} was refused with 400 Bad Request: ${describeBody(init.body)}. Check the record's fields against the service's rules.`);
  }
}

export class AuthError extends HttpError {
  constructor(init: HttpErrorInit) {
    super('BUILDSYNC_HTTP_401', init, [`the service refused the credentials (${init.status}). Check BUILDSYNC_EMAIL, BUILDSYNC_PASSWORD and BUILDSYNC_API_KEY (or `, { kind: 'account-variables' }, ').']);
  }
}

export class NotFoundError extends HttpError {
  constructor(init: HttpErrorInit) {
    super('BUILDSYNC_HTTP_404', init, `${init.method} ${stripQuery(init.path)} answered 404 Not Found: ${describeBody(init.body)}.`);
  }
}

/**
 * The service's own listing answered 404: the base URL points somewhere that is not the service
 * (a wrong host, port or path, or one that ends in /api). Configuration, not a missing record.
 */
export class ServiceNotFoundError extends BuildsyncError {
  constructor(baseUrl: string, opts: { path: string; baseUrlVariable: string; cause?: unknown }) {
    super(
      'BUILDSYNC_SERVICE_NOT_FOUND',
      `${baseUrl} answered 404 for ${opts.path}: it does not look like the service. Check ${opts.baseUrlVariable} (its address, without /api).`,
      { cause: opts.cause },
    );
  }
}

export class RateLimitError extends HttpError {
  /** How long the service asked us to wait, from Retry-After or its message; undefined when it did not say. */
  readonly retryAfterMs: number | undefined;
  /** The window the service named ("hour", "day", …), when it named one. */
  readonly window: string | undefined;
  constructor(init: HttpErrorInit, retryAfterMs: number | undefined, window: string | undefined) {
    super('BUILDSYNC_HTTP_429', init, `the service's rate limit was exceeded${window ? ` (${window})` : ''}${retryAfterMs !== undefined ? `; it asks to wait ${Math.ceil(retryAfterMs / 1000)} s` : ''}. The tool waits and resumes; lower BUILDSYNC_LIMITS to avoid this.`);
    this.retryAfterMs = retryAfterMs;
    this.window = window;
  }
}

/**
 * Not an answer of the service: the account's own rate budget has no room for a request now and
 * the wait is longer than is worth holding a worker slot for. Nothing was sent. A job processor
 * turns it into a delayed job (attempts are not used up); `waitMs` says for how long.
 */
export class ThrottledError extends BuildsyncError {
  readonly waitMs: number;
  readonly window: string | undefined;
  readonly account: string;
  constructor(account: string, waitMs: number, window: string | undefined, reason: string) {
    super('BUILDSYNC_THROTTLED', `account ${account}: ${reason}; waiting ${formatWait(waitMs)}`);
    this.account = account;
    this.waitMs = waitMs;
    this.window = window;
  }
}

/** "41 min", "3 h 5 min", "12 s": how people read a wait. */
export function formatWait(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.ceil(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h${m % 60 ? ` ${m % 60} min` : ''}`;
  return `${Math.round(h / 24)} days`;
}

export class ServerError extends HttpError {
  constructor(init: HttpErrorInit) {
    super('BUILDSYNC_HTTP_5XX', init, `${init.method} ${stripQuery(init.path)} failed on the service's side (${init.status}): ${describeBody(init.body)}. It is retried a few times; if it persists, try again later.`);
  }
}

export class UnexpectedStatusError extends HttpError {
  constructor(init: HttpErrorInit) {
    super('BUILDSYNC_HTTP_OTHER', init, `${init.method} ${stripQuery(init.path)} answered an unexpected status ${init.status}: ${describeBody(init.body)}.`);
  }
}

/** The service answered 2xx with a body the tool cannot read. */
export class ResponseInvalidError extends BuildsyncError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('BUILDSYNC_RESPONSE_INVALID', message, options);
  }
}

/**
 * A connection-level failure. `maybeDelivered` is true when the request may have reached the
 * service (the body was written and the connection died before an answer): such a create is
 * `unknown`, never resent blindly.
 */
export class NetworkError extends BuildsyncError {
  readonly maybeDelivered: boolean;
  constructor(message: string, maybeDelivered: boolean, options?: { cause?: unknown }) {
    super('BUILDSYNC_NETWORK', message, options);
    this.maybeDelivered = maybeDelivered;
  }
}

export class RedisUnavailableError extends BuildsyncError {
  /** `message` says what is wrong and what to do, in the words of src/redis/failures.ts (`describeRedisError`), the one describer of Redis failures. */
  constructor(url: string, options: { cause?: unknown; message: string }) {
    super('BUILDSYNC_REDIS_UNAVAILABLE', options.message, options);
  }
}

/**
 * A failure worth another attempt later (5xx on an estimate, a connection that never reached the
 * service): the job layer retries it with jittered backoff, a bounded number of times, and on the
 * last attempt reports `outcomeIfFinal`.
 */
export class RetryLaterError<O = unknown> extends BuildsyncError {
  readonly outcomeIfFinal: O;
  constructor(cause: Error, outcomeIfFinal: O) {
    super('BUILDSYNC_RETRY_LATER', cause.message, { cause });
    this.outcomeIfFinal = outcomeIfFinal;
  }
}

/**
 * Another live sender holds the record at this moment (the same import's earlier attempt whose
 * worker may have died, or a duplicated job): nothing was sent; try again once `untilMs` has
 * passed, when the holder has settled it or its lease has expired.
 */
export class RecordBusyError extends BuildsyncError {
  readonly untilMs: number;
  constructor(untilMs: number, holder: string) {
    super('BUILDSYNC_RECORD_BUSY', `being sent by ${holder}; waiting for it to settle`);
    this.untilMs = untilMs;
  }
}

export class InterruptedError extends BuildsyncError {
  constructor(message = 'interrupted') {
    super('BUILDSYNC_INTERRUPTED', message);
  }
}

/**
 * The export database (BUILDSYNC_EXPORT_DATABASE_URL) could not be reached or dropped the
 * connection: worth another attempt later. `where` is the URL with its password redacted.
 */
export class DatabaseUnavailableError extends BuildsyncError {
  constructor(where: string, cause: unknown, doing = 'connecting') {
    super('BUILDSYNC_DATABASE_UNAVAILABLE', `the export database ${where} failed while ${doing}: ${(cause as Error)?.message ?? String(cause)}. Check that PostgreSQL runs there and BUILDSYNC_EXPORT_DATABASE_URL (or BUILDSYNC_<NAME>_EXPORT_DATABASE_URL); the table was left as it was.`, { cause });
  }
}

/** The export database refused what the export asked of it (permissions, a table of another shape, a value of the wrong type). */
export class DatabaseError extends BuildsyncError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('BUILDSYNC_DATABASE', `${message}; the table was left as it was`, options);
  }
}

/**
 * An import whose plan and outcomes are not in Redis: never submitted, removed, or older than
 * their retention. Nothing of it can be sent or reported; running it again is safe (the ledger
 * remembers what was created).
 */
export class ImportUnknownError extends BuildsyncError {
  constructor(importId: string, detail = '') {
    super('BUILDSYNC_IMPORT_UNKNOWN', [
      `import ${importId} is unknown or expired: its plan and outcomes are not in Redis (never submitted, removed, or past their retention)${detail}; `,
      { kind: 'import-again' },
    ]);
  }
}

/**
 * An output that could not be written whole (`--out -` into a closed pipe or a full disk): the
 * reader has a cut copy, so the command fails (exit 2) and says how many bytes went out.
 */
export class OutputIncompleteError extends BuildsyncError {
  readonly bytesWritten: number;
  constructor(message: string, bytesWritten: number, options?: { cause?: unknown }) {
    super('BUILDSYNC_OUTPUT_INCOMPLETE', message, options);
    this.bytesWritten = bytesWritten;
  }
}

/**
 * Redis can no longer keep the ledger safely while an import sends (docs/operators.md,
 * "Durability"): its persistence or eviction policy changed, or the ledger's marker is gone or
 * another (Redis restarted empty, flushed, or replaced). Sending stops (exit 2); nothing more is sent.
 */
export class LedgerUnsafeError extends BuildsyncError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('BUILDSYNC_LEDGER_UNSAFE', message, options);
  }
}

/** Turns anything thrown into an Error (graphile-worker's coerceError). */
export function coerceError(err: unknown): Error {
  if (err instanceof Error) return err;
  return new Error(typeof err === 'string' ? err : JSON.stringify(err));
}

/** Removes the user:password part of a URL so it can be printed. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}

function stripQuery(path: string): string {
  const i = path.indexOf('?');
  return i === -1 ? path : path.slice(0, i);
}

function describeBody(body: unknown): string {
  if (body === undefined || body === null || body === '') return 'no detail';
  if (typeof body === 'string') return body.slice(0, 300);
  const m = (body as { Message?: unknown }).Message;
  if (typeof m === 'string') return m.slice(0, 300);
  return JSON.stringify(body).slice(0, 300);
}
