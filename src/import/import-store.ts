import { promisify } from 'node:util';
import { createReadStream } from 'node:fs';
import { createGzip, gunzip as gunzipCb, gzip as gzipCb } from 'node:zlib';
import { importKeyOf, type RedisConnection } from '../redis/layout.ts';
import { Ledger, type LedgerEntry } from '../ledger/ledger.ts';
import type { IgnoredCounts, RowStatus, StaticLine } from '../mapping/report-line.ts';
import { withLineNote } from '../mapping/record-key.ts';
import SETTLE_LUA from './import-settle.lua';
import RECORDS_LUA from './import-records.lua';

export type { IgnoredCounts, RowStatus, StaticLine };

/** What happened to one record (one estimate or one bill). */
export interface RecordOutcome {
  status: Exclude<RowStatus, 'invalid' | 'pending' | 'ignored'>;
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
  /** Notes on some of its lines (`MappedRecord.notes`: a key spelled otherwise than sent). */
  notes?: ReadonlyArray<readonly [number, string]>;
}

/**
 * A record as the import store keeps it until it is sent: what sending needs (key, content hash,
 * payload) and what the report needs (label, lines), once. The record job carries only its
 * number in the plan (jobs/send-record.ts).
 */
export interface StoredRecord extends PlannedRecordRef {
  contentHash: string;
  /** The payload's JSON text, exactly as it is sent (and hashed). */
  payloadJson: string;
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
  /** Rows reported `ignored` while planning, by reason (absent from imports submitted before it was recorded). */
  ignored?: IgnoredCounts;
  createdAt: number;
  /** `--resend-unknown` was given: record jobs read it here rather than each carrying it. */
  resendUnknown?: boolean;
  /** How the input was read, for `jobs report ID --errors` (the engine's `ErrorsFileSource`; no secret in it). */
  errorsSource?: unknown;
  /** The ledger's marker when the import was submitted: its records are sent only while it is there (docs/operators.md, "Durability"). */
  ledgerMarker?: string;
  /** How Redis kept the ledger when the import was submitted (`DurabilityDecision` mode): a change stops sending. */
  durability?: string;
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

// Off the event loop: an upload may be tens of megabytes.
const gzip = promisify(gzipCb);
const gunzip = promisify(gunzipCb);

/** Import data is kept this long so that `buildsync jobs report ID` works later. */
export const IMPORT_TTL_SECONDS = 30 * 24 * 3600;
/** A plan still being written expires this long after its last batch (ImportStore.appendPlan). */
const PLANNING_TTL_SECONDS = 24 * 3600;

/**
 * An import's plan and outcomes in Redis, shared by every worker: the report is assembled from
 * it when the last record settles, and again on `jobs report ID`.
 */
type StoreRedis = RedisConnection & {
  bsImportSettle(outcomes: string, counts: string, log: string, recordKey: string, outcome: string, status: string, ttl: string): Promise<number>;
  bsImportRecords(meta: string, plan: string, outcomes: string, first: string, count: string): Promise<Array<string | number | null>>;
};

/** A planned record as a record job reads it: whether its outcome is settled already comes with it. */
export interface RecordToSettle extends StoredRecord {
  settled: boolean;
}

export class ImportStore {
  readonly #redis: StoreRedis;
  readonly #prefix: string;

  constructor(redis: RedisConnection, prefix: string) {
    if (!('bsImportSettle' in redis)) redis.defineCommand('bsImportSettle', { numberOfKeys: 3, lua: SETTLE_LUA });
    if (!('bsImportRecords' in redis)) redis.defineCommand('bsImportRecords', { numberOfKeys: 3, lua: RECORDS_LUA });
    this.#redis = redis as StoreRedis;
    this.#prefix = prefix;
  }

  /**
   * `plan`: record number → its `StoredRecord` (encodePlanEntry); `records`: the same from before
   * the plan held payloads (record key → label and lines), still read by the report.
   */
  #k(importId: string, part: 'meta' | 'plan' | 'records' | 'static' | 'outcomes' | 'counts' | 'log' | 'upload' | 'fixes'): string {
    return importKeyOf(this.#redis, this.#prefix, importId, part);
  }

  /** The account's ledger marker, written when there is none (`Ledger.ensureMarker`). */
  ledgerMarker(account: string): Promise<string> {
    return new Ledger(this.#redis, this.#prefix).ensureMarker(account);
  }

  async saveMeta(meta: ImportMeta): Promise<void> {
    const key = this.#k(meta.importId, 'meta');
    await this.#redis.multi().set(key, JSON.stringify(meta)).expire(key, IMPORT_TTL_SECONDS).exec();
  }

  async meta(importId: string): Promise<ImportMeta | undefined> {
    const v = await this.#redis.get(this.#k(importId, 'meta'));
    return v ? (JSON.parse(v) as ImportMeta) : undefined;
  }

  /**
   * Stores planned records (numbered from 0 in the order given) and static lines, in batches. For
   * records known only by key, label and lines (no payload); a submitted import uses `appendPlan`.
   */
  async savePlan(importId: string, records: Iterable<PlannedRecordRef>, statics: Iterable<StaticLine>): Promise<void> {
    let n = 0;
    let batch: StoredRecord[] = [];
    let lines: StaticLine[] = [];
    for (const r of records) {
      batch.push({ key: r.key, label: r.label, lines: r.lines, notes: r.notes, contentHash: '', payloadJson: 'null' });
      if (batch.length === 1000) {
        await this.appendPlan(importId, n, batch, []);
        n += batch.length;
        batch = [];
      }
    }
    for (const s of statics) {
      lines.push(s);
      if (lines.length === 1000) {
        await this.appendPlan(importId, n, [], lines);
        lines = [];
      }
    }
    await this.appendPlan(importId, n, batch, lines);
    await this.keep(importId);
  }

  /**
   * Adds a batch of the plan in one round trip: records numbered from `first`, and static lines.
   * Until the import is submitted (`keep`) the plan expires a day after its last batch, so that
   * the plan of a planner that died mid-file goes by itself.
   */
  async appendPlan(importId: string, first: number, records: readonly StoredRecord[], statics: readonly StaticLine[]): Promise<void> {
    const pk = this.#k(importId, 'plan');
    const sk = this.#k(importId, 'static');
    const pipe = this.#redis.multi();
    if (records.length > 0) {
      const args: string[] = new Array(records.length * 2);
      for (let i = 0; i < records.length; i++) {
        args[2 * i] = String(first + i);
        args[2 * i + 1] = encodePlanEntry(records[i]!);
      }
      pipe.hset(pk, ...args).expire(pk, PLANNING_TTL_SECONDS);
    }
    if (statics.length > 0) pipe.rpush(sk, ...statics.map(storedStatic)).expire(sk, PLANNING_TTL_SECONDS);
    if (records.length + statics.length > 0) await pipe.exec();
  }

  /** The import is submitted: its plan is kept as long as its report (IMPORT_TTL_SECONDS). */
  async keep(importId: string): Promise<void> {
    const pk = this.#k(importId, 'plan');
    const sk = this.#k(importId, 'static');
    await this.#redis.multi().expire(pk, IMPORT_TTL_SECONDS).expire(sk, IMPORT_TTL_SECONDS).exec();
  }

  /** Planned records `n` … `n + count - 1`, by number; undefined for one that is gone (the import expired or was removed). */
  async records(importId: string, n: number, count = 1): Promise<Array<StoredRecord | undefined>> {
    const fields: string[] = [];
    for (let i = n; i < n + count; i++) fields.push(String(i));
    const values = await this.#redis.hmget(this.#k(importId, 'plan'), ...fields);
    return values.map((v) => (v ? decodePlanEntry(v) : undefined));
  }

  /**
   * What a record job reads before it sends records `n` … `n + count - 1`, in one round trip
   * (import-records.lua): the import's meta, and each record with whether its outcome is settled
   * already (an earlier run of the job settled it: the first outcome stands, `settle`); undefined
   * for what is gone (the import expired or was removed).
   */
  async recordsToSend(importId: string, n: number, count = 1): Promise<{ meta: ImportMeta | undefined; records: Array<RecordToSettle | undefined> }> {
    const reply = await this.#redis.bsImportRecords(this.#k(importId, 'meta'), this.#k(importId, 'plan'), this.#k(importId, 'outcomes'), String(n), String(count));
    const meta = typeof reply[0] === 'string' ? (JSON.parse(reply[0]) as ImportMeta) : undefined;
    const records: Array<RecordToSettle | undefined> = [];
    for (let i = 0; i < count; i++) {
      const entry = reply[1 + 2 * i];
      records.push(typeof entry === 'string' ? { ...decodePlanEntry(entry), settled: reply[2 + 2 * i] === 1 } : undefined);
    }
    return { meta, records };
  }

  /**
   * Records an outcome. The first settled outcome of a record wins (a retried or duplicated job
   * cannot overwrite `created` with a later `skipped`); returns whether this call wrote it.
   */
  async settle(importId: string, recordKey: string, outcome: RecordOutcome): Promise<boolean> {
    const ok = (await this.#redis.bsImportSettle(
      this.#k(importId, 'outcomes'),
      this.#k(importId, 'counts'),
      this.#k(importId, 'log'),
      recordKey,
      JSON.stringify(outcome),
      outcome.status,
      String(IMPORT_TTL_SECONDS),
    )) as number;
    return ok === 1;
  }

  /**
   * The outcomes settled since the `from`-th, in the order they were settled, and how many there
   * are in all: a command following the import keeps them as they come (`OutcomeMirror`), so
   * that it can still write the report if Redis loses its data mid-import.
   */
  async outcomeLog(importId: string, from: number): Promise<{ entries: Array<[string, RecordOutcome]>; length: number }> {
    const key = this.#k(importId, 'log');
    const [items, length] = await Promise.all([this.#redis.lrange(key, from, from + 9_999), this.#redis.llen(key)]);
    const entries = items.map((item): [string, RecordOutcome] => {
      const cut = item.indexOf('\n');
      return [item.slice(0, cut), JSON.parse(item.slice(cut + 1)) as RecordOutcome];
    });
    return { entries, length };
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

  /** The error codes that settled outcomes carry (e.g. credentials refused), each with the first message seen, in one pass. */
  async outcomeCodes(importId: string): Promise<Map<string, string>> {
    const codes = new Map<string, string>();
    for await (const [, v] of this.#scan(this.#k(importId, 'outcomes'))) {
      const o = JSON.parse(v) as RecordOutcome;
      if (o.code !== undefined && !codes.has(o.code)) codes.set(o.code, o.message);
    }
    return codes;
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
    const unsettled: PlannedRecordRef[] = [];
    const add = (r: PlannedRecordRef): void => {
      const o = outcomes.get(r.key);
      if (o === undefined) {
        unsettled.push(r);
        return;
      }
      for (const line of r.lines) lines.push({ line, record: r.label, status: o.status, id: o.id ?? '', message: withLineNote(o.message, r.notes, line) });
    };
    for await (const [, v] of this.#scan(this.#k(importId, 'plan'))) {
      const r = decodePlanEntry(v);
      add({ key: r.key, label: r.label, lines: r.lines, notes: r.notes });
    }
    for await (const [k, v] of this.#scan(this.#k(importId, 'records'))) add({ key: k, ...(JSON.parse(v) as { label: string; lines: number[] }) });
    if (unsettled.length > 0) {
      const account = opts.running ? undefined : (await this.meta(importId))?.account;
      const ledger = account === undefined ? undefined : new Ledger(this.#redis, this.#prefix);
      for (let i = 0; i < unsettled.length; i += 1000) {
        const batch = unsettled.slice(i, i + 1000);
        const entries = ledger === undefined ? [] : await ledger.getMany(account!, batch.map((r) => r.key));
        batch.forEach((r, k) => {
          const o = opts.running ? PENDING : unsettledOutcome(entries[k], importId);
          for (const line of r.lines) lines.push({ line, record: r.label, status: o.status, id: o.id ?? '', message: withLineNote(o.message, r.notes, line) });
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

  /**
   * The file (its path) an import page's import was sent from, kept (gzipped) while the import runs, so that
   * its rows to fix can be written after the dashboard that received it restarted. Replaced by the
   * rows to fix themselves once they are known (`saveRowsToFix`).
   */
  async saveUpload(importId: string, file: string): Promise<void> {
    // Compressed as it is read: the file itself is never whole in memory, only its gzip.
    const chunks: Buffer[] = [];
    for await (const chunk of createReadStream(file).pipe(createGzip())) chunks.push(chunk as Buffer);
    await this.#redis.set(this.#k(importId, 'upload'), Buffer.concat(chunks), 'EX', IMPORT_TTL_SECONDS);
  }

  async upload(importId: string): Promise<Buffer | undefined> {
    const v = await this.#redis.getBuffer(this.#k(importId, 'upload'));
    return v ? await gunzip(v) : undefined;
  }

  /** The ended import's rows to fix (the errors file's text; '' for none), kept as long as its report; the kept upload goes. */
  async saveRowsToFix(importId: string, text: string): Promise<void> {
    const key = this.#k(importId, 'fixes');
    await this.#redis.multi().set(key, await gzip(text), 'EX', IMPORT_TTL_SECONDS).del(this.#k(importId, 'upload')).exec();
  }

  /** The rows to fix `saveRowsToFix` kept; undefined when none were kept. */
  async rowsToFix(importId: string): Promise<string | undefined> {
    const v = await this.#redis.getBuffer(this.#k(importId, 'fixes'));
    return v ? (await gunzip(v)).toString('utf8') : undefined;
  }

  async remove(importId: string): Promise<void> {
    await this.#redis.del(
      this.#k(importId, 'meta'),
      this.#k(importId, 'plan'),
      this.#k(importId, 'records'),
      this.#k(importId, 'static'),
      this.#k(importId, 'outcomes'),
      this.#k(importId, 'counts'),
      this.#k(importId, 'log'),
      this.#k(importId, 'upload'),
      this.#k(importId, 'fixes'),
    );
  }

  async *#scan(key: string): AsyncIterable<[string, string]> {
    const stream = this.#redis.hscanStream(key, { count: 1000 });
    for await (const batch of stream as AsyncIterable<string[]>) {
      for (let i = 0; i < batch.length; i += 2) yield [batch[i]!, batch[i + 1]!];
    }
  }
}

/**
 * A planned record as one JSON array, `[key, label, lines, contentHash, payload]`, the payload's
 * JSON text put in as it is (no second encoding): short, since 100,000 of them wait in Redis. A
 * record with line notes has them before the payload: `[key, label, lines, contentHash, notes, payload]`.
 */
export function encodePlanEntry(r: StoredRecord): string {
  const notes = r.notes === undefined || r.notes.length === 0 ? '' : `${JSON.stringify(r.notes)},`;
  return `[${JSON.stringify(r.key)},${JSON.stringify(r.label)},[${r.lines.join(',')}],${JSON.stringify(r.contentHash)},${notes}${r.payloadJson}]`;
}

function decodePlanEntry(text: string): StoredRecord {
  // The payload is the tail of the text: its JSON is cut out as stored, not parsed and re-encoded.
  const head = JSON.parse(text) as [string, string, number[], string, unknown] | [string, string, number[], string, Array<[number, string]>, unknown];
  const [key, label, lines, contentHash] = head;
  const notes = head.length === 6 ? head[4] : undefined;
  const prefixLength = `[${JSON.stringify(key)},${JSON.stringify(label)},[${lines.join(',')}],${JSON.stringify(contentHash)},${notes === undefined ? '' : `${JSON.stringify(notes)},`}`.length;
  const r: StoredRecord = { key, label, lines, contentHash, payloadJson: text.slice(prefixLength, -1) };
  if (notes !== undefined) r.notes = notes;
  return r;
}

/** A report line decided while planning, as the store keeps it: its CLI message, never its wording (the page's words are the check's, not the report's). */
function storedStatic(l: StaticLine): string {
  if (l.wording === undefined && l.cells === undefined) return JSON.stringify(l);
  const { wording: _, cells: __, ...stored } = l;
  return JSON.stringify(stored);
}
