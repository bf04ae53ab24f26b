/**
 * `--to postgres` compares the listing with the table itself (its `row_hash` column), not with the
 * change state in Redis: a project is sent to the database only when it is new, changed or listed
 * again, and the table stays right when a `--changes` file export replaced the Redis state in
 * between, or when the table has no hashes yet. Runs the engine against this machine's PostgreSQL
 * (a schema of the test's own), Redis (a prefix of its own) and the sandbox over HTTP.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../src/api/index.ts';
import { runExport, type ProjectExportSpec } from '../src/export/run-export.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { Secret } from '../src/secret.ts';
import { testSchema, type TestSchema } from './helpers/postgres.ts';
import { testRedis } from './helpers/redis.ts';
import { exportStateKeyOf } from '../src/redis/layout.ts';
import { legacySha1 } from '../src/export/postgres/copy-row.ts';

interface Row {
  id: string;
  name: string;
  xmin: string;
  row_hash: string | null;
  changed_at: Date;
  removed_at: Date | null;
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  closers.length = 0;
});

async function setUp(projects: number) {
  const sandbox: Sandbox = await startSandbox({ projects });
  closers.push(() => sandbox.close());
  const db: TestSchema = await testSchema();
  closers.push(() => db.drop());
  const { redis, prefix, cleanup } = await testRedis();
  closers.push(async () => {
    await cleanup();
    redis.disconnect();
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'export-pg-compare-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  const client = new ServiceClient({ baseUrl: sandbox.url, ...sandbox.credentials });
  closers.push(() => client.close());
  const spec: ProjectExportSpec = { source: 'v2', includeClientSub: true, pageSize: 500, format: 'csv', myDocuments: 'exclude', out: path.join(dir, 'projects.csv') };
  const services = { databaseUrl: new Secret(db.url), changeState: { redis, prefix, account: 'default' } };
  const toPostgres = () => runExport(client, { ...spec, to: 'postgres' }, services);
  const csvWithChanges = () => runExport(client, { ...spec, changes: true }, services);
  const rows = async (hashed = true) =>
    new Map(
      (await db.query<Row>(`SELECT id, name, xmin::text AS xmin, ${hashed ? 'row_hash::text' : 'NULL'} AS row_hash, changed_at, removed_at FROM buildsync_projects`)).map((r) => [Number(r.id), r]),
    );
  const listed = sandbox.visibleProjectIds(sandbox.credentials.email, true).filter((id) => sandbox.project(id)!.NAME !== 'My Documents');
  return { sandbox, db, redis, prefix, toPostgres, csvWithChanges, rows, listed };
}

/** IDs whose row got a new version between two snapshots. */
function touched(before: Map<number, Row>, after: Map<number, Row>): number[] {
  return [...after.values()].filter((r) => before.get(Number(r.id))?.xmin !== r.xmin).map((r) => Number(r.id)).sort((a, b) => a - b);
}

describe('export --to postgres compares with the table', () => {
  it('updates a project the Redis state already holds (a --changes export ran in between), and clears removed_at of one listed again', async () => {
    const { sandbox, db, toPostgres, csvWithChanges, rows, listed } = await setUp(60);
    expect((await toPostgres()).postgres).toEqual({ inserted: listed.length, updated: 0, removed: 0 });
    const first = await rows();
    expect([...first.values()].every((r) => r.row_hash !== null)).toBe(true);

    const edited = listed[3]!;
    sandbox.editProject(edited, { NAME: 'Edited\tbetween two table exports' });
    // The file export with --changes records the edit in the Redis state…
    expect((await csvWithChanges()).changes).toMatchObject({ added: 0, changed: 1, removed: 0 });
    // …and a project marked removed by hand is listed all the same.
    const relisted = listed[7]!;
    await db.query('UPDATE buildsync_projects SET removed_at = now() WHERE id = $1', [relisted]);
    const before = await rows();
    await new Promise((r) => setTimeout(r, 20)); // changed_at must be able to move

    const second = await toPostgres();
    expect(second.postgres).toEqual({ inserted: 0, updated: 2, removed: 0 });
    // The Redis state had the edit already: the change counts come from it, the table from itself.
    expect(second.changes).toMatchObject({ added: 0, changed: 0, removed: 0 });
    const after = await rows();
    expect(touched(before, after)).toEqual([edited, relisted].sort((a, b) => a - b));
    expect(after.get(edited)!.name).toBe('Edited\tbetween two table exports');
    expect(after.get(edited)!.changed_at.getTime()).toBeGreaterThan(before.get(edited)!.changed_at.getTime());
    expect(after.get(relisted)!.removed_at).toBeNull();
    expect(after.get(relisted)!.changed_at).toEqual(before.get(relisted)!.changed_at);
  });

  it('fills in the hashes of a table written without them, moving no changed_at, then leaves every row alone', async () => {
    const { db, toPostgres, rows, listed } = await setUp(40);
    await toPostgres();
    // A table as the first version created it: no row_hash column.
    await db.query('ALTER TABLE buildsync_projects DROP COLUMN row_hash');
    const before = await rows(false);

    expect((await toPostgres()).postgres).toEqual({ inserted: 0, updated: 0, removed: 0 });
    const filled = await rows();
    expect(filled.size).toBe(listed.length);
    for (const [id, r] of filled) {
      expect(r.row_hash).not.toBeNull();
      expect(r.changed_at).toEqual(before.get(id)!.changed_at);
      expect(r.removed_at).toBeNull();
    }

    expect((await toPostgres()).postgres).toEqual({ inserted: 0, updated: 0, removed: 0 });
    expect(touched(filled, await rows())).toEqual([]);
  });

  it('reads a change state written by the first version (hash of the decoded line) without reporting unchanged projects as changed', async () => {
    const { sandbox, redis, prefix, csvWithChanges, listed } = await setUp(40);
    expect((await csvWithChanges()).changes).toMatchObject({ added: listed.length, changed: 0, removed: 0 });
    const key = exportStateKeyOf(redis, prefix, 'default', 'v2:true:exclude');
    const state = await redis.hgetall(key);
    expect(Object.values(state).every((v) => v.startsWith('~'))).toBe(true);
    // Rewritten as the first version wrote it: no '~', the hash of the line with SCOPE_OF_WORK decoded.
    const legacy = Object.entries(state).flatMap(([id, v]) => [id, `${legacySha1(sandbox.project(Number(id))!).slice(0, 16)}${v.slice(17)}`]);
    await redis.hset(key, ...legacy);
    expect(listed.some((id) => String(sandbox.project(id)!.SCOPE_OF_WORK).includes('%'))).toBe(true);

    const edited = listed[2]!;
    sandbox.editProject(edited, { CITY: 'Elsewhere' });
    const next = await csvWithChanges();
    expect(next.changes).toMatchObject({ added: 0, changed: 1, removed: 0 });
    // …and the state is written in the new form.
    expect(Object.values(await redis.hgetall(key)).every((v) => v.startsWith('~'))).toBe(true);
    expect((await csvWithChanges()).changes).toMatchObject({ added: 0, changed: 0, removed: 0 });
  });
});
