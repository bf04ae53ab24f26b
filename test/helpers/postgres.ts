import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** This machine's PostgreSQL (trust auth): PG_TEST_URL, or postgres@127.0.0.1:5432/test. */
export const PG_BASE_URL = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestSchema {
  name: string;
  /** BUILDSYNC_EXPORT_DATABASE_URL that writes into this schema (search_path through `options`). */
  url: string;
  query<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /** Drops the schema and everything in it. */
  drop(): Promise<void>;
}

/** A schema of the test's own, dropped by `drop()`. */
export async function testSchema(): Promise<TestSchema> {
  const name = `t_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const client = new pg.Client({ connectionString: PG_BASE_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA ${name}`);
  await client.query(`SET search_path TO ${name}`);
  const url = new URL(PG_BASE_URL);
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    name,
    url: url.toString(),
    async query(sql, params) {
      return (await client.query(sql, params)).rows;
    },
    async drop() {
      await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`).catch(() => {});
      await client.end().catch(() => {});
    },
  };
}
