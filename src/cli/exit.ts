import {
  AuthError,
  BuildsyncError,
  ConfigError,
  FileError,
  InterruptedError,
  RedisUnavailableError,
  RowError,
  UsageError,
  coerceError,
  type ErrorCode,
} from '../errors/index.ts';
import { redisGraceMs } from '../queue/connection.ts';
import { describeRedisError } from '../queue/redis-errors.ts';

/** Exit codes of CONTRACT.md §2. */
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
 * The exit code of a failure's stable code (CONTRACT.md §2), one table for a failure in this
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

/** What a command failure means for the user: the exit code and one line to print. */
export function describeFailure(err: unknown): { code: number; message: string } {
  const e = coerceError(err);
  // Redis refused a command (ACL) or the credentials: configuration, exit 2, no stack.
  if (e.name === 'ReplyError' || /^(NOPERM|WRONGPASS|NOAUTH|READONLY)\b/.test(e.message)) {
    const p = describeRedisError(e, process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    if (p.known) return { code: EXIT.usage, message: `buildsync: ${p.message} [BUILDSYNC_REDIS_UNAVAILABLE]` };
  }
  // ioredis gave up on a Redis that stayed away past the grace (connection.ts): exit 2, no stack.
  if (e.name === 'MaxRetriesPerRequestError' || /^Connection is closed\.?$|Stream isn't writeable/.test(e.message)) {
    return { code: EXIT.usage, message: `buildsync: lost Redis and it did not come back within ${Math.round(redisGraceMs() / 1000)} s; start it again (or check REDIS_URL) and run the command again [BUILDSYNC_REDIS_UNAVAILABLE]` };
  }
  if (e instanceof AuthError) return { code: EXIT.auth, message: `buildsync: ${e.message}` };
  if (e instanceof InterruptedError) return { code: EXIT.interrupted, message: `buildsync: ${e.message}` };
  if (
    e instanceof ConfigError ||
    e instanceof UsageError ||
    e instanceof FileError ||
    e instanceof RowError ||
    e instanceof RedisUnavailableError
  ) {
    return { code: EXIT.usage, message: `buildsync: ${e.message}` };
  }
  if (e instanceof BuildsyncError) return { code: exitCodeOf(e.code), message: `buildsync: ${e.message} [${e.code}]` };
  // Not a user's mistake: keep the stack, it is a bug report.
  return { code: EXIT.partial, message: `buildsync: unexpected error: ${e.stack ?? e.message}` };
}
