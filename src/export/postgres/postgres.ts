import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo, type CopyStreamQuery } from 'pg-copy-streams';
import { writeWholeNumber } from '../ascii-bytes.ts';
import { DatabaseError, DatabaseUnavailableError, redactUrl } from '../../errors/index.ts';
import type { Secret } from '../../secret.ts';
import { withTimeout } from '../../with-timeout.ts';
import { PROJECT_COLUMNS, TABLE } from './columns.ts';
import { copyRow } from './copy-row.ts';
import { TableRows, TableRowsParser } from './table-rows.ts';

/** What one export did to `buildsync_projects`. */
export interface UpsertCounts {
  /** Rows created (projects never exported into this table before). */
  inserted: number;
  /** Rows whose values changed, or that were listed again after being marked removed. */
  updated: number;
  /** Rows that got `removed_at` (no longer listed). */
  removed: number;
}

export interface PostgresSinkOptions {
  /** BUILDSYNC_EXPORT_DATABASE_URL, from the worker's environment; never printed. */
  url: Secret;
  /** How long connecting may take. @defaultValue 10_000 */
  connectTimeoutMs?: number;
}

/** Lines are gathered into COPY messages of about this many bytes (few, large writes). */
const COPY_BATCH_BYTES = 256 * 1024;
/**
 * How much the COPY stream buffers before the export waits for it: a few batches, so the listing
 * keeps being parsed while the socket drains into PostgreSQL.
 */
const COPY_HIGH_WATER = 1024 * 1024;
/** How long a rollback may take before the connection is simply closed (which rolls back too). */
const ROLLBACK_MS = 5_000;

const INCOMING = 'buildsync_incoming';
const cols = PROJECT_COLUMNS.map((c) => c.column);
const colList = cols.join(', ');
const tRow = `(${cols.map((c) => `t.${c}`).join(', ')})`;
const newRow = `(${cols.map((c) => `EXCLUDED.${c}`).join(', ')})`;

/**
 * `row_hash`: the first 48 bits of the row's hash (copy-row.ts, the one the change state keeps),
 * written with the row. It lets the next export tell an unchanged project without sending its values (see
 * `PostgresProjectSink`); it is not one of the contract's columns, and nothing else reads it.
 */
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ${TABLE} (
  ${PROJECT_COLUMNS.map((c) => `${c.column} ${c.sqlType}${c.column === 'id' ? ' PRIMARY KEY' : ''}`).join(',\n  ')},
  changed_at timestamptz NOT NULL,
  removed_at timestamptz,
  row_hash bigint
)`;

const HAS_ROW_HASH = `SELECT 1 FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'row_hash' AND NOT attisdropped`;

const CREATE_INCOMING = `CREATE TEMPORARY TABLE ${INCOMING} (${PROJECT_COLUMNS.map((c) => `${c.column} ${c.sqlType}`).join(', ')}, row_hash bigint) ON COMMIT DROP`;

const READ_ROWS = `COPY (SELECT id, row_hash, removed_at IS NOT NULL FROM ${TABLE} ORDER BY id) TO STDOUT`;

/**
 * Settles the projects that reached the temporary table: those new, changed (another row hash) or
 * listed again. New ones are inserted; an existing one is updated only when a value differs
 * (row-wise IS DISTINCT FROM, so null = null), when it comes back after being marked removed, or
 * when its stored hash differs (a table written before `row_hash` existed); `changed_at` moves only
 * when a value differs. `updated` counts the rows whose values changed or that were listed again
 * ($1: the IDs listed again), not those that only got their hash.
 */
const UPSERT = `WITH up AS (
  INSERT INTO ${TABLE} AS t (${colList}, row_hash, changed_at, removed_at)
  SELECT ${colList}, row_hash, now(), NULL FROM ${INCOMING}
  ON CONFLICT (id) DO UPDATE SET
    ${cols.map((c) => `${c} = EXCLUDED.${c}`).join(', ')},
    row_hash = EXCLUDED.row_hash,
    changed_at = CASE WHEN ${tRow} IS DISTINCT FROM ${newRow} THEN EXCLUDED.changed_at ELSE t.changed_at END,
    removed_at = NULL
  WHERE ${tRow} IS DISTINCT FROM ${newRow} OR t.removed_at IS NOT NULL OR t.row_hash IS DISTINCT FROM EXCLUDED.row_hash
  RETURNING id, (xmax = 0) AS inserted, changed_at = now() AS changed
)
SELECT count(*) FILTER (WHERE inserted)::int AS inserted,
  count(*) FILTER (WHERE NOT inserted AND (changed OR id = ANY($1::bigint[])))::int AS updated
FROM up`;

const MARK_REMOVED = `UPDATE ${TABLE} SET removed_at = now() WHERE id = ANY($1::bigint[]) AND removed_at IS NULL`;

/**
 * Writes an export's projects into `buildsync_projects` (docs/data-teams.md) in one transaction;
 * nothing is visible to other sessions until `commit()`, and `abort()` (a failed or interrupted
 * export) leaves the table as it was.
 *
 * How, so that a nightly run costs about what the CSV export costs (bench/export-postgres.ts):
 * - At the start the transaction reads every row's ID, `row_hash` and whether it is marked
 *   removed (one COPY of three small columns, 17 bytes per row kept: table-rows.ts).
 * - Into an empty table (the first export) the projects stream straight into it through COPY.
 * - Otherwise a listed project whose hash matches its row's, and that is not marked removed, is
 *   not sent at all; the others (new, changed, listed again) stream through COPY into a
 *   temporary table, and one upsert settles them. Rows the listing did not show get
 *   `removed_at`, by ID. A re-run with nothing changed sends no project and touches no row.
 * Memory stays flat: lines are written as the listing is read, with backpressure.
 *
 * The comparison is with the table itself, not with the change state in Redis (which a `--changes`
 * file export also replaces). A row edited by hand in the table keeps its hash, so it is repaired
 * only when the project changes (or when its `row_hash` is set to null).
 *
 * The table is created on first use in the first schema of the connection's `search_path`
 * (`?options=-c search_path=NAME` in the URL picks one). Exports into the same table wait for
 * each other (a transaction-scoped advisory lock taken before the rows are read), so two never
 * interleave between reading the table and writing it.
 */
export class PostgresProjectSink {
  counts: UpsertCounts | undefined;
  private copy: CopyStreamQuery | undefined;
  private copyError: Error | undefined;
  private rows = new TableRows();
  /** `direct`: COPY into the (empty) table itself; `merge`: COPY candidates into the temporary table. */
  private mode: 'direct' | 'merge' = 'merge';
  /** After each row's hash: `\t` and the transaction's `now()` (the `changed_at` of rows copied straight into the table), or nothing. */
  private tail = Buffer.alloc(0);
  private batch = Buffer.allocUnsafe(COPY_BATCH_BYTES);
  private used = 0;
  private copied = 0;
  private state: 'open' | 'prepared' | 'done' = 'open';

  private constructor(
    private readonly client: pg.Client,
    private readonly where: string,
  ) {}

  static async open(opts: PostgresSinkOptions): Promise<PostgresProjectSink> {
    const where = redactUrl(opts.url.reveal());
    const client = new pg.Client({
      connectionString: opts.url.reveal(),
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
      application_name: 'buildsync export',
    });
    // An idle-connection error after the export ended must not crash the process.
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (err) {
      await client.end().catch(() => {});
      throw new DatabaseUnavailableError(where, err);
    }
    const sink = new PostgresProjectSink(client, where);
    try {
      await sink.begin();
    } catch (err) {
      await sink.abort();
      throw sink.wrap(err, 'preparing the table');
    }
    return sink;
  }

  private async begin(): Promise<void> {
    const c = this.client;
    await c.query('BEGIN');
    const { s: schema, now } = (await c.query<{ s: string | null; now: string }>('SELECT current_schema() AS s, now()::text AS now')).rows[0]!;
    if (!schema) {
      throw new DatabaseError(`${this.where}: no schema of its search_path exists; create the schema, or name an existing one with ?options=-c%20search_path%3DNAME`);
    }
    await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${schema}.${TABLE}`]);
    await c.query(CREATE_TABLE);
    // A table created before row_hash existed gets it (all null: the next export then rewrites
    // every row's hash once, without moving changed_at). Looked up first: ALTER TABLE would lock
    // the table against readers until this transaction ends, even when the column is there.
    if ((await c.query(HAS_ROW_HASH, [TABLE])).rowCount === 0) {
      await c.query(`ALTER TABLE ${TABLE} ADD COLUMN row_hash bigint`);
    }
    await this.readRows();
    if (this.rows.size === 0) {
      this.mode = 'direct';
      this.tail = Buffer.from(`\t${now}`, 'latin1');
      this.copy = c.query(copyFrom(`COPY ${TABLE} (${colList}, row_hash, changed_at) FROM STDIN`, { highWaterMark: COPY_HIGH_WATER }));
    } else {
      await c.query(CREATE_INCOMING);
      this.copy = c.query(copyFrom(`COPY ${INCOMING} (${colList}, row_hash) FROM STDIN`, { highWaterMark: COPY_HIGH_WATER }));
    }
    this.copy.on('error', (err: Error) => (this.copyError ??= err));
  }

  private async readRows(): Promise<void> {
    const parser = new TableRowsParser(this.rows);
    const out = this.client.query(copyTo(READ_ROWS));
    for await (const chunk of out) parser.push(chunk as Buffer);
    parser.end();
  }

  /** Adds one project; returns a promise only when PostgreSQL is behind (backpressure). */
  write(record: Record<string, unknown>): void | Promise<void> {
    if (this.copyError) throw this.wrap(this.copyError, 'copying the projects');
    const row = copyRow(record);
    if (this.mode === 'merge') {
      const at = this.rows.find(Number(record.ID));
      if (at >= 0) {
        this.rows.markSeen(at);
        if (this.rows.hashAt(at) === row.hash48 && !this.rows.isRemoved(at)) return;
      }
    }
    this.copied++;
    const bytes = row.copyBytes();
    // The line without its LF, then the hash (and changed_at) as the last columns: a tab, at most
    // 16 digits, the tail (`\tNOW` or nothing) and the LF.
    const need = bytes.length + 18 + this.tail.length;
    if (this.used + need <= this.batch.length) {
      this.append(bytes, row.hash48);
      return;
    }
    const wait = this.flush();
    if (need > this.batch.length) this.batch = Buffer.allocUnsafe(need);
    // Appended before waiting: the bytes are only valid until the next record is formatted.
    this.append(bytes, row.hash48);
    return wait;
  }

  private append(bytes: Buffer, hash48: number): void {
    const b = this.batch;
    let at = this.used + bytes.copy(b, this.used, 0, bytes.length - 1);
    b[at++] = 0x09;
    at = writeWholeNumber(b, at, hash48);
    at += this.tail.copy(b, at);
    b[at++] = 0x0a;
    this.used = at;
  }

  /**
   * Hands the batch to the COPY stream. The stream keeps the buffer until the socket has sent it,
   * so the next batch gets a buffer of its own.
   */
  private flush(): Promise<void> | undefined {
    if (this.used === 0) return undefined;
    const ok = this.copy!.write(this.batch.subarray(0, this.used));
    this.batch = Buffer.allocUnsafe(COPY_BATCH_BYTES);
    this.used = 0;
    return ok ? undefined : this.drained();
  }

  private async drained(): Promise<void> {
    const copy = this.copy!;
    // events.once rejects when 'error' comes first: a refused row does not leave the export waiting.
    await once(copy, 'drain').catch((err: unknown) => {
      throw this.wrap(err, 'copying the projects');
    });
  }

  /** The listing ended: finish the COPY and settle the table, still uncommitted. */
  async prepare(): Promise<void> {
    const copy = this.copy!;
    try {
      if (this.copyError) throw this.copyError;
      this.flush();
      copy.end();
      await finished(copy);
      const c = this.client;
      if (this.mode === 'direct') {
        this.counts = { inserted: this.copied, updated: 0, removed: 0 };
      } else {
        let up = { inserted: 0, updated: 0 };
        if (this.copied > 0) up = (await c.query<{ inserted: number; updated: number }>(UPSERT, [this.rows.relisted()])).rows[0]!;
        const gone = this.rows.unseenListed();
        const removed = gone.length > 0 ? ((await c.query(MARK_REMOVED, [gone])).rowCount ?? 0) : 0;
        this.counts = { inserted: up.inserted, updated: up.updated, removed };
      }
      this.state = 'prepared';
    } catch (err) {
      throw this.wrap(err, 'writing the projects');
    }
  }

  async commit(): Promise<void> {
    if (this.state !== 'prepared') throw new DatabaseError(`${this.where}: commit before the projects were written`);
    try {
      await this.client.query('COMMIT');
      this.state = 'done';
    } catch (err) {
      throw this.wrap(err, 'committing');
    } finally {
      await this.client.end().catch(() => {});
    }
  }

  /** Rolls back whatever was written; never throws. */
  async abort(): Promise<void> {
    if (this.state === 'done') return;
    this.state = 'done';
    try {
      if (this.copy && !this.copy.writableFinished) {
        // Sends CopyFail (pg-copy-streams' destroy), which ends the COPY with an error.
        this.copy.destroy(new Error('export aborted'));
        await finished(this.copy).catch(() => {});
      }
      await withTimeout(this.client.query('ROLLBACK'), ROLLBACK_MS);
    } catch {
      // Closing the connection below rolls the transaction back all the same.
    } finally {
      await withTimeout(this.client.end(), ROLLBACK_MS).catch(() => {});
    }
  }

  private wrap(err: unknown, doing: string): Error {
    if (err instanceof DatabaseError || err instanceof DatabaseUnavailableError) return err;
    const e = err as Error & { code?: string };
    // Connection-level failures (no SQLSTATE) may pass; an SQL error will happen again.
    if (!e.code || /^(08|57P)/.test(e.code) || /ECONN|ETIMEDOUT|EPIPE|terminated/i.test(e.message ?? '')) {
      return new DatabaseUnavailableError(this.where, err, doing);
    }
    return new DatabaseError(`${this.where}: ${doing} failed: ${e.message}${e.code ? ` (SQLSTATE ${e.code})` : ''}`, { cause: err });
  }
}
