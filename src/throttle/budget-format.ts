import { formatWait } from '../errors/index.ts';
import type { WindowName } from './windows.ts';

const ADJECTIVE: Record<WindowName, string> = {
  second: 'per-second',
  minute: 'per-minute',
  hour: 'hourly',
  day: 'daily',
  week: 'weekly',
  month: 'monthly',
};

/** "hourly" for hour: how a budget of that window is named in messages. */
export function windowAdjective(window: WindowName): string {
  return ADJECTIVE[window];
}

/** "hourly budget of 500 used". */
export function budgetUsedReason(window: WindowName, limit: number): string {
  return `${ADJECTIVE[window]} budget of ${limit} used`;
}

/** "waiting 41 min: hourly budget of 500 used". */
export function waitingText(waitMs: number, reason: string): string {
  return `waiting ${formatWait(waitMs)}: ${reason}`;
}

/** "paused by a 429 from the service; probing every 20 s". */
export function probingText(intervalMs: number): string {
  return `paused by a 429 from the service; probing every ${formatWait(intervalMs)}`;
}

/** "the service answered 429 (hourly limit)": a pause for the wait the service asked for. */
export function serviceLimitReason(window: WindowName | undefined): string {
  return `the service answered 429${window ? ` (${ADJECTIVE[window]} limit)` : ''}`;
}

/** "412 of 500 left this hour": the tightest window, for progress bars. */
export function remainingText(window: WindowName, remaining: number, limit: number): string {
  return `${remaining} of ${limit} left this ${window}`;
}

/** "3 h 5 min", or "under a second" for an estimate of 0. */
export function formatEta(ms: number): string {
  return ms <= 0 ? 'under a second' : formatWait(ms);
}
