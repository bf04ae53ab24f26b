import { budgetUsedReason, probingText, serviceLimitReason, waitingText } from './budget-format.ts';
import type { BudgetWindows } from './budget-windows.ts';
import type { Limits } from './parse-limits.ts';
import { WINDOW_NAMES, isWindowName, type WindowName } from './windows.ts';

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

/**
 * The budget from the status script's reply (scripts.ts, STATUS_LUA): Redis's clock, the pause's
 * time to live and text, whether probing, the probe interval, the learned limits, then four
 * values per window (name, sends counted, the oldest one's time, the wait for room).
 */
export function readBudgetStatus(account: string, reply: unknown[], limits: Limits, windows: BudgetWindows, probeInitialMs: number): BudgetStatus {
  const now = Number(reply[0]);
  const pausePttl = Number(reply[1]);
  const pause = parsePause(String(reply[2]));
  const probing = reply[3] === '1';
  const probeInterval = Number(reply[4]) || probeInitialMs;
  const learned = readLearned(reply[5] as string[]);
  const rows = reply[6] as string[];

  const usage = {} as Record<WindowName, number>;
  const limited: WindowStatus[] = [];
  for (let i = 0; i < rows.length; i += 4) {
    const window = rows[i] as WindowName;
    const used = Number(rows[i + 1]);
    const oldest = rows[i + 2] === '' ? undefined : Number(rows[i + 2]);
    usage[window] = used;
    const configured = limits[window];
    const learnedHere = learned[window];
    const limit = Math.min(configured ?? Infinity, learnedHere?.limit ?? Infinity);
    if (limit === Infinity) continue;
    limited.push({
      window,
      lengthMs: windows.lengthMs(window),
      limit,
      configured,
      learned: learnedHere,
      used,
      remaining: Math.max(0, limit - used),
      resetInMs: oldest === undefined ? 0 : Math.max(0, Math.ceil(oldest + windows.countedMs(window) - now)),
      waitMs: Math.ceil(Number(rows[i + 3])),
    });
  }
  const tightest = limited.reduce<WindowStatus | undefined>(
    (best, w) => (!best || w.remaining < best.remaining || (w.remaining === best.remaining && w.waitMs > best.waitMs) ? w : best),
    undefined,
  );

  let waitMs = 0;
  let reason: string | undefined;
  if (pausePttl > 0) {
    waitMs = pausePttl;
    reason = pause?.kind === 'retry-after'
      ? waitingText(pausePttl, serviceLimitReason(pause.window))
      : probingText(pause?.intervalMs ?? probeInterval);
  } else {
    const binding = limited.reduce<WindowStatus | undefined>((b, w) => (w.waitMs > (b?.waitMs ?? 0) ? w : b), undefined);
    if (binding) {
      waitMs = binding.waitMs;
      reason = waitingText(binding.waitMs, budgetUsedReason(binding.window, binding.limit));
    } else if (probing) {
      reason = probingText(probeInterval);
    }
  }
  return {
    account,
    at: new Date(Math.floor(now)),
    windows: limited,
    tightest,
    usage,
    waitMs,
    pausedUntil: waitMs > 0 ? new Date(Math.floor(now + waitMs)) : undefined,
    reason,
    probing,
  };
}

/** The shared pause as the scripts write it: a 429's stated wait, or a probe interval. */
export interface PauseInfo {
  kind: 'retry-after' | 'probe';
  window: WindowName | undefined;
  intervalMs: number | undefined;
}

export function parsePause(text: string): PauseInfo | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as { kind?: unknown; window?: unknown; intervalMs?: unknown };
    return {
      kind: v.kind === 'retry-after' ? 'retry-after' : 'probe',
      window: typeof v.window === 'string' && isWindowName(v.window) ? v.window : undefined,
      intervalMs: typeof v.intervalMs === 'number' ? v.intervalMs : undefined,
    };
  } catch {
    return undefined;
  }
}

function readLearned(flat: string[]): Partial<Record<WindowName, { limit: number; at: Date }>> {
  const map = new Map<string, string>();
  for (let i = 0; i < flat.length; i += 2) map.set(flat[i]!, flat[i + 1]!);
  const out: Partial<Record<WindowName, { limit: number; at: Date }>> = {};
  for (const w of WINDOW_NAMES) {
    const limit = map.get(w);
    if (limit !== undefined) out[w] = { limit: Number(limit), at: new Date(Number(map.get(`${w}:at`) ?? 0)) };
  }
  return out;
}
