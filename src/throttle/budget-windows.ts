import type { Limits } from './parse-limits.ts';
import { WINDOW_LENGTH_MS, WINDOW_NAMES, type WindowName } from './windows.ts';

/**
 * What an answered send keeps of the margin, in real ms: the service's clock counts whole ms
 * (a send 999.6 ms after another may read as 1000 ms apart), so a slot opens this much after
 * the service's window has let the answered send go.
 */
const SETTLE_SLACK_MS = 2;

/**
 * The arithmetic of one account's budget windows, without Redis: each window's length under the
 * time scale, how long a send counts against it (its length plus the margin, see
 * `AccountThrottleOptions.margin`), and the per-window arguments every throttle script takes.
 */
export class BudgetWindows {
  /** For every window: its name, how long a send counts, its length, its limit (-1: none). */
  readonly args: (string | number)[];

  constructor(
    limits: Limits,
    readonly timeScale: number,
    private readonly margin: { share: number; maxMs: number },
  ) {
    if (!(timeScale > 0)) throw new RangeError(`timeScale must be above 0, got ${timeScale}`);
    if (!(margin.share >= 0 && margin.maxMs >= 0)) throw new RangeError(`margin must be at least 0, got ${JSON.stringify(margin)}`);
    // The budget counts a send for its window's length plus the margin; learning counts what
    // the service itself still counts, the window's length alone.
    this.args = WINDOW_NAMES.flatMap((w) => [w, this.countedMs(w), this.lengthMs(w), limits[w] ?? -1]);
  }

  lengthMs(window: WindowName): number {
    return WINDOW_LENGTH_MS[window] / this.timeScale;
  }

  /** How long a send counts against the window: its length plus the margin. */
  countedMs(window: WindowName): number {
    const len = this.lengthMs(window);
    return len + Math.min(this.margin.maxMs, len * this.margin.share);
  }

  /**
   * How far before its answer a send answered by the service goes in the log: the shortest
   * window's margin (the smallest of all) less SETTLE_SLACK_MS, so that it counts for each
   * window's length from the answer at least (see SETTLE_LUA).
   */
  answeredShiftMs(): number {
    return Math.max(0, this.countedMs('second') - this.lengthMs('second') - SETTLE_SLACK_MS);
  }
}
