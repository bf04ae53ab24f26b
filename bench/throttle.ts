/**
 * How close the shared budget comes to the service's limit, end to end: 1,000 bills imported
 * through the queue by real worker processes under a budget of 50 per second set on both sides
 * (sandbox `limits: { second: 50 }`, `BUILDSYNC_LIMITS=second=50`), with one worker process and
 * with three. Ideal: 1,000 / 50 = 20 s; goal: measured / ideal <= 1.05 with no 429.
 *
 * Then with no budget configured (`BUILDSYNC_LIMITS=none`): the tool learns the limit from 429s.
 * Goal: at most the concurrency in 429s in the first window (the requests already in flight when
 * the first 429 came), at most 1 in every later one. Learned from a 429 that states the limit
 * (the sandbox's message), and from 429s that state nothing, as the seed's service answers (§7):
 * through a proxy that strips the sandbox's message, in front of a sandbox whose limit is 50 an
 * "hour" of 1 s (time scale 3600 on both sides, so the limit is in a window the tool looks for),
 * with one worker and with three.
 *
 * Then many accounts on a Redis Cluster (issue 16): 20 accounts, each with a budget of
 * `second=5` on both sides (the sandbox's per-user limit, `BUILDSYNC_<NAME>_LIMITS=second=5`),
 * 50 bills each, three worker processes on a real three-master cluster (started here, as the
 * tests' helper starts it). Goal: aggregate throughput / sum of the budgets >= 0.95, no 429.
 * The budget is a rate, so `ratio` is the aggregate steady rate: every accepted bill of every
 * account from one window after the last account's first send (no account's first window, which
 * a sliding window lets go at once, is in it) to the first account's last send (after it, not
 * every account has work), over the interval's length times the sum of the budgets (see
 * `steadyAggregate`). Producer time (planning, submitting) is not in it, and neither is the
 * first pass of the workers through the 1,000 jobs submitted at once; that pass is measured
 * apart: `ratio_from_submit` is each account's rate from its own submit to its last bill (its
 * first window left out, see `fromSubmitRatio`), where every moment before its first send counts
 * as lost, and `start_lag_ms_max` the longest submit-to-first-send. `ratio_whole_run` is the
 * figure as measured before (all bills over the first submit to the last bill, first windows in).
 * The sandbox has three users, so seven sandboxes (in this process) hold the 20 accounts.
 *
 *   npm run bench -- throttle
 *   npm run bench -- throttle many-accounts     (the cluster run alone)
 *
 * The sandboxes run in processes of their own. The last stdout line is one JSON object.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { ImportStore } from '../src/import/index.ts';
import { Queues, submitImport } from '../src/queue/index.ts';
import buildCliBundle from '../test/global-setup.ts';
import { startBareProxy } from '../test/helpers/bare-429-proxy.ts';
import { billPlan } from '../test/helpers/bill-plan.ts';
import { maxInAlignedBucket, maxInSlidingInterval, perWindowCounts } from '../test/helpers/request-log.ts';
import { deleteKeys } from '../test/helpers/redis.ts';
import { startWorkerProcesses, stopAll } from '../test/helpers/worker-processes.ts';
import { startRedisCluster } from '../test/helpers/redis-cluster.ts';
import { accountEnv, sandboxBillProjects } from '../test/helpers/throttle-rig.ts';
import { newCluster } from '../src/redis/cluster.ts';
import { prefixPatterns, unlinkAll } from '../src/redis/layout.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { forkSandbox, type ForkedSandbox } from './lib/sandbox-process.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BILLS = 1_000;
const PER_SECOND = 50;
const WINDOW_MS = 1_000;
const IDEAL_S = BILLS / PER_SECOND;
const CONCURRENCY = 8;
/** For the runs whose 429s state nothing: an hour lasts 1 s on both sides. */
const HOUR_SCALE = 3_600;

interface RunOptions {
  workers: number;
  limits: string;
  /** BUILDSYNC_TIME_SCALE of the workers. @defaultValue 1 */
  timeScale?: number;
  /** Where the workers send (a proxy in front of the sandbox). @defaultValue the sandbox */
  baseUrl?: string;
}

interface Run {
  seconds: number;
  refused: number;
  refusedPerWindowMax: number;
  /** 429s per window of 1 s from the first 429 on. */
  refusedPerWindow: number[];
  windows: number;
  maxSliding: number;
  maxAligned: number;
  created: number;
  duplicates: number;
  peakRssMb: number;
}

async function run(sandbox: ForkedSandbox, redis: Redis, label: string, opts: RunOptions): Promise<Run> {
  const prefix = `bench-throttle-${process.pid}-${label}`;
  await deleteKeys(redis, `${prefix}:*`);
  await sandbox.reset();
  const user = sandbox.users[0]!;
  const procs = await startWorkerProcesses(opts.workers, {
    BUILDSYNC_PREFIX: prefix,
    BUILDSYNC_BASE_URL: opts.baseUrl ?? sandbox.url,
    BUILDSYNC_EMAIL: user.email,
    BUILDSYNC_PASSWORD: user.password,
    BUILDSYNC_API_KEY: user.apiKey,
    BUILDSYNC_LIMITS: opts.limits,
    BUILDSYNC_CONCURRENCY: String(CONCURRENCY),
    BUILDSYNC_TIME_SCALE: String(opts.timeScale ?? 1),
  });
  // Let the sandbox's window forget anything a previous run sent.
  await new Promise((r) => setTimeout(r, WINDOW_MS + 100));
  const queues = new Queues(redis, prefix);
  const store = new ImportStore(redis, prefix);
  try {
    const plan = billPlan(BILLS, sandbox.projectIds, { tag: label });
    const t = performance.now();
    const { importId } = await submitImport(queues, store, plan, { account: 'default', resendUnknown: false });
    for (;;) {
      const c = await store.counts(importId);
      if (c.settled >= BILLS) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const seconds = (performance.now() - t) / 1000;
    const counts = await store.counts(importId);
    const stats = await sandbox.stats();
    const peakRssMb = Math.max(...procs.map((p) => p.peakRssMb() ?? 0));
    const perWindow = perWindowCounts(stats.refusedAt, WINDOW_MS);
    const windows = Math.max(1, Math.ceil(seconds));
    return {
      seconds,
      refused: stats.refusedAt.length,
      refusedPerWindowMax: Math.max(0, ...perWindow),
      refusedPerWindow: perWindow,
      windows,
      maxSliding: maxInSlidingInterval(stats.acceptedAt, WINDOW_MS),
      maxAligned: maxInAlignedBucket(stats.acceptedAt, WINDOW_MS),
      created: counts.created,
      duplicates: stats.bills - stats.distinctBills,
      peakRssMb,
    };
  } finally {
    await stopAll(procs);
    await queues.close();
    await deleteKeys(redis, `${prefix}:*`);
  }
}

/** The learning goal: at most the concurrency in the first window, at most 1 in every later one. */
function describeLearning(label: string, r: Run, workers: number): void {
  const [first = 0, ...later] = r.refusedPerWindow;
  console.log(
    `${label}: 429s per window [${r.refusedPerWindow.join(', ')}]: first window ${first} (goal <= concurrency ${workers * CONCURRENCY}), ` +
      `later windows at most ${Math.max(0, ...later)} (goal <= 1)`,
  );
}


function describe(label: string, r: Run): void {
  console.log(
    `${label}: ${r.seconds.toFixed(2)} s (ideal ${IDEAL_S} s, ratio ${(r.seconds / IDEAL_S).toFixed(3)}), ` +
      `${r.created} created, ${r.duplicates} duplicates, 429s ${r.refused} (most in one window ${r.refusedPerWindowMax}), ` +
      `most accepted in any 1 s: sliding ${r.maxSliding}, aligned ${r.maxAligned}; worker peak RSS ${r.peakRssMb} MB`,
  );
}

const MANY = { accounts: 20, perSecond: 5, billsEach: 50, workers: 3 } as const;

interface ManyAccountsRun {
  /** The aggregate steady rate over the sum of the budgets (see `steadyAggregate`). */
  ratio: number;
  /** How long the interval of `ratio` was, in s. */
  steadySeconds: number;
  /** Per account from its own submit, summed (see `fromSubmitRatio`). */
  fromSubmitRatio: number;
  /** Total bills over the time from the first submit to the last accepted bill, over the sum of the budgets. */
  wholeRunRatio: number;
  wholeRunSeconds: number;
  /** Per account, from its import being submitted to its first accepted bill: mean and most. */
  startLagMsMean: number;
  startLagMsMax: number;
  /** Per account, its rate from its first accepted bill to its last (first window left out) over its budget: mean and least. */
  pacingMean: number;
  pacingMin: number;
  refused: number;
  created: number;
  duplicates: number;
  /** Most accepted requests of one account in any 1 s (goal: at most its budget). */
  maxSlidingPerAccount: number;
  peakRssMb: number;
}

/**
 * Every account's accepted sends in [the last first send + one window, the first last send), over
 * what the budgets allowed in that interval: the rate of the whole system while every account had
 * work and had left its first window.
 */
function steadyAggregate(perAccount: { perSecond: number; accepted: number[] }[], windowMs: number): { ratio: number; seconds: number } {
  const from = Math.max(...perAccount.map((a) => a.accepted[0]!)) + windowMs;
  const to = Math.min(...perAccount.map((a) => a.accepted[a.accepted.length - 1]!));
  const sent = perAccount.reduce((n, a) => n + a.accepted.filter((at) => at >= from && at < to).length, 0);
  const seconds = (to - from) / 1000;
  return { ratio: seconds > 0 ? sent / (seconds * perAccount.reduce((r, a) => r + a.perSecond, 0)) : 0, seconds };
}

/**
 * What the budget allowed and what was used of it, per account, while the account had work.
 *
 * An account's work is there from the moment its import is submitted (`submitImport` resolved;
 * its record jobs are runnable from then on, or from its first send if a worker was quicker) to
 * its last accepted bill. The budget is a rate of `limit` per sliding window: it lets the first
 * `limit` bills go at once, and each later one a window's share after the send it replaces, so
 * N bills need at least (N - limit) / rate seconds from the moment they are there. The rate from
 * the submit is therefore (N - limit) / (last accepted - work there): the budget for a sender
 * that never loses a moment, below it for every moment lost, whether before the first send (a
 * worker busy with other accounts) or between sends (a job that came back late). Producer time
 * (planning, submitting) is not the throttle's and is not counted; the time a worker takes to
 * reach an account's jobs is, from the submit on. Summed over the accounts: the bills beyond
 * each first window, over what the budgets allowed in each account's time with work.
 */
function fromSubmitRatio(perAccount: { n: number; limit: number; perSecond: number; fromMs: number; lastMs: number }[]): number {
  const sent = perAccount.reduce((s, a) => s + (a.n - a.limit), 0);
  const allowed = perAccount.reduce((s, a) => s + (a.perSecond * (a.lastMs - a.fromMs)) / 1000, 0);
  return sent / allowed;
}

/**
 * 20 accounts of `second=5` on a three-master Redis Cluster, three worker processes.
 * `BENCH_TIMELINE=FILE` writes each account's submit time and requests (ms after the first submit).
 */
async function manyAccounts(): Promise<ManyAccountsRun> {
  const cluster = await startRedisCluster({ replicas: 0 });
  const sandboxCount = Math.ceil(MANY.accounts / 3);
  const sandboxes: Sandbox[] = [];
  for (let i = 0; i < sandboxCount; i++) sandboxes.push(await startSandbox({ limits: { second: MANY.perSecond }, projects: 30 }));
  const accounts = Array.from({ length: MANY.accounts }, (_, i) => ({ name: `acct${i + 1}`, sandbox: sandboxes[Math.floor(i / 3)]!, user: i % 3 }));
  const redis = newCluster(cluster.url, { retry: (n) => Math.min(n * 100, 1000), connectTimeoutMs: 5000, maxRedirections: 32 });
  const prefix = `bench-many-${process.pid}`;
  const env: Record<string, string> = {
    REDIS_URL: cluster.url,
    REDIS_CLUSTER: '1',
    BUILDSYNC_PREFIX: prefix,
    BUILDSYNC_CONCURRENCY: String(CONCURRENCY),
  };
  for (const a of accounts) Object.assign(env, accountEnv(a.name, a.sandbox, a.user, `second=${MANY.perSecond}`));
  const procs = await startWorkerProcesses(MANY.workers, env);
  const queues = new Queues(redis, prefix);
  const store = new ImportStore(redis, prefix);
  try {
    console.log(`Redis Cluster of 3 masters at ${cluster.url}; ${MANY.accounts} accounts of second=${MANY.perSecond} on both sides, ${MANY.billsEach} bills each, ${MANY.workers} workers`);
    const plans = accounts.map((a) => billPlan(MANY.billsEach, sandboxBillProjects(a.sandbox, a.user), { tag: a.name }));
    const t = performance.now();
    const startedAt = Date.now();
    // Twenty imports submitted at once, as twenty producers would; each account's work is there
    // once its own submit returns (the sandboxes' clock, Date.now, is the one that times sends).
    const submittedAt: number[] = [];
    const ids = await Promise.all(
      accounts.map(async (a, i) => {
        const { importId } = await submitImport(queues, store, plans[i]!, { account: a.name, resendUnknown: false });
        submittedAt[i] = Date.now();
        return importId;
      }),
    );
    const submittedS = (performance.now() - t) / 1000;
    const total = MANY.accounts * MANY.billsEach;
    let counts = await Promise.all(ids.map((id) => store.counts(id)));
    // Polled slowly: the sandboxes share this process's event loop, and their clocks time the run.
    while (counts.reduce((n, c) => n + c.settled, 0) < total) {
      await new Promise((r) => setTimeout(r, 250));
      counts = await Promise.all(ids.map((id) => store.counts(id)));
    }
    const workerCpuS = procs.reduce((sum, p) => sum + cpuSeconds(p.child.pid), 0);
    let refused = 0;
    let bills = 0;
    let distinct = 0;
    for (const sb of sandboxes) {
      refused += sb.requests().filter((r) => r.status === 429).length;
      const titles = sb.bills().map((b) => (b.payload as { TITLE?: string }).TITLE);
      bills += titles.length;
      distinct += new Set(titles).size;
    }
    const perAccount = accounts.map((a, i) => {
      const email = a.sandbox.users[a.user]!.email;
      const requests = a.sandbox.requests().filter((r) => r.method === 'POST' && r.email === email);
      const accepted = requests.filter((r) => r.status !== 429).map((r) => r.at).sort((x, y) => x - y);
      const first = accepted[0]!;
      const last = accepted[accepted.length - 1]!;
      return {
        name: a.name,
        n: accepted.length,
        limit: MANY.perSecond,
        perSecond: MANY.perSecond,
        submittedMs: submittedAt[i]!,
        fromMs: Math.min(submittedAt[i]!, first),
        firstMs: first,
        lastMs: last,
        maxSliding: maxInSlidingInterval(accepted, WINDOW_MS),
        accepted,
        requests: requests.map((r) => [r.at - startedAt, r.status]),
      };
    });
    const steady = steadyAggregate(perAccount, WINDOW_MS);
    const lastAt = Math.max(...perAccount.map((a) => a.lastMs));
    const wholeRunSeconds = (lastAt - startedAt) / 1000;
    const lags = perAccount.map((a) => Math.max(0, a.firstMs - a.submittedMs));
    const pacing = perAccount.map((a) => (a.n - a.limit) / ((a.lastMs - a.firstMs) / 1000) / a.perSecond);
    console.log(`submitted the ${MANY.accounts} imports in ${submittedS.toFixed(2)} s`);
    console.log(
      `each account's first and last accepted bill after the first submit: ${perAccount.map((a) => `${a.name} ${((a.firstMs - startedAt) / 1000).toFixed(1)}-${((a.lastMs - startedAt) / 1000).toFixed(1)} s`).join(', ')}`,
    );
    if (process.env.BENCH_TIMELINE) {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(process.env.BENCH_TIMELINE, JSON.stringify(perAccount.map((a) => ({ name: a.name, submitted: a.submittedMs - startedAt, requests: a.requests }))));
    }
    // The machine's load says how much CPU the workers had: reaching 1,000 jobs takes CPU.
    console.log(`the ${MANY.workers} workers used ${workerCpuS.toFixed(1)} s of CPU; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs`);
    return {
      ratio: steady.ratio,
      steadySeconds: steady.seconds,
      fromSubmitRatio: fromSubmitRatio(perAccount),
      wholeRunRatio: total / wholeRunSeconds / (MANY.accounts * MANY.perSecond),
      wholeRunSeconds,
      startLagMsMean: lags.reduce((s, x) => s + x, 0) / lags.length,
      startLagMsMax: Math.max(...lags),
      pacingMean: pacing.reduce((s, x) => s + x, 0) / pacing.length,
      pacingMin: Math.min(...pacing),
      refused,
      created: counts.reduce((n, c) => n + c.created, 0),
      duplicates: bills - distinct,
      maxSlidingPerAccount: Math.max(...perAccount.map((a) => a.maxSliding)),
      peakRssMb: Math.max(...procs.map((p) => p.peakRssMb() ?? 0)),
    };
  } finally {
    await stopAll(procs);
    await queues.close().catch(() => undefined);
    for (const pattern of prefixPatterns(redis, prefix)) await unlinkAll(redis, pattern).catch(() => undefined);
    redis.disconnect();
    for (const sb of sandboxes) await sb.close();
    await cluster.close();
  }
}

/** User and system CPU time of a process so far (Linux /proc; 0 elsewhere). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

function describeMany(r: ManyAccountsRun): void {
  const budget = MANY.accounts * MANY.perSecond;
  console.log(
    `${MANY.accounts} accounts x second=${MANY.perSecond}, ${MANY.workers} workers on a Redis Cluster: steady rate with every account busy ` +
      `${(r.ratio * budget).toFixed(1)}/s of a ${budget}/s budget over ${r.steadySeconds.toFixed(1)} s (ratio ${r.ratio.toFixed(3)}, goal >= 0.95); ` +
      `each account from its own submit: ratio ${r.fromSubmitRatio.toFixed(3)}, its first send after mean ${Math.round(r.startLagMsMean)} ms, most ${Math.round(r.startLagMsMax)} ms; ` +
      `from its first send to its last: ${(r.pacingMean * 100).toFixed(1)}% of its budget (least ${(r.pacingMin * 100).toFixed(1)}%)`,
  );
  console.log(
    `whole run, first submit to last accepted bill (submitting counted): ${r.wholeRunSeconds.toFixed(2)} s for ${MANY.accounts * MANY.billsEach} bills, ` +
      `ratio ${r.wholeRunRatio.toFixed(3)}; ${r.created} created, ${r.duplicates} duplicates, 429s ${r.refused} (goal 0), ` +
      `most accepted for one account in any 1 s ${r.maxSlidingPerAccount}; worker peak RSS ${r.peakRssMb} MB`,
  );
}

async function main(): Promise<void> {
  const started = performance.now();
  // The workers run the CLI bundle the test suite builds (test/helpers/cli-path.ts): build it from
  // the sources as they are now, or the bench measures whatever the last test run left there.
  await buildCliBundle();
  if (process.argv[2] === 'many-accounts') {
    const many = await manyAccounts();
    describeMany(many);
    console.log(
      JSON.stringify({
        bench: 'throttle-many-accounts',
        ratio: round(many.ratio, 3),
        '429s': many.refused,
        ratio_from_submit: round(many.fromSubmitRatio, 3),
        start_lag_ms_max: Math.round(many.startLagMsMax),
        pacing_min: round(many.pacingMin, 3),
        ratio_whole_run: round(many.wholeRunRatio, 3),
        accounts: MANY.accounts,
        duplicates: many.duplicates,
        seconds: round((performance.now() - started) / 1000, 1),
        peak_rss_mb: Math.max(many.peakRssMb, Math.round(process.resourceUsage().maxRSS / 1024)),
      }),
    );
    return;
  }
  const sandbox = await forkSandbox({ limits: { second: PER_SECOND }, projects: 50 });
  const hourly = await forkSandbox({ limits: { hour: PER_SECOND }, timeScale: HOUR_SCALE, projects: 50 });
  const bare = await startBareProxy(hourly.url);
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  try {
    console.log(`sandbox (pid ${sandbox.pid}) at ${sandbox.url}: second=${PER_SECOND}; ${BILLS} bills per run`);
    const one = await run(sandbox, redis, 'w1', { workers: 1, limits: `second=${PER_SECOND}` });
    describe('1 worker,  BUILDSYNC_LIMITS=second=50', one);
    const three = await run(sandbox, redis, 'w3', { workers: 3, limits: `second=${PER_SECOND}` });
    describe('3 workers, BUILDSYNC_LIMITS=second=50', three);
    const learning = await run(sandbox, redis, 'learn', { workers: 1, limits: 'none' });
    describe('1 worker,  BUILDSYNC_LIMITS=none (learning)', learning);
    console.log(
      `learning: ${learning.refused} 429s over ${learning.windows} windows = ${(learning.refused / learning.windows).toFixed(2)} per window (goal <= 1)`,
    );
    describeLearning('learning, 429 states the limit, 1 worker ', learning, 1);

    console.log(`sandbox (pid ${hourly.pid}): hour=${PER_SECOND}, time scale ${HOUR_SCALE}, its 429s stripped to "Rate limit exceeded." by a proxy at ${bare.url}`);
    const hourlyRun = { limits: 'none', timeScale: HOUR_SCALE, baseUrl: bare.url };
    const unstated = await run(hourly, redis, 'learn-unstated', { workers: 1, ...hourlyRun });
    describe('1 worker,  BUILDSYNC_LIMITS=none (learning, 429s state nothing)', unstated);
    describeLearning('learning, 429s state nothing, 1 worker ', unstated, 1);
    const unstated3 = await run(hourly, redis, 'learn-unstated-w3', { workers: 3, ...hourlyRun });
    describe('3 workers, BUILDSYNC_LIMITS=none (learning, 429s state nothing)', unstated3);
    describeLearning('learning, 429s state nothing, 3 workers', unstated3, 3);

    const many = await manyAccounts();
    describeMany(many);

    const peak = Math.max(
      many.peakRssMb,
      one.peakRssMb, three.peakRssMb, learning.peakRssMb, unstated.peakRssMb, unstated3.peakRssMb, Math.round(process.resourceUsage().maxRSS / 1024),
    );
    const laterMax = (r: Run) => Math.max(0, ...r.refusedPerWindow.slice(1));
    console.log(
      JSON.stringify({
        bench: 'throttle',
        ratio: round(one.seconds / IDEAL_S, 3),
        ratio_3_workers: round(three.seconds / IDEAL_S, 3),
        '429s': one.refused + three.refused,
        '429s_learning': learning.refused,
        '429s_learning_per_window': round(learning.refused / learning.windows, 2),
        '429s_learning_later_window_max': laterMax(learning),
        '429s_unstated_first_window': unstated.refusedPerWindow[0] ?? 0,
        '429s_unstated_later_window_max': laterMax(unstated),
        '429s_unstated_3_workers_first_window': unstated3.refusedPerWindow[0] ?? 0,
        '429s_unstated_3_workers_later_window_max': laterMax(unstated3),
        many_accounts_ratio: round(many.ratio, 3),
        many_accounts_ratio_from_submit: round(many.fromSubmitRatio, 3),
        '429s_many_accounts': many.refused,
        seconds: round((performance.now() - started) / 1000, 1),
        peak_rss_mb: peak,
      }),
    );
  } finally {
    redis.disconnect();
    await bare.close();
    await hourly.close();
    await sandbox.close();
  }
}

function round(x: number, digits: number): number {
  const k = 10 ** digits;
  return Math.round(x * k) / k;
}

await main();
