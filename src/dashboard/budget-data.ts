import type { Job, Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/layout.ts';
import { loadConfig, type Env } from '../config.ts';
import { coerceError } from '../errors/index.ts';
import type { ExportJobResult } from '../queue/index.ts';
import { AccountThrottle, type WindowName } from '../throttle/index.ts';
import { listAccounts } from './accounts.ts';

/** One window of an account's budget, as `/budget.json` gives it. */
export interface WindowRow {
  window: WindowName;
  limit: number;
  /** From BUILDSYNC_LIMITS (or the account's own); null when only a 429 taught this window. */
  configured: number | null;
  /** What a 429 taught, when lower than configured. */
  learned: { limit: number; at: string } | null;
  used: number;
  remaining: number;
  /** Until the oldest counted request leaves the window. */
  resetInMs: number;
}

export interface AccountBudget {
  account: string;
  /** The configured budget as written, e.g. `hour=500,day=10000`. */
  limits: string;
  windows: WindowRow[];
  pausedUntil: string | null;
  /** Why nothing goes now (the throttle's own words), or null. */
  reason: string | null;
  probing: boolean;
  /** Set instead of windows when the account's configuration cannot be read. */
  error?: string;
}

export interface ExportRun {
  jobId: string;
  /** The job scheduler that made it; null for a one-off `buildsync export projects`. */
  schedule: string | null;
  state: 'completed' | 'failed';
  finishedAt: string | null;
  /** The file written (ExportJobResult.path). */
  path: string | null;
  projects: number | null;
  failedReason: string | null;
}

export interface ScheduleRuns {
  name: string;
  pattern: string | null;
  every: number | null;
  tz: string | null;
  next: string | null;
  iterations: number;
  outDir: string | null;
  /** Its latest finished runs, newest first. */
  lastRuns: ExportRun[];
}

export interface BudgetReport {
  at: string;
  prefix: string;
  accounts: AccountBudget[];
  schedules: ScheduleRuns[];
  /** The latest finished exports of any kind, newest first. */
  exports: ExportRun[];
}

export interface BudgetSources {
  redis: Redis;
  prefix: string;
  exports: Queue;
  env: Env;
  timeScale?: number;
  recentExports: number;
}

/** Finished exports read per state to find each schedule's latest runs: bounded, newest first. */
const SCAN_EXPORTS = 200;
const RUNS_PER_SCHEDULE = 5;

/** Reads every account's budget, the schedules and the latest export runs. */
export async function collectBudget(src: BudgetSources): Promise<BudgetReport> {
  const accounts = await listAccounts(src.env, src.redis, src.prefix);
  const [budgets, schedulers, runs] = await Promise.all([
    Promise.all(accounts.map((a) => accountBudget(src, a))),
    src.exports.getJobSchedulers(0, -1, true),
    finishedExports(src.exports),
  ]);
  const schedules = schedulers.map<ScheduleRuns>((s) => {
    const data = (s.template?.data ?? {}) as { outDir?: unknown };
    return {
      name: s.key,
      pattern: s.pattern ?? null,
      every: s.every ?? null,
      tz: s.tz ?? null,
      next: s.next ? new Date(s.next).toISOString() : null,
      iterations: s.iterationCount ?? 0,
      outDir: typeof data.outDir === 'string' ? data.outDir : null,
      lastRuns: runs.filter((r) => r.schedule === s.key).slice(0, RUNS_PER_SCHEDULE),
    };
  });
  return {
    at: new Date().toISOString(),
    prefix: src.prefix,
    accounts: budgets,
    schedules,
    exports: runs.slice(0, src.recentExports),
  };
}

async function accountBudget(src: BudgetSources, account: string): Promise<AccountBudget> {
  let limits;
  try {
    limits = loadConfig({ env: src.env, account }).account;
  } catch (err) {
    // One account's bad BUILDSYNC_<NAME>_LIMITS must not hide every other account's budget.
    return { account, limits: '', windows: [], pausedUntil: null, reason: null, probing: false, error: coerceError(err).message };
  }
  // Only reads: status() runs one read-only script and never records a send.
  const throttle = new AccountThrottle({ redis: src.redis, account, limits: limits.limits, prefix: src.prefix, timeScale: src.timeScale });
  const s = await throttle.status();
  return {
    account,
    limits: limits.limitsText,
    windows: s.windows.map((w) => ({
      window: w.window,
      limit: w.limit,
      configured: w.configured ?? null,
      learned: w.learned ? { limit: w.learned.limit, at: w.learned.at.toISOString() } : null,
      used: w.used,
      remaining: w.remaining,
      resetInMs: w.resetInMs,
    })),
    pausedUntil: s.pausedUntil?.toISOString() ?? null,
    reason: s.reason ?? null,
    probing: s.probing,
  };
}

async function finishedExports(queue: Queue): Promise<ExportRun[]> {
  const [completed, failed] = await Promise.all([
    queue.getJobs('completed', 0, SCAN_EXPORTS - 1, false),
    queue.getJobs('failed', 0, SCAN_EXPORTS - 1, false),
  ]);
  const rows = [
    ...completed.map((j) => exportRun(j as Job, 'completed')),
    ...failed.map((j) => exportRun(j as Job, 'failed')),
  ];
  return rows.sort((a, b) => (b.finishedAt ?? '').localeCompare(a.finishedAt ?? ''));
}

function exportRun(job: Job, state: ExportRun['state']): ExportRun {
  const result = (state === 'completed' ? job.returnvalue : undefined) as Partial<ExportJobResult> | undefined;
  return {
    jobId: String(job.id),
    schedule: job.repeatJobKey ?? null,
    state,
    finishedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
    path: typeof result?.path === 'string' ? result.path : null,
    projects: typeof result?.projects === 'number' ? result.projects : null,
    failedReason: state === 'failed' ? (job.failedReason ?? null) : null,
  };
}
