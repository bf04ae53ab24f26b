/**
 * The rate windows the service counts in. The real service publishes hour, day, week and month
 * limits per API key; second and minute exist for other deployments and for tests. A month is
 * taken as 30 days: whether the service counts calendar months is not known, and 30 days is the
 * shorter reading of "a month" for every month but February, so it errs on the safe side far
 * more often than not.
 */
export type WindowName = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month';

/** Shortest first: the order every loop over windows uses. */
export const WINDOW_NAMES: readonly WindowName[] = ['second', 'minute', 'hour', 'day', 'week', 'month'];

export const WINDOW_LENGTH_MS: Readonly<Record<WindowName, number>> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 30 * 86_400_000,
};

/**
 * The windows the real service publishes limits for. Usage in them is always recorded (the log
 * is kept for a month even when BUILDSYNC_LIMITS=none) so that a 429 has data to learn from.
 */
export const STANDARD_WINDOWS: readonly WindowName[] = ['hour', 'day', 'week', 'month'];

export function isWindowName(text: string): text is WindowName {
  return (WINDOW_NAMES as readonly string[]).includes(text);
}

/**
 * Reads the window a 429 names, in whatever words the service uses ("hour", "Hourly",
 * "per hour", "requests per day", "month limit"). Undefined when it names none of ours.
 */
export function normalizeWindowName(text: string | undefined): WindowName | undefined {
  if (!text) return undefined;
  const t = text.toLowerCase();
  if (/\bsec(ond)?s?\b|\bper[- ]?second\b/.test(t)) return 'second';
  if (/\bmin(ute)?s?\b|\bper[- ]?minute\b/.test(t)) return 'minute';
  if (/hour|\bhr\b/.test(t)) return 'hour';
  if (/day|daily/.test(t)) return 'day';
  if (/week/.test(t)) return 'week';
  if (/month/.test(t)) return 'month';
  return undefined;
}
