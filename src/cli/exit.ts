import { BuildsyncError, coerceError, type ErrorCode } from '../errors/index.ts';
import { redisGraceMs } from '../queue/connection.ts';
import { describeRedisError } from '../queue/redis-errors.ts';
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
  // Redis refused a command (ACL) or the credentials: configuration, no stack.
  if (e.name === 'ReplyError' || /^(NOPERM|WRONGPASS|NOAUTH|READONLY)\b/.test(e.message)) {
    const p = describeRedisError(e, process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    if (p.known) return { code: exitCodeOf(REDIS), message: `buildsync: ${p.message} [${REDIS}]` };
  }
  // ioredis gave up on a Redis that stayed away past the grace (connection.ts): no stack.
  if (e.name === 'MaxRetriesPerRequestError' || /^Connection is closed\.?$|Stream isn't writeable/.test(e.message)) {
    return { code: exitCodeOf(REDIS), message: `buildsync: lost Redis and it did not come back within ${Math.round(redisGraceMs() / 1000)} s; start it again (or check REDIS_URL) and run the command again [${REDIS}]` };
  }
  if (e instanceof BuildsyncError) {
    return { code: exitCodeOf(e.code), message: PLAIN_MESSAGE.has(e.code) ? `buildsync: ${e.message}` : `buildsync: ${e.message} [${e.code}]` };
  }
  // Not a user's mistake: keep the stack, it is a bug report.
  return { code: EXIT.partial, message: `buildsync: unexpected error: ${e.stack ?? e.message}` };
}
