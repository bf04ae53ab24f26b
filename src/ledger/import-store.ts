import type { Redis } from 'ioredis';

/** The statuses of a report line (CONTRACT.md §5). */
export type RowStatus = 'created' | 'exists' | 'invalid' | 'failed' | 'skipped' | 'unknown';

/** What happened to one record (one estimate or one bill). */
export interface RecordOutcome {
  status: Exclude<RowStatus, 'invalid'>;
  id?: number;
  message: string;
}

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
  createdAt: number;
}

export interface ReportLine {
  line: number;
  record: string;
  status: RowStatus;
  id: number | '';
  message: string;
}

/** Import data is kept this long so that `buildsync jobs report ID` works later. */
export const IMPORT_TTL_SECONDS = 30 * 24 * 3600;

/**
 * An import's plan and outcomes in Redis, shared by every worker: the report is assembled from
 * it when the last record settles, and again on `jobs report ID`.
 */
export class ImportStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  #k(importId: string, part: 'meta' | 'records' | 'static' | 'outcomes'): string {
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
    const ok = await this.#redis.hsetnx(this.#k(importId, 'outcomes'), recordKey, JSON.stringify(outcome));
    await this.#redis.expire(this.#k(importId, 'outcomes'), IMPORT_TTL_SECONDS);
    return ok === 1;
  }

  async outcome(importId: string, recordKey: string): Promise<RecordOutcome | undefined> {
    const v = await this.#redis.hget(this.#k(importId, 'outcomes'), recordKey);
    return v ? (JSON.parse(v) as RecordOutcome) : undefined;
  }

  /** Counts of settled records by status. */
  async counts(importId: string): Promise<Record<RecordOutcome['status'], number> & { settled: number }> {
    const c = { created: 0, exists: 0, failed: 0, skipped: 0, unknown: 0, settled: 0 };
    for await (const [, v] of this.#scan(this.#k(importId, 'outcomes'))) {
      const o = JSON.parse(v) as RecordOutcome;
      c[o.status]++;
      c.settled++;
    }
    return c;
  }

  /** The whole report, one line per input row, in line order. */
  async report(importId: string): Promise<ReportLine[]> {
    const outcomes = new Map<string, RecordOutcome>();
    for await (const [k, v] of this.#scan(this.#k(importId, 'outcomes'))) outcomes.set(k, JSON.parse(v) as RecordOutcome);
    const lines: ReportLine[] = [];
    for await (const [k, v] of this.#scan(this.#k(importId, 'records'))) {
      const r = JSON.parse(v) as { label: string; lines: number[] };
      const o = outcomes.get(k) ?? {
        status: 'unknown' as const,
        message: 'no outcome was recorded for this record (the import was interrupted); run the import again: records already created are skipped',
      };
      for (const line of r.lines) lines.push({ line, record: r.label, status: o.status, id: o.id ?? '', message: o.message });
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
    );
  }

  async *#scan(key: string): AsyncIterable<[string, string]> {
    const stream = this.#redis.hscanStream(key, { count: 1000 });
    for await (const batch of stream as AsyncIterable<string[]>) {
      for (let i = 0; i < batch.length; i += 2) yield [batch[i]!, batch[i + 1]!];
    }
  }
}
