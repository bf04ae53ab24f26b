import type { AccountThrottle, BudgetStatus } from '../throttle/index.ts';
import { error, ok, redisReplyText, warning, type CheckFinding } from './finding.ts';

/** The budget left in every window (as `jobs show` shows it); a spent window is a warning. */
export async function checkBudget(throttle: AccountThrottle, limitsText: string): Promise<CheckFinding> {
  let status: BudgetStatus;
  try {
    status = await throttle.status();
  } catch (err) {
    return error('budget', 'BUILDSYNC_REDIS_UNAVAILABLE', `cannot read the budget of account ${throttle.account} from Redis: ${redisReplyText(err)}`);
  }
  if (status.windows.length === 0) {
    return ok('budget', `account ${status.account}: no budget configured (limits: ${limitsText}): only the service's 429s pace the requests`);
  }
  const parts = status.windows.map(
    (w) =>
      `${w.window} ${w.remaining}/${w.limit} left${w.learned ? ` (learned from a 429 at ${w.learned.at.toISOString()}; configured ${w.configured ?? 'none'})` : ''}`,
  );
  const line = `account ${status.account}: ${parts.join(', ')}`;
  if (status.waitMs > 0) {
    const at = status.pausedUntil ?? new Date(status.at.getTime() + status.waitMs);
    return warning('budget', `${line}; ${status.reason ?? 'paused'} (until ${at.toISOString()})`);
  }
  return ok('budget', line);
}
