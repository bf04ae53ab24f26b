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

/**
 * The exit code of a failure's stable code (README, "Exit codes"), one table for a failure in this
 * process and one that came back from a queued job (`parseFailureReason`).
 */
export function exitCodeOf(code: ErrorCode | undefined): number {
  switch (code) {
    case 'BUILDSYNC_INTERRUPTED':
      return EXIT.interrupted;
    case 'BUILDSYNC_CONFIG_INVALID':
    case 'BUILDSYNC_USAGE':
    case 'BUILDSYNC_FILE_UNREADABLE':
    case 'BUILDSYNC_ROW_INVALID':
    case 'BUILDSYNC_REDIS_UNAVAILABLE':
    // The export database is configuration, like Redis: unreachable or refusing, exit 2.
    case 'BUILDSYNC_DATABASE_UNAVAILABLE':
    case 'BUILDSYNC_DATABASE':
    // An import id that names nothing (a typo, or an import past its retention).
    case 'BUILDSYNC_IMPORT_UNKNOWN':
    // The base URL answers 404 where the service lists its projects: BUILDSYNC_BASE_URL is wrong.
    case 'BUILDSYNC_SERVICE_NOT_FOUND':
      return EXIT.usage;
    case 'BUILDSYNC_HTTP_401':
      return EXIT.auth;
    case 'BUILDSYNC_NETWORK':
    case 'BUILDSYNC_HTTP_5XX':
    case 'BUILDSYNC_RETRY_LATER':
      return EXIT.unreachable;
    default:
      return EXIT.partial;
  }
}

/** When several failures apply, the first of 130, 2, 3, 4, 1 wins (README, "Exit codes"). */
const PRECEDENCE: readonly number[] = [EXIT.interrupted, EXIT.usage, EXIT.auth, EXIT.unreachable, EXIT.partial];

/** The exit code of several failures' codes (`exitCodeOf` of each, by `PRECEDENCE`); 0 for none. */
export function exitCodeOfAll(codes: Iterable<ErrorCode>): number {
  const statuses = new Set([...codes].map(exitCodeOf));
  return PRECEDENCE.find((s) => statuses.has(s)) ?? EXIT.ok;
}
