import { randomUUID } from 'node:crypto';
import { throttleKeyBase, type RedisConnection } from '../redis/layout.ts';
import { ThrottledError, type RateLimitError } from '../errors/index.ts';
import { parsePause, readBudgetStatus, type BudgetStatus, type WindowStatus } from './budget-status.ts';
import { budgetUsedReason, formatEta, probingText, serviceLimitReason } from './budget-format.ts';
import { BudgetWindows } from './budget-windows.ts';
import { estimateDurationMs, type BudgetEstimate, type WindowEstimate } from './estimate.ts';
import type { InlineWaitPool } from './inline-wait-pool.ts';
import type { Limits } from './parse-limits.ts';
import type { RequestGate } from './request-gate.ts';
import { throttleCommands, type ThrottleCommands } from './scripts.ts';
import { statedLimit } from './stated-limit.ts';
import { STANDARD_WINDOWS, WINDOW_NAMES, isWindowName, normalizeWindowName, type WindowName } from './windows.ts';

export interface AccountThrottleOptions {
  /** The Redis every worker of every machine shares; the caller owns (and closes) the connection. */
  redis: RedisConnection;
  /** The account whose budget this is (the `--account` name, never a secret). */
  account: string;
  /** The configured budget (parseLimits of BUILDSYNC_LIMITS); a 429 may teach lower ones. */
  limits: Limits;
  /** Key prefix. @defaultValue 'buildsync' */
  prefix?: string;
  /** Divides every window length and probe interval: a test knob (3600 makes an hour last 1 s). @defaultValue 1 */
  timeScale?: number;
  /** Longer waits throw ThrottledError (so a job is delayed instead of holding a worker slot). @defaultValue 2000 */
  maxInlineWaitMs?: number;
  /**
   * At most this many callers of this instance wait inline for the account's budget at once; the
   * next one gets ThrottledError (its job is delayed) however short the wait. Many accounts share
   * one queue and a worker's job slots: without a cap, the jobs of one account with a small budget
   * would fill every slot with waits while other accounts' jobs, which could be sent now, queue
   * behind them. `'auto'`: a quarter of the smallest configured limit, at least 1 (no cap
   * without limits): what a worker serving many accounts uses. (An eighth left the many-accounts
   * bench's accounts without a waiter for some of their slots: 0.947-0.981 of the budgets in
   * five runs, against 0.972-0.99 with a quarter and the larger pool of jobs/context.ts.)
   * @defaultValue no cap
   */
  maxInlineWaiters?: number | 'auto';
  /**
   * The inline waits of the whole worker process, shared by the throttles of all its accounts
   * (see InlineWaitPool): a wait that finds it full is sent away however short. @defaultValue no pool
   */
  inlineWaits?: InlineWaitPool;
  /** Probe intervals after a 429 that states no wait, doubling from initialMs up to maxMs. @defaultValue 5 s .. 5 min */
  probe?: { initialMs: number; maxMs: number };
  /**
   * Each send counts against a window for the window's length plus this margin (a share of the
   * length, capped), in real ms. The log holds the time a send was granted; the service counts it
   * when it arrives, a little later and by a varying amount (connection set-up, event-loop stalls).
   * Two sends granted exactly one window apart can arrive less than a window apart; the margin
   * absorbs that, so the service never sees more than the limit in any of its windows. Once the
   * service has answered a send, it has counted it: from then on the send counts from the answer
   * without the margin (`settle`), so the margin costs only while a send is on its way.
   * @defaultValue { share: 0.05, maxMs: 1000 }
   */
  margin?: { share: number; maxMs: number };
}

/** Jobs sent away by one instance come back this share of a slot apart (see `staggered`). */
const STAGGER_SHARE = 0.9;

export const THROTTLE_DEFAULTS = {
  prefix: 'buildsync',
  timeScale: 1,
  maxInlineWaitMs: 2_000,
  probe: { initialMs: 5_000, maxMs: 300_000 },
  /** 5% of a window, at most 1 s: 50 ms on a one-second window, 1 s on an hour (0.03%). */
  margin: { share: 0.05, maxMs: 1_000 },
  /** How long one probe may stay unanswered before another worker may probe. */
  probeLockMaxMs: 15_000,
  /** The log never holds fewer sends than this (it holds at least a month's worth of the largest limit). */
  logCap: 1_000_000,
} as const;

/**
 * One account's rate budget, shared through Redis by every worker on every machine (see
 * scripts.ts for the data and why it is a sliding log). Implements the API client's RequestGate:
 * `acquire` before each request, `onRateLimited` on a 429, `onSuccess` on any other answer.
 */
export class AccountThrottle implements RequestGate {
  readonly account: string;
  readonly limits: Limits;
  private readonly redis: RedisConnection;
  private readonly cmds: ThrottleCommands;
  private readonly keys: { log: string; pause: string; probe: string; probelock: string; learned: string; episode: string; refused: string };
  /** Window lengths, margins and the scripts' window arguments (budget-windows.ts). */
  private readonly windows: BudgetWindows;
  private readonly maxInlineWaitMs: number;
  private readonly maxInlineWaiters: number;
  private inlineWaiters = 0;
  private readonly inlineWaits: InlineWaitPool | undefined;
  /** At most this many jobs go past `admit` at once (the smallest limit plus the inline waits). */
  readonly admitCap: number;
  private admitted = 0;
  /** Jobs waiting in `admit`, woken when a job is done. */
  private readonly admitWaiters: (() => void)[] = [];
  /** When the last job this instance sent away (ThrottledError) was told to come back. */
  private delayedUntil = 0;
  /** Why the last job was sent away, to send the next ones away without asking Redis again. */
  private lastSentAway: { kind: string; limit: number; window: WindowName | undefined; reason: string } | undefined;
  private readonly probeInitialMs: number;
  private readonly probeMaxMs: number;
  private readonly id = randomUUID().slice(0, 12);
  private seq = 0;
  /** Tickets granted up to this sequence number and not yet sent are stale: a 429 came after them. */
  private staleUpTo = 0;
  /** Set while this instance holds the probe: only then does onSuccess touch Redis. */
  private probeToken: string | undefined;

  constructor(options: AccountThrottleOptions) {
    this.redis = options.redis;
    this.cmds = throttleCommands(options.redis);
    this.account = options.account;
    this.limits = { ...options.limits };
    this.windows = new BudgetWindows(this.limits, options.timeScale ?? THROTTLE_DEFAULTS.timeScale, options.margin ?? THROTTLE_DEFAULTS.margin);
    this.maxInlineWaitMs = options.maxInlineWaitMs ?? THROTTLE_DEFAULTS.maxInlineWaitMs;
    const smallest = Math.min(...Object.values(this.limits).filter((n): n is number => typeof n === 'number' && n > 0));
    this.maxInlineWaiters =
      options.maxInlineWaiters === 'auto' ? (Number.isFinite(smallest) ? Math.max(1, Math.ceil(smallest / 4)) : Infinity) : (options.maxInlineWaiters ?? Infinity);
    this.inlineWaits = options.inlineWaits;
    this.admitCap = Number.isFinite(smallest) && Number.isFinite(this.maxInlineWaiters) ? smallest + this.maxInlineWaiters : Infinity;
    const probe = options.probe ?? THROTTLE_DEFAULTS.probe;
    this.probeInitialMs = Math.max(1, probe.initialMs / this.windows.timeScale);
    this.probeMaxMs = Math.max(this.probeInitialMs, probe.maxMs / this.windows.timeScale);
    // One hash tag per account on a cluster (src/redis/layout.ts): every script below touches only these keys, in one slot.
    const base = throttleKeyBase(options.redis, options.prefix ?? THROTTLE_DEFAULTS.prefix, options.account);
    this.keys = {
      log: `${base}:log`,
      pause: `${base}:pause`,
      probe: `${base}:probe`,
      probelock: `${base}:probelock`,
      learned: `${base}:learned`,
      episode: `${base}:episode`,
      refused: `${base}:refused`,
    };
  }

  /**
   * Waits until every window has room, records the send and resolves. A wait longer than
   * maxInlineWaitMs throws ThrottledError instead (nothing is recorded). Rejects with the
   * signal's reason when it aborts.
   */
  async acquire(signal?: AbortSignal): Promise<string> {
    for (;;) {
      signal?.throwIfAborted();
      const away = this.sendAwayAtOnce();
      if (away) throw away;
      const token = `${this.id}:${++this.seq}`;
      const reply = await this.cmds.bsThrottleAcquire(
        ...this.keyList('log', 'pause', 'probe', 'probelock', 'learned', 'refused'),
        token, this.windows.countedMs('month'), this.logCap(), THROTTLE_DEFAULTS.probeLockMaxMs, ...this.windows.args,
      );
      const waitMs = Number(reply[0]);
      const kind = String(reply[1]);
      if (waitMs <= 0) {
        if (kind === 'probe') this.probeToken = token;
        return String(reply[3]);
      }
      if (waitMs > this.maxInlineWaitMs || this.inlineWaiters >= this.maxInlineWaiters || !(this.inlineWaits?.tryTake() ?? true)) {
        const { window, reason } = await this.explainWait(kind, Number(reply[2]));
        this.lastSentAway = { kind, limit: Number(reply[2]), window, reason };
        throw new ThrottledError(this.account, this.staggered(waitMs, kind, Number(reply[2])), window, reason);
      }
      // A little jitter so that workers woken by the same freed slot do not all race for it at
      // once; kept small (at most 20 ms), because every ms of it is added to each window's turn
      // and a sliding log carries the delay into every later window.
      this.inlineWaiters++;
      try {
        await sleep(waitMs + Math.random() * Math.min(20, 1 + waitMs / 50), signal);
      } finally {
        this.inlineWaiters--;
        this.inlineWaits?.release();
      }
    }
  }

  /**
   * What this instance knows without asking Redis: the account's inline places are taken and
   * jobs it sent away earlier are still due back after now, so a job now would only join them.
   * Then the ThrottledError to send it away with (it takes the next staggered slot, as `acquire`
   * would); otherwise undefined, and only `acquire` can tell.
   *
   * `acquire` checks this first; a job processor checks it before it reads its records and claims
   * them in the ledger, so that a job over its account's budget costs one step (put back in the
   * delayed set) and the worker reaches the other accounts' jobs behind it sooner.
   */
  sendAwayAtOnce(): ThrottledError | undefined {
    if (!this.lastSentAway || !(this.delayedUntil > Date.now())) return undefined;
    // Not when only the worker's pool is full: the account's budget may have room now, and its
    // jobs sent away earlier keep coming back on their staggered times (a steady run of 20
    // accounts measured about 2% slower, in two runs, when jobs were sent away for a full pool alone).
    if (this.inlineWaiters < this.maxInlineWaiters) return undefined;
    const { kind, limit, window, reason } = this.lastSentAway;
    return new ThrottledError(this.account, this.staggered(0, kind, limit), window, reason);
  }

  /**
   * For a job processor, before it reads a job's records and claims them in the ledger: either
   * `{ away }`, the ThrottledError to send the job away with at once (see `sendAwayAtOnce`), or
   * `{ done }`, and the job goes on; it calls `done` once its sends are over (sent, failed or sent
   * away), in a `finally`.
   *
   * At most `admitCap` jobs of the account go on at once in this instance: the smallest limit
   * plus the inline waits, more than it could send or wait for in one window. A job beyond them
   * waits here (no Redis, no ledger) until one of them is done, and by then this instance usually
   * knows the account is over its budget, so it is sent away in one step. Without this, a worker
   * fetching a run of one account's jobs (they are queued together) read and claimed every one
   * of them, and asked the budget for each, before the first answer said they were all too early:
   * the Redis round trips that kept the other accounts' jobs, further down the queue, from being
   * reached (issue 16). No cap without limits or without a cap on inline waits. The cap counts
   * jobs whose request is on its way too: a worker alone sends at most `admitCap` per answer's
   * time, ample unless the service takes about a window to answer.
   */
  async admit(signal?: AbortSignal): Promise<{ away: ThrottledError; done?: undefined } | { away?: undefined; done: () => void }> {
    for (;;) {
      signal?.throwIfAborted();
      const away = this.sendAwayAtOnce();
      if (away) return { away };
      if (this.admitted < this.admitCap) {
        this.admitted++;
        let open = true;
        return {
          done: () => {
            if (!open) return;
            open = false;
            this.admitted--;
            // All of them look again (in the order they came): one takes the place, and the
            // others may now be sent away at once; the rest wait on.
            for (const wake of this.admitWaiters.splice(0)) wake();
          },
        };
      }
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const i = this.admitWaiters.indexOf(wake);
          if (i >= 0) this.admitWaiters.splice(i, 1);
          reject(signal!.reason);
        };
        const wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        this.admitWaiters.push(wake);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
  }

  /** Jobs admitted now (see `admit`). */
  get admittedJobs(): number {
    return this.admitted;
  }

  /**
   * The attempt of a send has ended: count it from now (see SETTLE_LUA), without the margin when
   * the service answered (`answered`: it has counted the send by now). Fire and forget: until it
   * lands the send still counts from its grant, margin included.
   */
  settle(ticket: unknown, answered = false): void {
    if (typeof ticket !== 'string') return;
    this.cmds.bsThrottleSettle(this.keys.log, ticket, answered ? this.windows.answeredShiftMs() : 0).catch(() => {
      // The send stays counted from its grant: at worst the next window opens a little early.
    });
  }

  /** False for a ticket granted before this instance saw a 429 (see RequestGate.stillValid). */
  stillValid(ticket: unknown): boolean {
    if (typeof ticket !== 'string') return true;
    const seq = Number(ticket.slice(ticket.lastIndexOf(':') + 1));
    return !(seq <= this.staleUpTo);
  }

  /**
   * The send of `ticket` never happened: remove it from the log, and from what a burst of 429s
   * took for sent (fire and forget).
   */
  withdraw(ticket: unknown): void {
    if (typeof ticket !== 'string') return;
    this.cmds.bsThrottleWithdraw(...this.keyList('log', 'learned', 'episode'), ticket, ...this.windows.args).catch(() => {
      // It stays counted: the budget is only the more careful for it; a limit a burst learned may
      // stay one too high, until the next 429 lowers it.
    });
  }

  /**
   * A 429: pauses every worker of this account (the script sets one shared pause) until the wait
   * the service stated, or for the current probe interval when it stated none; then learns the
   * account's real budget: the limit the 429's message names when it names one, otherwise what
   * the service accepted. Resolves once the pause is in Redis.
   *
   * `ticket` is the refused attempt's, from `acquire`: it tells a 429 of a send made before the
   * burst's first 429 (it says nothing new, and the service did not count that send) from one
   * made after it, whatever the timing (see RATE_LIMITED_LUA). Without it, a 429 is taken as
   * part of the burst while the burst's pause lasts.
   */
  async onRateLimited(err: RateLimitError, ticket?: unknown): Promise<void> {
    this.staleUpTo = this.seq;
    const retryAfterMs = err.retryAfterMs !== undefined && Number.isFinite(err.retryAfterMs) && err.retryAfterMs >= 0 ? err.retryAfterMs : -1;
    const window = normalizeWindowName(err.window);
    const candidates = WINDOW_NAMES.filter((w) => this.limits[w] !== undefined || STANDARD_WINDOWS.includes(w));
    const stated = statedLimit(err.serviceMessage);
    this.probeToken = undefined;
    await this.cmds.bsThrottleRateLimited(
      ...this.keyList('log', 'pause', 'probe', 'probelock', 'learned', 'episode', 'refused'),
      retryAfterMs, this.probeInitialMs, this.probeMaxMs, this.stateTtlMs(), window ?? stated?.window ?? '', candidates.join(','),
      stated?.window ?? '', stated?.limit ?? -1, typeof ticket === 'string' ? ticket : '', this.windows.countedMs('month'), ...this.windows.args,
    );
  }

  /**
   * Any answer but a 429. Touches Redis only when this instance's request was the probe: its
   * success ends probe mode and resets the interval for every worker.
   */
  onSuccess(): void {
    const token = this.probeToken;
    if (token === undefined) return;
    this.probeToken = undefined;
    // If Redis cannot be reached now, the probe lock expires and the next probe's success clears it.
    this.cmds.bsThrottleProbeSucceeded(...this.keyList('probe', 'probelock'), token).catch(() => undefined);
  }

  /**
   * One line on the budget for a progress display (the CLI's bar, the import page): any wait and
   * why, the requests left in the tightest window, and the ETA of `left` more requests under every
   * window, e.g. "412 requests left this hour | ETA 3 min".
   */
  async progressText(left: number): Promise<string> {
    const b = await this.status();
    const eta = left > 0 ? formatEta(await this.estimateMs(left)) : '0 s';
    return `${b.reason ? `${b.reason} | ` : ''}${b.tightest ? `${b.tightest.remaining} requests left this ${b.tightest.window}` : 'no budget limit'} | ETA ${eta}`;
  }

  /** The budget as every worker sees it now: per window, the pause and why. */
  async status(): Promise<BudgetStatus> {
    const reply = await this.cmds.bsThrottleStatus(...this.keyList('log', 'pause', 'probe', 'learned'), ...this.windows.args);
    return readBudgetStatus(this.account, reply, this.limits, this.windows, this.probeInitialMs);
  }

  /** How long until n more requests are sent, counting every window, the pause and what was already sent. */
  async estimateMs(n: number): Promise<number> {
    if (n <= 0) return 0;
    return (await this.estimateWindows(n)).etaMs;
  }

  /**
   * `estimateMs` with its breakdown, for a display that shows every window (the import page's
   * budget before sending): per limited window, the requests it has left now and how long `n`
   * requests would take under that window alone; `etaMs` counts every window at once, with any
   * pause. One estimator (`estimateDurationMs`) for all of them.
   */
  async estimateWindows(n: number): Promise<BudgetEstimate> {
    const status = await this.status();
    const needed = Math.max(0, n);
    const rows = (etaOf: (w: WindowStatus) => number): WindowEstimate[] =>
      status.windows.map((w) => ({ window: w.window, limit: w.limit, remaining: w.remaining, needed, etaMs: etaOf(w) }));
    if (needed === 0) return { etaMs: 0, reason: status.reason, windows: rows(() => 0) };
    if (status.windows.length === 0) return { etaMs: status.waitMs, reason: status.reason, windows: [] };
    const limits: Limits = {};
    for (const w of status.windows) limits[w.window] = w.limit;
    const lengths = status.windows.map((w) => this.windows.countedMs(w.window));
    const longest = Math.max(...lengths);
    // Buckets keep the reply small (a month's log can hold 200,000 sends); rounding is up, so the
    // estimate errs long by at most one bucket.
    const bucketMs = Math.max(1, Math.min(...lengths) / 500, longest / 20_000);
    const reply = await this.cmds.bsThrottleUsage(this.keys.log, longest, bucketMs);
    const now = Number(reply[0]);
    const flat = reply[1] as string[];
    const usage: { at: number; count: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) usage.push({ at: Number(flat[i]), count: Number(flat[i + 1]) });
    const options = { timeScale: this.windows.timeScale, countedMs: Object.fromEntries(WINDOW_NAMES.map((w) => [w, this.windows.countedMs(w)])) };
    return {
      etaMs: status.waitMs + estimateDurationMs(limits, usage, needed, now + status.waitMs, options),
      reason: status.reason,
      windows: rows((w) => estimateDurationMs({ [w.window]: w.limit }, usage, needed, now, options)),
    };
  }

  /** Forgets what 429s taught: the configured budget applies again. */
  async resetLearned(): Promise<void> {
    await this.redis.del(this.keys.learned, this.keys.episode);
  }

  /** Removes every key of this account's budget: usage, pause, probing and learned limits. */
  async clear(): Promise<void> {
    this.probeToken = undefined;
    await this.redis.del(...Object.values(this.keys));
  }

  private logCap(): number {
    return Math.max(THROTTLE_DEFAULTS.logCap, ...Object.values(this.limits).map((n) => n ?? 0));
  }

  /** Probe and burst state outlive any pause, so that a new 429 after a long quiet starts afresh. */
  private stateTtlMs(): number {
    return Math.ceil(this.probeMaxMs * 10);
  }

  private keyList(...names: (keyof AccountThrottle['keys'])[]): string[] {
    return names.map((n) => this.keys[n]);
  }

  /**
   * The wait to tell a job sent away: the budget's wait, and for each job sent away before it and
   * not yet back, one more slot of the binding window (its length over its limit). Without that,
   * every job of the account sent away in the same second would come back at the same moment,
   * all but a few to be sent away again: a stampede that costs each of them Redis round trips for
   * nothing and, with many accounts, the job slots other accounts could use. Per instance (one
   * per worker process), so several workers together call jobs back faster than the budget
   * allows, which keeps it used; and a slot is STAGGER_SHARE of the window's length (not of its
   * length with the margin) over its limit, so that one worker alone calls them back a little
   * faster than the budget too (at a slot of the length with the margin, one worker serving an
   * account of second=50 called back 47.6 a second). Only with a cap on inline places (a
   * worker's throttle).
   */
  private staggered(waitMs: number, kind: string, limit: number): number {
    // Only for a worker's throttle ('auto' inline places): a caller that waits on its own keeps the budget's exact wait.
    if (!Number.isFinite(this.maxInlineWaiters)) return waitMs;
    const now = Date.now();
    const slotMs = isWindowName(kind) && limit > 0 ? (this.windows.lengthMs(kind) / limit) * STAGGER_SHARE : 0;
    const at = Math.max(now + waitMs, this.delayedUntil);
    this.delayedUntil = at + slotMs;
    return at - now;
  }

  private async explainWait(kind: string, limit: number): Promise<{ window: WindowName | undefined; reason: string }> {
    if (isWindowName(kind)) return { window: kind, reason: budgetUsedReason(kind, limit) };
    const [pauseText, interval] = await Promise.all([this.redis.get(this.keys.pause), this.redis.hget(this.keys.probe, 'interval')]);
    const pause = parsePause(pauseText ?? '');
    if (kind === 'pause' && pause?.kind === 'retry-after') return { window: pause.window, reason: serviceLimitReason(pause.window) };
    return { window: pause?.window, reason: probingText(pause?.intervalMs ?? (Number(interval) || this.probeInitialMs)) };
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
