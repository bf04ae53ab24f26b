import type { RedisConnection as Redis } from '../src/redis/layout.ts';
import type { Logger } from 'pino';
import { loadPool, type ServiceClient } from '../src/api/index.ts';
import { loadConfig, requireService, type Env } from '../src/config.ts';
import { openSession, type ServiceSession, type SessionOptions } from '../src/session/index.ts';
import { confirmNote, DEFAULT_LEASE_MS, Ledger, type DurabilityWatch } from '../src/ledger/index.ts';
import { ImportStore, type RecordOutcome } from '../src/import/index.ts';
import type { Secret } from '../src/secret.ts';
import { InlineWaitPool, type AccountThrottle } from '../src/throttle/index.ts';

/** What a processor gets besides its job: opened once per worker process by the queue layer. */
export interface JobContext {
  prefix: string;
  redis: Redis;
  ledger: Ledger;
  /** Redis's persistence and eviction as last read (docs/operators.md, "Durability"): a change stops sending. */
  watch: DurabilityWatch;
  store: ImportStore;
  log: Logger;
  /** The client of an account, throttled by its shared budget; the account is named in job data, its secrets come from this process's environment. */
  client(account: string): ServiceClient;
  /** The account's shared budget as this worker process holds it: opened with its `client`, absent before that (and without Redis). */
  throttle(account: string): AccountThrottle | undefined;
  /**
   * Puts an import's progress (percent of its records settled) on its parent job, so the
   * dashboard and `jobs list` show it; rate-limited per import inside the worker process.
   */
  importProgress(importId: string): Promise<void>;
  /**
   * The account's BUILDSYNC_EXPORT_DATABASE_URL (`--to postgres`), from this process's environment
   * only, never from job data; `variable` names it for messages.
   */
  exportDatabase(account: string): { url: Secret | undefined; variable: string };
  /** Counters for metrics; no-ops where no metrics are served. */
  count(event: 'rows' | 'created' | 'failed' | 'unknown' | 'skipped' | 'exists', n?: number): void;
  /** An outcome this worker settled, kept for a while in case Redis loses it (see `RecentOutcomes`). */
  remember(settled: SettledOutcome): void;
}

/** One record's outcome as a worker settled it, with what is needed to settle it again. */
export interface SettledOutcome {
  account: string;
  importId: string;
  /** The ledger's marker the import started with. */
  marker: string;
  key: string;
  contentHash: string;
  outcome: RecordOutcome;
}

/** How long a worker keeps the outcomes it settled, to settle them again if Redis loses them. */
const REMEMBER_MS = 60_000;
/** At most this many of them (the newest). */
const RECENT_MAX = 10_000;

/**
 * The outcomes this worker settled in the last minute. When Redis comes back from an outage
 * without the ledger an import started with (its marker gone: it restarted empty), the worker
 * settles them again, in the ledger and in the import's outcomes: the command following the
 * import reads its outcomes every few hundred milliseconds, and those it had not read yet when
 * Redis lost them would otherwise be in neither the ledger nor the report, and a re-run would
 * send them again (docs/operators.md, "Durability").
 */
class RecentOutcomes {
  #recent: Array<SettledOutcome & { at: number }> = [];
  #replaying = false;

  constructor(
    private readonly redis: Redis,
    private readonly ledger: Ledger,
    private readonly store: ImportStore,
  ) {
    redis.on('ready', () => void this.replay().catch(() => {}));
  }

  add(s: SettledOutcome): void {
    const now = Date.now();
    this.#recent.push({ ...s, at: now });
    // Cut in batches (the list is in time order): cutting at every outcome once the oldest was a
    // minute old, or the list full, copied up to 10,000 entries per record of a long import.
    if (this.#recent.length > 2 * RECENT_MAX || this.#recent[0]!.at < now - 2 * REMEMBER_MS) this.#recent = this.#current(now);
  }

  /** The last minute's outcomes, at most RECENT_MAX of them. */
  #current(now: number): Array<SettledOutcome & { at: number }> {
    return this.#recent.filter((r) => r.at >= now - REMEMBER_MS).slice(-RECENT_MAX);
  }

  /** After a reconnection: the outcomes of imports whose ledger marker is gone are settled again. */
  async replay(): Promise<void> {
    if (this.#replaying || this.#recent.length === 0) return;
    this.#replaying = true;
    try {
      const markers = new Map<string, string | undefined>();
      for (const r of this.#current(Date.now())) {
        if (!markers.has(r.account)) markers.set(r.account, await this.ledger.marker(r.account));
        if (markers.get(r.account) === r.marker) continue;
        if (r.outcome.status === 'created' && r.outcome.id !== undefined) await this.ledger.created(r.account, r.key, r.outcome.id, r.contentHash, r.importId);
        else if (r.outcome.status === 'unknown') await this.ledger.unknown(r.account, r.key, r.outcome.message, r.contentHash, r.importId);
        await this.store.settle(r.importId, r.key, r.outcome);
      }
    } finally {
      this.#replaying = false;
    }
  }
}

/** What `createJobContext` needs from the worker process that hosts the processors. */
export interface JobContextOptions {
  redis: Redis;
  prefix: string;
  log: Logger;
  /** Where accounts' variables come from (the process environment and .env by default). */
  env?: Env;
  /** Requests in flight at once per account's client. */
  concurrency: number;
  /** Test knob: divides the rate windows' lengths (BUILDSYNC_TIME_SCALE). */
  timeScale?: number;
  /** How long a record's claim outlives its sender (BUILDSYNC_LEDGER_LEASE_MS). @defaultValue DEFAULT_LEASE_MS */
  leaseMs?: number;
  /** --allow-insecure-http. @defaultValue false */
  allowInsecureHttp?: boolean;
  /** How the ledger's notes are made durable: read at start, and again while sending (`DurabilityWatch`). */
  watch: DurabilityWatch;
  /** The sessions opened per account; the caller closes them and reads their throttles for metrics. */
  sessions: Map<string, ServiceSession>;
  /** Puts an import's percent of settled records on its parent job (a display: failures are the caller's to ignore). */
  setImportProgress(importId: string, percent: number): Promise<void>;
  /** Called the first time this process serves an account (the worker starts pruning its ledger). */
  onAccount?(account: string, ledgerRetentionDays: number): void;
  /** Every service response (metrics). */
  onResponse?: SessionOptions['onResponse'];
  /** Counters for metrics. */
  count?(event: 'rows' | 'created' | 'failed' | 'unknown' | 'skipped' | 'exists', n: number): void;
}

/** How often, at most, an import's progress is put on its parent job by one worker process. */
const PROGRESS_EVERY_MS = 500;

/** The context every processor of this worker process shares (see `JobContext`). */
export function createJobContext(opts: JobContextOptions): JobContext {
  const { redis, prefix, watch } = opts;
  const store = new ImportStore(redis, prefix);
  const progressAt = new Map<string, number>();
  const recordsOf = new Map<string, number>();
  // Inline budget waits of all accounts together take at most three quarters of the record job
  // slots (twice the connections, worker-host.ts), so the worker keeps fetching jobs with the
  // rest. Half the slots kept many accounts' slots without a waiter (see maxInlineWaiters).
  const inlineWaits = new InlineWaitPool(Math.max(1, Math.min(Math.ceil(opts.concurrency * 1.5), opts.concurrency * 2 - 1)));
  const confirmMs = Math.max(1000, Math.floor((opts.leaseMs ?? DEFAULT_LEASE_MS) / 3));
  // The HTTP client loads on first use (src/api/http-transport.ts), so that --help starts fast.
  // A worker sends, so it loads it now: in its first job, evaluating it (up to half a second on
  // a busy machine) stalled every job of the process, the other accounts' first sends included.
  void loadPool().catch(() => undefined);
  const ledger = new Ledger(redis, prefix, {
    leaseMs: opts.leaseMs,
    // The decision as last read: a note is confirmed as Redis keeps it now.
    confirm: (r) => confirmNote(r, watch.current, confirmMs),
  });
  const recent = new RecentOutcomes(redis, ledger, store);
  return {
    prefix,
    redis,
    ledger,
    remember: (s) => recent.add(s),
    watch,
    store,
    log: opts.log,
    async importProgress(importId) {
      const now = Date.now();
      if (now - (progressAt.get(importId) ?? 0) < PROGRESS_EVERY_MS) return;
      progressAt.set(importId, now);
      if (progressAt.size > 1000) progressAt.delete(progressAt.keys().next().value!);
      let records = recordsOf.get(importId);
      if (records === undefined) {
        records = (await store.meta(importId))?.records ?? 0;
        recordsOf.set(importId, records);
        if (recordsOf.size > 1000) recordsOf.delete(recordsOf.keys().next().value!);
      }
      if (!records) return;
      const c = await store.counts(importId);
      // A number, so bull-board draws it as a progress bar; the counts are in `jobs show`.
      await opts.setImportProgress(importId, Math.floor((100 * c.settled) / records));
    },
    client(account) {
      let s = opts.sessions.get(account);
      if (!s) {
        // Secrets come from this worker's own environment; job data names the account only.
        const cfg = loadConfig({ env: opts.env, account });
        s = openSession(requireService(cfg.account, { allowInsecureHttp: opts.allowInsecureHttp }), {
          redis,
          prefix,
          connections: opts.concurrency,
          timeScale: opts.timeScale,
          // The job slots are shared by every account: one with a small budget must not fill them with waits.
          maxInlineWaiters: 'auto',
          inlineWaits,
          onResponse: opts.onResponse,
        });
        opts.sessions.set(account, s);
        opts.onAccount?.(account, cfg.ledgerRetentionDays);
      }
      return s.client;
    },
    throttle(account) {
      return opts.sessions.get(account)?.throttle;
    },
    exportDatabase(account) {
      const a = loadConfig({ env: opts.env, account }).account;
      return { url: a.exportDatabaseUrl, variable: a.exportDatabaseVariable };
    },
    count(event, n = 1) {
      opts.count?.(event, n);
    },
  };
}
