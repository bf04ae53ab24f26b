import { BuildsyncError, coerceError, type ErrorCode } from '../errors/index.ts';
import { redisFailureOf } from '../redis/failures.ts';
import { EXIT, exitCodeOf } from '../errors/exit-codes.ts';

export { EXIT, exitCodeOf };

/**
 * Codes whose message is printed without `[CODE]`: the user's own set-up or an interruption, where
 * the message already says what to do and the code adds nothing a script needs.
 */
const PLAIN_MESSAGE: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'BUILDSYNC_HTTP_401',
  'BUILDSYNC_INTERRUPTED',
  'BUILDSYNC_CONFIG_INVALID',
  'BUILDSYNC_USAGE',
  'BUILDSYNC_FILE_UNREADABLE',
  'BUILDSYNC_ROW_INVALID',
  'BUILDSYNC_REDIS_UNAVAILABLE',
]);

/** A Redis failure that ioredis reports in its own classes, as the code it means for the user. */
const REDIS: ErrorCode = 'BUILDSYNC_REDIS_UNAVAILABLE';

/**
 * What a command failure means for the user: the exit code and one line to print. The status is
 * the table's (`exitCodeOf`, src/errors/exit-codes.ts) for every failure that carries a code.
 */
export function describeFailure(err: unknown): { code: number; message: string } {
  const e = coerceError(err);
  // Redis refused a command or the credentials, or stayed away past the grace: set-up, no stack.
  const redis = redisFailureOf(e);
  if (redis) return { code: exitCodeOf(REDIS), message: `buildsync: ${redis.message} [${REDIS}]` };
  if (e instanceof BuildsyncError) {
    return { code: exitCodeOf(e.code), message: PLAIN_MESSAGE.has(e.code) ? `buildsync: ${e.message}` : `buildsync: ${e.message} [${e.code}]` };
  }
  // Not a user's mistake: keep the stack, it is a bug report.
  return { code: EXIT.partial, message: `buildsync: unexpected error: ${e.stack ?? e.message}` };
}
