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
} from '../errors/index.ts';
import { redisGraceMs } from '../queue/connection.ts';
import { describeRedisError } from '../queue/redis-errors.ts';
import { EXIT, exitCodeOf } from '../errors/exit-codes.ts';

export { EXIT, exitCodeOf };

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
