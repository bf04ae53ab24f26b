import type { Server } from 'node:http';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/layout.ts';
import type { Logger } from 'pino';
import { createJobContext, PROCESSORS, type Processor } from '../../jobs/index.ts';
import { allowVolatileRedis, notifyUrl, readEnv, type Env } from '../config.ts';
import type { ImportSummary } from '../import/index.ts';
import type { ServiceSession } from '../session/index.ts';
import { backoffMs } from '../errors/index.ts';
import { DURABILITY_RECHECK_MS, DurabilityWatch, durabilityDecision, pruneLedger, readDurabilityFacts, type DurabilityDecision } from '../ledger/index.ts';
import { knob } from '../knobs.ts';
import { logger } from '../log.ts';
import { connectRedis, createRedis } from '../redis/connection.ts';
import { describeRedisError, redisErrorLog } from '../redis/failures.ts';
import { Metrics } from './metrics.ts';
import { Notifier } from './notify.ts';
import { QUEUE, queuePrefix, type JobKind } from './names.ts';
import { EXPORT_MAX_STARTS, RECORD_JOB_RETENTION } from './retention.ts';

/** How long a worker may take to stop (SIGTERM ends every command within 5 s, even while Redis is away). */
const CLOSE_MS = 3_500;

/** How often a worker prunes the ledger of each account it serves (see `pruneNow`). */
const PRUNE_EVERY_MS = 6 * 3600_000;

/** Record jobs active per request slot of the client's pool (see the records worker). */
const RECORD_JOBS_PER_REQUEST_SLOT = 2;

export interface WorkerHostOptions {
  redisUrl: string;
  prefix: string;
  /** Record jobs (requests) in flight at once in this process. */
  concurrency: number;
  /** Where accounts' variables come from (the process environment and .env by default). */
  env?: Env;
  /** Serve Prometheus metrics on this port. */
  metricsPort?: number;
  log?: Logger;
  /**
   * How long a job's lock lasts without renewal: after a worker dies its jobs are taken over
   * this much later (BullMQ lockDuration; stalled checks run at the same interval).
   * @defaultValue 30_000
   */
  lockMs?: number;
  /** BullMQ's maxStartedAttempts for exports (a test knob: BUILDSYNC_EXPORT_MAX_STARTS). @defaultValue EXPORT_MAX_STARTS */
  exportMaxStarts?: number;
  /** Test knob: divides the rate windows' lengths (BUILDSYNC_TIME_SCALE). */
  timeScale?: number;
  /**
   * How long a record's claim outlives its sender's last sign of life (BUILDSYNC_LEDGER_LEASE_MS,
   * a test knob): a record whose worker died is taken over (claimed, not sent) or reported
   * `unknown` (sent) this much later.
   * @defaultValue 30_000
   */
  leaseMs?: number;
  /** --allow-insecure-http: plain http:// to a host other than loopback. @defaultValue false */
  allowInsecureHttp?: boolean;
  /** A worker inside a CLI command, which has already printed the durability warning. @defaultValue false */
  inCommand?: boolean;
}

export interface WorkerHost {
  workers: Worker[];
  metrics: Metrics;
  metricsServer?: Server;
  /** Stops taking jobs, lets in-flight ones finish (an export is aborted and handed back), closes everything. */
  close(): Promise<void>;
}

/** Runs the processors of jobs/ on the three queues until closed. */
export async function startWorkers(opts: WorkerHostOptions): Promise<WorkerHost> {
  const log = opts.log ?? logger();
  const redis = await connectRedis(opts.redisUrl, 'worker');
  const sessions = new Map<string, ServiceSession>();
  const lockMs = opts.lockMs ?? 30_000;

  // One line per cause every 10 s for every Redis error of this worker, whatever reports it.
  const redisErrors = redisErrorLog(opts.redisUrl, log);
  const probeQueues = Object.values(QUEUE).map((name) => redisErrors.watch(new Queue(name, { connection: redis, prefix: queuePrefix(redis, opts.prefix) }), `queue ${name}`));
  const metrics = new Metrics(
    () => probeQueues,
    () => [...sessions.values()].flatMap((s) => (s.throttle ? [s.throttle] : [])),
  );
  metrics.watchExports(redis, opts.prefix);
  const notifyTo = notifyUrl(opts.env ?? readEnv());
  const notifier = notifyTo ? new Notifier({ url: notifyTo, log }) : undefined;

  // Imports' progress goes on their parent jobs (jobs/context.ts says how often).
  const importsQueue = probeQueues.find((q) => q.name === QUEUE.imports)!;

  const watch = await watchDurability(redis, opts, log);
  const pruneTimers: NodeJS.Timeout[] = [];
  const pruneNow = ledgerPruning(redis, opts.prefix, log, pruneTimers);

  const ctx = createJobContext({
    redis,
    prefix: opts.prefix,
    log,
    env: opts.env,
    concurrency: opts.concurrency,
    timeScale: opts.timeScale,
    leaseMs: opts.leaseMs,
    allowInsecureHttp: opts.allowInsecureHttp,
    watch,
    sessions,
    setImportProgress: (importId, percent) =>
      importsQueue.updateJobProgress(importId, percent).catch(() => {
        // The parent may be gone (removed by hand): progress is only a display.
      }),
    onAccount: pruneNow,
    onResponse: (info) => {
      metrics.http.inc({ account: info.account, route: info.route, status: String(info.status) });
      if (info.status === 429) metrics.rateLimited.inc({ account: info.account });
    },
    count(event, n) {
      if (event === 'rows') metrics.rows.inc(n);
      else metrics.records.inc({ status: event }, n);
    },
  });

  // BullMQ does not close connections it was handed: keep them to close them ourselves.
  const connections: Redis[] = [];
  const connection = () => {
    const c = createRedis(opts.redisUrl, 'worker');
    connections.push(c);
    return c;
  };
  const common = workerOptions(redis, opts.prefix, lockMs);

  const track = (w: Worker) => tracked(w, metrics, notifier, redisErrors, opts.redisUrl, log);

  // Each job to its kind's processor (jobs/index.ts).
  const run = (job: Job, token: string | undefined, signal?: AbortSignal): Promise<unknown> => {
    const processor = (PROCESSORS as Record<string, Processor>)[job.name];
    if (!processor) throw new UnrecoverableError(`no processor for job kind ${JSON.stringify(job.name)}: was it queued by a newer buildsync than this worker?`);
    return processor(job, token, ctx, signal);
  };

  const workers = [
    track(
      new Worker(QUEUE.records, (job, token) => run(job, token), {
        ...common,
        connection: connection(),
        // The client's pool holds `concurrency` requests in flight; a few more jobs than that keep
        // the pool fed while others do their Redis bookkeeping (ledger, outcome, BullMQ), so the
        // requests, not the bookkeeping, set the pace.
        concurrency: Math.ceil(opts.concurrency * RECORD_JOBS_PER_REQUEST_SLOT),
        // Record jobs carry no retention options of their own (retention.ts): the worker's apply.
        ...RECORD_JOB_RETENTION,
      }),
    ),
    track(
      new Worker(
        QUEUE.imports,
        async (job, token) => {
          const summary = (await run(job, token)) as ImportSummary;
          metrics.rows.inc(summary.rows);
          return summary;
        },
        { ...common, connection: connection(), concurrency: 4 },
      ),
    ),
    track(
      new Worker(QUEUE.exports, (job, token, signal) => run(job, token, signal), {
        ...common,
        connection: connection(),
        concurrency: 2,
        maxStartedAttempts: opts.exportMaxStarts ?? EXPORT_MAX_STARTS,
      }),
    ),
  ];
  for (const w of workers) await w.waitUntilReady();

  const metricsServer = opts.metricsPort !== undefined ? await metrics.serve(opts.metricsPort) : undefined;
  log.info({ queues: Object.values(QUEUE), concurrency: opts.concurrency, prefix: opts.prefix }, 'worker ready');

  return {
    workers,
    metrics,
    metricsServer,
    close: () => closeHost({ pruneTimers, watch, workers, notifier, metricsServer, sessions, probeQueues, connections, redis, log }),
  };
}

/**
 * docs/operators.md, "Durability": a record is sent only once the ledger's note that it is being
 * sent would survive a Redis crash. Decided at start, read again every few seconds and after
 * every reconnection while sending (DurabilityWatch); a refusal fails each record unsent, and a
 * change stops the imports submitted before it.
 */
async function watchDurability(redis: Redis, opts: WorkerHostOptions, log: Logger): Promise<DurabilityWatch> {
  const allowVolatile = allowVolatileRedis(opts.env ?? readEnv());
  const durability: DurabilityDecision = durabilityDecision(await readDurabilityFacts(redis), { allowVolatile });
  const watch = new DurabilityWatch(redis, durability, {
    allowVolatile,
    everyMs: knob('BUILDSYNC_DURABILITY_RECHECK_MS', opts.env) ?? DURABILITY_RECHECK_MS,
    onChange: (from, to) => log.warn(`Redis's persistence or eviction changed (${from.mode} -> ${to.mode}): imports submitted before the change stop sending`),
  }).start();
  // A worker inside a command stays quiet: the import commands say it themselves, before they
  // submit anything (import-command.ts), and an export sends no records.
  if (!opts.inCommand) {
    if (durability.mode === 'refuse') log.error(`records will not be sent: ${durability.message}`);
    else if (durability.warning) log.warn(durability.warning);
  }
  return watch;
}

/**
 * BUILDSYNC_LEDGER_RETENTION_DAYS: each account this worker serves has its ledger pruned of
 * created records older than that when the worker first serves it, then every PRUNE_EVERY_MS (the
 * timers go on `timers`). Pruning is idempotent, so several workers doing it is harmless.
 */
function ledgerPruning(redis: Redis, prefix: string, log: Logger, timers: NodeJS.Timeout[]): (account: string, days: number) => void {
  return (account, days) => {
    const run = () => {
      pruneLedger(redis, prefix, account, days, Date.now()).then(
        (n) => n > 0 && log.info({ account, removed: n, days }, 'pruned the ledger of created records past their retention'),
        (err: unknown) => log.warn({ account, err: (err as Error).message }, 'could not prune the ledger; will try again'),
      );
    };
    run();
    const t = setInterval(run, PRUNE_EVERY_MS);
    t.unref();
    timers.push(t);
  };
}

/** A worker whose jobs are counted (metrics), whose failures are logged and notified, and whose Redis errors are told once per 10 s. */
function tracked(w: Worker, metrics: Metrics, notifier: Notifier | undefined, redisErrors: ReturnType<typeof redisErrorLog>, redisUrl: string, log: Logger): Worker {
  w.on('completed', (job: Job) => metrics.jobs.inc({ queue: w.name, kind: job.name, state: 'completed' }));
  w.on('failed', (job: Job | undefined, err: Error) => {
    metrics.jobs.inc({ queue: w.name, kind: job?.name ?? 'unknown', state: 'failed' });
    notifier?.jobFailed(job); // BUILDSYNC_NOTIFY_URL: exports and imports, after their last attempt only
    // A job that lost its lock while Redis was away is Redis's story, told once per 10 s.
    if (describeRedisError(err, redisUrl).cause === 'lock') redisErrors.report(err, `worker ${w.name}`);
    else log.warn({ queue: w.name, job: job?.id, err: err.message }, `job failed: ${err.message}`);
  });
  redisErrors.watch(w, `worker ${w.name}`);
  return w;
}

/** The options every queue's worker shares. */
function workerOptions(redis: Redis, prefix: string, lockMs: number) {
  return {
    // `{PREFIX}` on a cluster: every queue key in one slot (names.ts).
    prefix: queuePrefix(redis, prefix),
    lockDuration: lockMs,
    stalledInterval: lockMs,
    // A record job that stalls (its worker died mid-request) comes back once more: the ledger
    // then reports it unknown (a bill) or resends it safely (an estimate).
    maxStalledCount: 2,
    settings: { backoffStrategy: (attemptsMade: number) => backoffMs(attemptsMade, 1_000, 60_000) },
  };
}

/** What `WorkerHost.close` stops and closes. */
interface HostParts {
  pruneTimers: NodeJS.Timeout[];
  watch: DurabilityWatch;
  workers: Worker[];
  notifier: Notifier | undefined;
  metricsServer: Server | undefined;
  sessions: Map<string, ServiceSession>;
  probeQueues: Queue[];
  connections: Redis[];
  redis: Redis;
  log: Logger;
}

/** `WorkerHost.close`: stops taking jobs, lets in-flight ones finish (an export is aborted and handed back), closes everything. */
async function closeHost(h: HostParts): Promise<void> {
  const { workers, metricsServer, sessions, connections, redis, log } = h;
  let first: unknown;
  const keep = (p: Promise<unknown>) => p.catch((err) => (first ??= err));
  for (const t of h.pruneTimers) clearInterval(t);
  h.watch.stop();
  // Exports can run for minutes: abort them (the temp file goes, the job goes back to wait).
  workers[2]!.cancelAllJobs('worker shutting down');
  // A worker told to stop stops within CLOSE_MS even while Redis is away: what it cannot hand
  // back by then is left to BullMQ's stalled-job recovery (its locks expire) and the ledger's
  // leases, which is what they are for.
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), CLOSE_MS)));
  const graceful = (async () => {
    await Promise.all(workers.map((w) => keep(w.close())));
    await h.notifier?.drain(1_000);
    if (metricsServer) await keep(new Promise<void>((r) => metricsServer.close(() => r())));
    for (const s of sessions.values()) await keep(s.close());
    for (const q of h.probeQueues) await keep(q.close());
    for (const c of connections) await keep(c.quit());
    await keep(redis.quit());
    return 'closed' as const;
  })();
  const how = await Promise.race([graceful, timedOut]);
  clearTimeout(timer);
  if (how === 'timeout') {
    log.warn(`could not close cleanly in ${(CLOSE_MS / 1000).toFixed(1)} s (is Redis away?); stopping now: jobs in hand come back to other workers once their locks expire`);
    for (const w of workers) void w.close(true).catch(() => {});
    metricsServer?.close();
    for (const s of sessions.values()) void s.close().catch(() => {});
    for (const c of connections) c.disconnect();
    redis.disconnect();
    return;
  }
  if (first) throw first;
}

// Every job kind has a processor: a kind added to names.ts without one fails to compile here.
PROCESSORS satisfies Record<JobKind, Processor>;
