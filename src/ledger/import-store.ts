import type { Redis } from 'ioredis';
import { Ledger, type LedgerEntry } from './ledger.ts';

/** A report line's status (CONTRACT.md §5); `pending` only while the import still runs. */
export type RowStatus = 'created' | 'exists' | 'invalid' | 'failed' | 'skipped' | 'unknown' | 'pending';

/** What happened to one record (one estimate or one bill). */
export interface RecordOutcome {
  status: Exclude<RowStatus, 'invalid' | 'pending'>;
  id?: number;
  message: string;
  /** The error code behind a failed or unknown record (e.g. BUILDSYNC_HTTP_401). */
  code?: string;
}

export type OutcomeCounts = Record<RecordOutcome['status'], number> & { settled: number };

/** A record of the plan: which input lines it came from and how the report names it. */
export interface PlannedRecordRef {
  key: string;
  label: string;
  lines: number[];
}

/** A report line decided while planning (invalid rows), with no request behind it. */
export interface StaticLine {
  line: number;
  record: string;
  status: RowStatus;
  id?: number;
  message: string;
}

export interface ImportMeta {
  importId: string;
  kind: 'estimates' | 'bills';
  account: string;
  file: string;
  reportPath?: string;
  rows: number;
  records: number;
  /** Rows reported `invalid` while planning. */
  invalidRows: number;
  createdAt: number;
  /** How the input was read, for `jobs report ID --errors` (the engine's `ErrorsFileSource`; no secret in it). */
  errorsSource?: unknown;
}

export interface ReportLine {
  line: number;
  record: string;
  status: RowStatus;
  id: number | '';
  message: string;
}

const PENDING = { status: 'pending' as const, id: undefined, message: 'not settled yet: the import is still running' };

/** What an ended import's record without an outcome became, from its ledger entry. */
function unsettledOutcome(entry: LedgerEntry | undefined, importId: string): { status: RowStatus; id?: number; message: string } {
  if (entry?.state === 'created') {
    return entry.importId === importId
      ? { status: 'created', id: entry.id, message: 'created (the outcome was recorded in the ledger before its worker stopped)' }
      : { status: 'skipped', id: entry.id, message: `already created by this tool (ID ${entry.id})` };
  }
  if (entry?.state === 'sending' || entry?.state === 'unknown') {
    return {
      status: 'unknown',
      message: `the request may have reached the service (${entry.reason ?? 'its worker stopped after handing it over'}); check the service, then run the import again (with --resend-unknown for a bill that is missing)`,
    };
  }
  return { status: 'failed', message: 'never sent: the import ended before this record was sent (its job failed or was removed); run the import again to send it' };
}

/** Import data is kept this long so that `buildsync jobs report ID` works later. */
export const IMPORT_TTL_SECONDS = 30 * 24 * 3600;

// First outcome wins; the per-status counter moves only when the outcome was new.
const SETTLE_LUA = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  redis.call('EXPIRE', KEYS[2], ARGV[4])
  return 1
end
return 0
`;

/**
 * An import's plan and outcomes in Redis, shared by every worker: the report is assembled from
 * it when the last record settles, and again on `jobs report ID`.
 */
type StoreRedis = Redis & {
  bsImportSettle(outcomes: string, counts: string, recordKey: string, outcome: string, status: string, ttl: string): Promise<number>;
};

export class ImportStore {
  readonly #redis: StoreRedis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    if (!('bsImportSettle' in redis)) redis.defineCommand('bsImportSettle', { numberOfKeys: 2, lua: SETTLE_LUA });
    this.#redis = redis as StoreRedis;
    this.#prefix = prefix;
  }

  #k(importId: string, part: 'meta' | 'records' | 'static' | 'outcomes' | 'counts'): string {
    return `${this.#prefix}:import:${importId}:${part}`;
  }

  async saveMeta(meta: ImportMeta): Promise<void> {
    const key = this.#k(meta.importId, 'meta');
    await this.#redis.multi().set(key, JSON.stringify(meta)).expire(key, IMPORT_TTL_SECONDS).exec();
  }

  async meta(importId: string): Promise<ImportMeta | undefined> {
    const v = await this.#redis.get(this.#k(importId, 'meta'));
    return v ? (JSON.parse(v) as ImportMeta) : undefined;
  }

  /** Stores planned records and static lines in batches (a 100,000-record plan in few round trips). */
  async savePlan(importId: string, records: Iterable<PlannedRecordRef>, statics: Iterable<StaticLine>): Promise<void> {
    const rk = this.#k(importId, 'records');
    const sk = this.#k(importId, 'static');
    let pipe = this.#redis.pipeline();
    let n = 0;
    const flush = async () => {
      if (n) await pipe.exec();
      pipe = this.#redis.pipeline();
      n = 0;
    };
    for (const r of records) {
      pipe.hset(rk, r.key, JSON.stringify({ label: r.label, lines: r.lines }));
      if (++n >= 1000) await flush();
    }
    for (const s of statics) {
      pipe.rpush(sk, JSON.stringify(s));
      if (++n >= 1000) await flush();
    }
    pipe.expire(rk, IMPORT_TTL_SECONDS).expire(sk, IMPORT_TTL_SECONDS);
    n++;
    await flush();
  }

  /**
   * Records an outcome. The first settled outcome of a record wins (a retried or duplicated job
   * cannot overwrite `created` with a later `skipped`); returns whether this call wrote it.
   */
  async settle(importId: string, recordKey: string, outcome: RecordOutcome): Promise<boolean> {
    const ok = (await this.#redis.bsImportSettle(
      this.#k(importId, 'outcomes'),
      this.#k(importId, 'counts'),
      recordKey,
      JSON.stringify(outcome),
      outcome.status,
      String(IMPORT_TTL_SECONDS),
    )) as number;
    return ok === 1;
  }

  async outcome(importId: string, recordKey: string): Promise<RecordOutcome | undefined> {
    const v = await this.#redis.hget(this.#k(importId, 'outcomes'), recordKey);
    return v ? (JSON.parse(v) as RecordOutcome) : undefined;
  }

  /** Counts of settled records by status: one small hash, cheap enough to poll for progress. */
  async counts(importId: string): Promise<OutcomeCounts> {
    const raw = await this.#redis.hgetall(this.#k(importId, 'counts'));
    const c: OutcomeCounts = { created: 0, exists: 0, failed: 0, skipped: 0, unknown: 0, settled: 0 };
    for (const status of ['created', 'exists', 'failed', 'skipped', 'unknown'] as const) {
      c[status] = Number(raw[status] ?? 0);
      c.settled += c[status];
    }
    return c;
  }

  /** Whether any settled outcome carries `code` (e.g. credentials refused). */
  async anyOutcomeCode(importId: string, code: string): Promise<boolean> {
    for await (const [, v] of this.#scan(this.#k(importId, 'outcomes'))) {
      if ((JSON.parse(v) as RecordOutcome).code === code) return true;
    }
    return false;
  }

  /**
   * The whole report, one line per input row, in line order. A record with no outcome yet is
   * `pending` while the import runs (`running`); once it has ended, the ledger says what became
   * of it: created by this import, handed to the service before its worker stopped (`unknown`),
   * or never sent (`failed`: a later run sends it). A record never handed over is never `unknown`.
   */
  async report(importId: string, opts: { running?: boolean } = {}): Promise<ReportLine[]> {
    const outcomes = new Map<string, RecordOutcome>();
    for await (const [k, v] of this.#scan(this.#k(importId, 'outcomes'))) outcomes.set(k, JSON.parse(v) as RecordOutcome);
    const lines: ReportLine[] = [];
    const unsettled: Array<{ key: string; label: string; lines: number[] }> = [];
    for await (const [k, v] of this.#scan(this.#k(importId, 'records'))) {
      const r = JSON.parse(v) as { label: string; lines: number[] };
      const o = outcomes.get(k);
      if (o === undefined) {
        unsettled.push({ key: k, ...r });
        continue;
      }
      for (const line of r.lines) lines.push({ line, record: r.label, status: o.status, id: o.id ?? '', message: o.message });
    }
    if (unsettled.length > 0) {
      const account = opts.running ? undefined : (await this.meta(importId))?.account;
      const ledger = account === undefined ? undefined : new Ledger(this.#redis, this.#prefix);
      for (let i = 0; i < unsettled.length; i += 1000) {
        const batch = unsettled.slice(i, i + 1000);
        const entries = ledger === undefined ? [] : await ledger.getMany(account!, batch.map((r) => r.key));
        batch.forEach((r, k) => {
          const o = opts.running ? PENDING : unsettledOutcome(entries[k], importId);
          for (const line of r.lines) lines.push({ line, record: r.label, status: o.status, id: o.id ?? '', message: o.message });
        });
      }
    }
    const statics = await this.#redis.lrange(this.#k(importId, 'static'), 0, -1);
    for (const s of statics) {
      const l = JSON.parse(s) as StaticLine;
      lines.push({ line: l.line, record: l.record, status: l.status, id: l.id ?? '', message: l.message });
    }
    lines.sort((a, b) => a.line - b.line);
    return lines;
  }

  async remove(importId: string): Promise<void> {
    await this.#redis.del(
      this.#k(importId, 'meta'),
      this.#k(importId, 'records'),
      this.#k(importId, 'static'),
      this.#k(importId, 'outcomes'),
      this.#k(importId, 'counts'),
    );
  }

  async *#scan(key: string): AsyncIterable<[string, string]> {
    const stream = this.#redis.hscanStream(key, { count: 1000 });
    for await (const batch of stream as AsyncIterable<string[]>) {
      for (let i = 0; i < batch.length; i += 2) yield [batch[i]!, batch[i + 1]!];
    }
  }
}
