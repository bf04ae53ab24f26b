import type { ErrorCode } from './errors.ts';

// The one error-code -> exit-status table. Kept apart from cli/exit.ts (which reads Redis errors, and so loads ioredis's helpers): the program's
// start-up and every command's shell need these, and must stay light.

/** Exit codes of every command (README, "Exit codes"). */
export const EXIT = {
  ok: 0,
  /** done, but some rows or records were invalid or failed */
  partial: 1,
  /** usage or configuration error */
  usage: 2,
  /** the service refused the credentials */
  auth: 3,
  /** the service could not be reached or kept failing (network, 5xx after retries) */
  unreachable: 4,
  interrupted: 130,
} as const;

/** An exit status of the table. */
export type ExitStatus = (typeof EXIT)[keyof typeof EXIT];

/**
 * Every code's exit status (README, "Exit codes"). A `Record` over the whole union: a new code
 * does not compile until it has its row here.
 */
const EXIT_OF_CODE: Readonly<Record<ErrorCode, ExitStatus>> = {
  BUILDSYNC_INTERRUPTED: EXIT.interrupted,
  BUILDSYNC_CONFIG_INVALID: EXIT.usage,
  BUILDSYNC_USAGE: EXIT.usage,
  BUILDSYNC_FILE_UNREADABLE: EXIT.usage,
  BUILDSYNC_ROW_INVALID: EXIT.usage,
  BUILDSYNC_REDIS_UNAVAILABLE: EXIT.usage,
  // The export database is configuration, like Redis: unreachable or refusing, exit 2.
  BUILDSYNC_DATABASE_UNAVAILABLE: EXIT.usage,
  BUILDSYNC_DATABASE: EXIT.usage,
  // An import id that names nothing (a typo, or an import past its retention).
  BUILDSYNC_IMPORT_UNKNOWN: EXIT.usage,
  // An output cut short (a closed pipe, a full disk): the reader holds an incomplete copy.
  BUILDSYNC_OUTPUT_INCOMPLETE: EXIT.usage,
  // Redis stopped keeping the ledger safely mid-import (persistence, eviction, its marker): sending stopped.
  BUILDSYNC_LEDGER_UNSAFE: EXIT.usage,
  // The base URL answers 404 where the service lists its projects: BUILDSYNC_BASE_URL is wrong.
  BUILDSYNC_SERVICE_NOT_FOUND: EXIT.usage,
  BUILDSYNC_HTTP_401: EXIT.auth,
  BUILDSYNC_NETWORK: EXIT.unreachable,
  BUILDSYNC_HTTP_5XX: EXIT.unreachable,
  BUILDSYNC_RETRY_LATER: EXIT.unreachable,
  // What the service refused of one record, or could not be read: done, but not all of it.
  BUILDSYNC_RECORD_INVALID: EXIT.partial,
  BUILDSYNC_HTTP_400: EXIT.partial,
  BUILDSYNC_HTTP_404: EXIT.partial,
  BUILDSYNC_HTTP_429: EXIT.partial,
  BUILDSYNC_THROTTLED: EXIT.partial,
  BUILDSYNC_HTTP_OTHER: EXIT.partial,
  BUILDSYNC_RESPONSE_INVALID: EXIT.partial,
  BUILDSYNC_RECORD_BUSY: EXIT.partial,
  BUILDSYNC_UNEXPECTED: EXIT.partial,
};

/**
 * The exit code of a failure's stable code (README, "Exit codes"), one table for a failure in this
 * process and one that came back from a queued job (`parseFailureReason`). No code (a bug), or one
 * this version does not know (from a newer worker), exits 1.
 */
export function exitCodeOf(code: ErrorCode | undefined): ExitStatus {
  return code !== undefined && Object.hasOwn(EXIT_OF_CODE, code) ? EXIT_OF_CODE[code] : EXIT.partial;
}

/** When several statuses apply at once, the first of these wins (README, "Exit codes"). */
const PRECEDENCE: readonly ExitStatus[] = [EXIT.interrupted, EXIT.usage, EXIT.auth, EXIT.unreachable, EXIT.partial];

/**
 * The exit status of a run to which several of `statuses` apply (`false` for one that does not):
 * the first of 130, 2, 3, 4, 1 among them, else 0.
 */
export function firstExit(statuses: ReadonlyArray<number | false>): ExitStatus {
  for (const status of PRECEDENCE) if (statuses.includes(status)) return status;
  return EXIT.ok;
}

/** The exit code of several failures' codes (`exitCodeOf` of each, by the same precedence); 0 for none. */
export function exitCodeOfAll(codes: Iterable<ErrorCode>): ExitStatus {
  return firstExit([...codes].map(exitCodeOf));
}
