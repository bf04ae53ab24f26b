import type { Limits } from './parse-limits.ts';
import { WINDOW_LENGTH_MS, WINDOW_NAMES, type WindowName } from './windows.ts';

/** Sends already made: one timestamp (ms) per send, or groups of sends made at one time. */
export type Usage = readonly number[] | readonly { at: number; count: number }[];

export interface EstimateOptions {
  /** Divides every window's length, as AccountThrottle's `timeScale` does. @defaultValue 1 */
  timeScale?: number;
  /** How long a send counts against each window (AccountThrottle adds its margin); overrides the length from timeScale. */
  countedMs?: Partial<Record<WindowName, number>>;
}

/**
 * How long until `n` more requests have been sent under `limits`, given the sends already made,
 * counting every window at once: each request goes as soon as every window has room (the way
 * `AccountThrottle.acquire` lets them through), so 12,000 requests under hour=500,day=10000 send
 * 500 an hour for 20 hours, wait for the rolling day window to free the first hour's 500 at
 * 24 h, and finish in the 28th hour (27 h after the start plus the time the last 500 take).
 *
 * Greedy simulation in batches: at each step it sends as many as every window allows at once,
 * then jumps to the moment the fullest window frees room. Sends that free room together stay
 * together, so the work grows with the number of distinct send times, not with n (a million
 * requests at hour=500 are 2,000 steps). Time spent sending itself is not modelled: it is
 * seconds per burst against the hours the windows impose.
 */
export function estimateDurationMs(limits: Limits, usage: Usage, n: number, now: number, options: EstimateOptions = {}): number {
  if (n <= 0) return 0;
  const scale = options.timeScale ?? 1;
  const windows = WINDOW_NAMES.flatMap((name) => {
    const limit = limits[name];
    return limit !== undefined && Number.isFinite(limit) ? [{ len: options.countedMs?.[name] ?? WINDOW_LENGTH_MS[name] / scale, limit: Math.max(1, Math.floor(limit)), start: 0, count: 0 }] : [];
  });
  if (windows.length === 0) return 0;

  const times: number[] = [];
  const counts: number[] = [];
  for (const u of toBatches(usage)) {
    if (times.length && times[times.length - 1] === u.at) counts[counts.length - 1]! += u.count;
    else {
      times.push(u.at);
      counts.push(u.count);
    }
  }
  for (const w of windows) w.count = counts.reduce((a, b) => a + b, 0);

  let t = now;
  let left = n;
  for (;;) {
    let room = Infinity;
    for (const w of windows) {
      // Sends leave a window once they are `len` old; the window is (t - len, t].
      while (w.start < times.length && times[w.start]! <= t - w.len) w.count -= counts[w.start++]!;
      room = Math.min(room, w.limit - w.count);
    }
    if (room > 0) {
      const k = Math.min(room, left);
      if (times.length && times[times.length - 1] === t) counts[counts.length - 1]! += k;
      else {
        times.push(t);
        counts.push(k);
      }
      for (const w of windows) w.count += k;
      left -= k;
      if (left === 0) return t - now;
    }
    // Jump to when every full window has room for one more.
    let next = t;
    for (const w of windows) {
      if (w.count < w.limit) continue;
      let need = w.count - w.limit + 1;
      let i = w.start;
      while (need > 0) need -= counts[i++]!;
      next = Math.max(next, times[i - 1]! + w.len);
    }
    t = next;
  }
}

function toBatches(usage: Usage): { at: number; count: number }[] {
  const batches = (usage as readonly (number | { at: number; count: number })[]).map((u) => (typeof u === 'number' ? { at: u, count: 1 } : u));
  return batches.filter((b) => b.count > 0).sort((a, b) => a.at - b.at);
}

/** One limited window in `AccountThrottle.estimateWindows`. */
export interface WindowEstimate {
  window: WindowName;
  /** The effective limit (configured, or lower when a 429 taught it). */
  limit: number;
  /** Requests the window has left now. */
  remaining: number;
  /** Requests to send. */
  needed: number;
  /** How long `needed` requests take under this window alone (what was already sent counted). */
  etaMs: number;
}

/** How long `n` requests take under the account's budget, and per window. */
export interface BudgetEstimate {
  /** Every window at once, with any pause: what `estimateMs` returns. */
  etaMs: number;
  /** Why nothing may go now, when nothing may ('waiting 41 min: hourly budget of 500 used'). */
  reason: string | undefined;
  windows: WindowEstimate[];
}
