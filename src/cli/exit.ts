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

/** Exit codes of CONTRACT.md §2. */
export const EXIT = {
  ok: 0,
  /** done, but some rows or records were invalid or failed */
  partial: 1,
  /** usage or configuration error */
  usage: 2,
  /** the service refused the credentials */
  auth: 3,
  interrupted: 130,
} as const;

/** What a command failure means for the user: the exit code and one line to print. */
export function describeFailure(err: unknown): { code: number; message: string } {
  const e = coerceError(err);
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
  if (e instanceof BuildsyncError) return { code: EXIT.partial, message: `buildsync: ${e.message} [${e.code}]` };
  // Not a user's mistake: keep the stack, it is a bug report.
  return { code: EXIT.partial, message: `buildsync: unexpected error: ${e.stack ?? e.message}` };
}
