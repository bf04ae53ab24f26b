import type { WindowName } from './windows.ts';

/** One limited window of an account's budget, as status() reads it from Redis. */
export interface WindowStatus {
  window: WindowName;
  /** The window's length (after timeScale). */
  lengthMs: number;
  /** The effective limit: the lower of the configured and the learned one. */
  limit: number;
  configured: number | undefined;
  learned: { limit: number; at: Date } | undefined;
  /** Sends counted in the window now. */
  used: number;
  /** max(0, limit - used). */
  remaining: number;
  /** When the oldest counted send leaves the window; 0 when nothing is counted. */
  resetInMs: number;
  /** How long until the window has room for one more send; 0 when it has room. */
  waitMs: number;
}

export interface BudgetStatus {
  account: string;
  /** Redis's clock when the status was read. */
  at: Date;
  /** The limited windows (configured or learned), shortest first. */
  windows: WindowStatus[];
  /** The window with the fewest requests left (ties: the one that waits longest). */
  tightest: WindowStatus | undefined;
  /** Sends counted in every window, limited or not (what learning works from). */
  usage: Record<WindowName, number>;
  /** How long until the next request may go; 0 when one may go now. */
  waitMs: number;
  /** Set while no request may go: until when. */
  pausedUntil: Date | undefined;
  /** Why nothing goes ('waiting 41 min: hourly budget of 500 used', 'paused by a 429 from the service; probing every 20 s'). */
  reason: string | undefined;
  /** 429s without a stated wait are being probed out, one request at a time. */
  probing: boolean;
}
