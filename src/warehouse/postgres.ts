import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, type CopyStreamQuery } from 'pg-copy-streams';
import { DatabaseError, DatabaseUnavailableError, redactUrl } from '../errors/index.ts';
import type { Secret } from '../secret.ts';
import { withTimeout } from '../with-timeout.ts';
import { copyLine, PROJECT_COLUMNS, TABLE } from './columns.ts';

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

/** Lines are gathered into writes of about this many characters (few, large COPY messages). */
const COPY_BATCH_CHARS = 128 * 1024;
/** How long a rollback may take before the connection is simply closed (which rolls back too). */
const ROLLBACK_MS = 5_000;

const INCOMING = 'buildsync_incoming';
const cols = PROJECT_COLUMNS.map((c) => c.column);
const colList = cols.join(', ');
const tRow = `(${cols.map((c) => `t.${c}`).join(', ')})`;
const newRow = `(${cols.map((c) => `EXCLUDED.${c}`).join(', ')})`;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ${TABLE} (
  ${PROJECT_COLUMNS.map((c) => `${c.column} ${c.sqlType}${c.column === 'id' ? ' PRIMARY KEY' : ''}`).join(',\n  ')},
  changed_at timestamptz NOT NULL,
  removed_at timestamptz
)`;

const CREATE_INCOMING = `CREATE TEMPORARY TABLE ${INCOMING} (${PROJECT_COLUMNS.map((c) => `${c.column} ${c.sqlType}`).join(', ')}) ON COMMIT DROP`;

/**
 * One statement for every listed project: new ones are inserted, existing ones are updated only
 * when a value differs (row-wise IS DISTINCT FROM, so null = null) or when they come back after
 * being marked removed; `changed_at` moves only when a value differs. Rows whose values are the
 * same are not touched at all (no new row version, `xmin` stays).
 */
const iRow = `(${cols.map((c) => `i.${c}`).join(', ')})`;
const oRow = `(${cols.map((c) => `o.${c}`).join(', ')})`;
const UPSERT = `WITH up AS (
  INSERT INTO ${TABLE} AS t (${colList}, changed_at, removed_at)
  SELECT ${cols.map((c) => `i.${c}`).join(', ')}, now(), NULL
  FROM ${INCOMING} i LEFT JOIN ${TABLE} o ON o.id = i.id
  -- Only new or different rows reach ON CONFLICT: DO UPDATE locks every conflicting row, even one
  -- its WHERE then skips, and locking 200,000 unchanged rows rewrites every page of the table.
  WHERE o.id IS NULL OR ${oRow} IS DISTINCT FROM ${iRow} OR o.removed_at IS NOT NULL
  ON CONFLICT (id) DO UPDATE SET
    ${cols.map((c) => `${c} = EXCLUDED.${c}`).join(', ')},
    changed_at = CASE WHEN ${tRow} IS DISTINCT FROM ${newRow} THEN EXCLUDED.changed_at ELSE t.changed_at END,
    removed_at = NULL
  WHERE ${tRow} IS DISTINCT FROM ${newRow} OR t.removed_at IS NOT NULL
  RETURNING (xmax = 0) AS inserted
)
SELECT count(*) FILTER (WHERE inserted)::int AS inserted, count(*) FILTER (WHERE NOT inserted)::int AS updated FROM up`;

const MARK_REMOVED = `UPDATE ${TABLE} t SET removed_at = now()
WHERE t.removed_at IS NULL AND NOT EXISTS (SELECT 1 FROM ${INCOMING} i WHERE i.id = t.id)`;

/**
 * Writes an export's projects into `buildsync_projects` (CONTRACT.md §5b) in one transaction:
 * the projects stream into a temporary table through COPY while the listing is read (so memory
 * stays flat), then one upsert and one update settle the table. Nothing is visible to other
 * sessions until `commit()`; `abort()` (a failed or interrupted export) leaves the table as it was.
 *
 * The table is created on first use in the first schema of the connection's `search_path`
 * (`?options=-c search_path=NAME` in the URL picks one). Exports into the same table wait for
 * each other (a transaction-scoped advisory lock), so two never mark each other's rows removed
 * half-way.
 */
export class PostgresProjectSink {
  counts: UpsertCounts | undefined;
  private copy: CopyStreamQuery | undefined;
  private copyError: Error | undefined;
  private batch = '';
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
    const schema = (await c.query<{ s: string | null }>('SELECT current_schema() AS s')).rows[0]?.s;
    if (!schema) {
      throw new DatabaseError(`${this.where}: no schema of its search_path exists; create the schema, or name an existing one with ?options=-c%20search_path%3DNAME`);
    }
    await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${schema}.${TABLE}`]);
    await c.query(CREATE_TABLE);
    await c.query(CREATE_INCOMING);
    this.copy = c.query(copyFrom(`COPY ${INCOMING} (${colList}) FROM STDIN`));
    this.copy.on('error', (err: Error) => (this.copyError ??= err));
  }

  /** Adds one project; returns a promise only when PostgreSQL is behind (backpressure). */
  write(record: Record<string, unknown>): void | Promise<void> {
    if (this.copyError) throw this.wrap(this.copyError, 'copying the projects');
    this.batch += copyLine(record);
    if (this.batch.length < COPY_BATCH_CHARS) return;
    const ok = this.copy!.write(this.batch);
    this.batch = '';
    if (!ok) return this.drained();
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
      if (this.batch) copy.write(this.batch);
      this.batch = '';
      copy.end();
      await finished(copy);
      const c = this.client;
      // A temporary table has no statistics: without them the anti-join below may be planned as a
      // nested loop over 200,000 rows. Only `id` is joined on: statistics of the other 60 columns
      // would cost more than the upsert itself.
      await c.query(`ANALYZE ${INCOMING} (id)`);
      const up = (await c.query<{ inserted: number; updated: number }>(UPSERT)).rows[0]!;
      const removed = (await c.query(MARK_REMOVED)).rowCount ?? 0;
      this.counts = { inserted: up.inserted, updated: up.updated, removed };
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
