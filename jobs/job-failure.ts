import { UnrecoverableError } from 'bullmq';
import { BuildsyncError, coerceError, failureReason, retryDecision } from '../src/errors/index.ts';

/**
 * What a processor throws for a failure of its job, so that BullMQ keeps the stable code: the code
 * travels in the failed reason (`[BUILDSYNC_…] message`), and the CLI following the job exits as it
 * would have in-process (README, Commands) while a failure notice names it (src/queue/notify.ts).
 * Refused credentials, a 4xx, a bad option or a missing import would fail the same way again
 * (src/errors/retry-policy.ts): no further attempt. 5xx, network failures and 429s keep theirs.
 */
export function jobFailure(err: unknown): Error {
  if (retryDecision(err) === 'never') return new UnrecoverableError(failureReason(err));
  const e = coerceError(err);
  if (e instanceof BuildsyncError) e.message = failureReason(e);
  return e;
}
