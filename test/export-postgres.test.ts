/**
 * Issue 17: `export projects --to postgres --changes` through the queue, against this machine's
 * PostgreSQL (a schema of each test's own) and the sandbox over HTTP (docs/data-teams.md).
 */
import { access, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { exportStateKeyOf } from '../src/redis/layout.ts';
import type { ExportJobResult, WorkerHost } from '../src/queue/index.ts';
import { exportRig, type ExportRig } from './helpers/export-rig.ts';
import { testSchema, type TestSchema } from './helpers/postgres.ts';
import { REDIS_URL } from './helpers/redis.ts';

let rig: ExportRig;
let db: TestSchema;
afterEach(async () => {
  await rig?.close();
  await db?.drop();
});

interface Row {
  id: string;
  name: string;
  xmin: string;
  changed_at: Date;
  removed_at: Date | null;
}

async function rows(): Promise<Map<number, Row>> {
  const list = await db.query<Row>('SELECT id, name, xmin::text AS xmin, changed_at, removed_at FROM buildsync_projects');
  return new Map(list.map((r) => [Number(r.id), r]));
}

async function stateOf(redis: Redis, prefix: string): Promise<Record<string, string>> {
  return redis.hgetall(exportStateKeyOf(redis, prefix, 'default', 'v2:true:exclude'));
}

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

async function setUp(projects: number): Promise<WorkerHost> {
  db = await testSchema();
  rig = await exportRig({ projects });
  return rig.startHost({ env: { ...rig.env, BUILDSYNC_EXPORT_DATABASE_URL: db.url } });
}

describe('export --to postgres --changes', () => {
  it('creates every row, then updates exactly the added, edited and deleted projects and names exactly them in the changes file', async () => {
    const host = await setUp(40);
    const sb = rig.sandbox;
    const out = path.join(rig.dir, 'projects.csv');
    const changesFile = path.join(rig.dir, 'projects-changes.csv');

    const first = await rig.settle(await rig.submit({ to: 'postgres', changes: true, out }));
    expect(first.state).toBe('completed');
    const listed = sb.visibleProjectIds(sb.credentials.email, true).filter((id) => sb.project(id)!.NAME !== 'My Documents');
    const before = await rows();
    expect([...before.keys()].sort()).toEqual([...listed].sort());
    const r1 = first.job.returnvalue as ExportJobResult;
    expect(r1.postgres).toEqual({ inserted: listed.length, updated: 0, removed: 0 });
    expect(r1.changes).toMatchObject({ added: listed.length, changed: 0, removed: 0 });
    expect(await exists(out)).toBe(false); // --to postgres writes no export file
    const firstChanges = parse(await readFile(changesFile, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(firstChanges.map((r) => r.change)).toEqual(listed.map(() => 'added'));
    // Typed columns: the seed's integers, numbers, booleans and date-times.
    const types = await db.query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'buildsync_projects'`,
      [db.name],
    );
    const typeOf = Object.fromEntries(types.map((t) => [t.column_name, t.data_type]));
    expect(typeOf).toMatchObject({ id: 'bigint', lat: 'numeric', is_archived: 'boolean', lmod: 'timestamp without time zone', name: 'text', attach_folder_id: 'text', removed_at: 'timestamp with time zone' });

    // One added, one edited, one deleted.
    const added = sb.addProject({ NAME: 'Added tonight', PROJECT_NUMBER: 'P-NEW' });
    const edited = listed[5]!;
    sb.editProject(edited, { NAME: 'Renamed, "quoted"', TOTAL_MONEY: 12345.67 });
    const deleted = listed[15]!;
    const deletedRow = sb.project(deleted)!;
    sb.deleteProject(deleted);
    await new Promise((r) => setTimeout(r, 20)); // changed_at must be able to move

    const second = await rig.settle(await rig.submit({ to: 'postgres', changes: true, out }));
    expect(second.state).toBe('completed');
    const r2 = second.job.returnvalue as ExportJobResult;
    expect(r2.postgres).toEqual({ inserted: 1, updated: 1, removed: 1 });
    expect(r2.changes).toMatchObject({ added: 1, changed: 1, removed: 1 });

    const after = await rows();
    const touched = [...after.values()].filter((r) => before.get(Number(r.id))?.xmin !== r.xmin).map((r) => Number(r.id));
    expect(touched.sort()).toEqual([added, edited, deleted].sort());
    expect(after.get(edited)!.name).toBe('Renamed, "quoted"');
    expect(after.get(edited)!.changed_at.getTime()).toBeGreaterThan(before.get(edited)!.changed_at.getTime());
    expect(after.get(deleted)!.removed_at).not.toBeNull();
    expect(after.get(deleted)!.changed_at).toEqual(before.get(deleted)!.changed_at);
    expect(after.get(added)!.removed_at).toBeNull();
    expect(after.get(listed[0]!)!.changed_at).toEqual(before.get(listed[0]!)!.changed_at);

    const changes = parse(await readFile(changesFile, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(changes.map((r) => [r.change, Number(r.ID)]).sort()).toEqual(
      [
        ['added', added],
        ['changed', edited],
        ['removed', deleted],
      ].sort(),
    );
    const removed = changes.find((r) => r.change === 'removed')!;
    expect(removed.NAME).toBe(deletedRow.NAME);
    expect(removed.PROJECT_NUMBER).toBe(deletedRow.PROJECT_NUMBER);
    expect(removed.CITY).toBe('');

    // A third run with nothing changed changes no row and reports no change.
    const third = await rig.settle(await rig.submit({ to: 'postgres', changes: true, out }));
    expect((third.job.returnvalue as ExportJobResult).postgres).toEqual({ inserted: 0, updated: 0, removed: 0 });
    const again = await rows();
    expect([...again.values()].filter((r) => after.get(Number(r.id))!.xmin !== r.xmin)).toEqual([]);
    expect((parse(await readFile(changesFile, 'utf8')) as string[][]).length).toBe(1); // the header only

    // The staleness metrics show the last success (kept in Redis, so any worker shows them).
    const metrics = await host.metrics.registry.metrics();
    const at = Number(/buildsync_export_last_success_timestamp_seconds\{account="default",schedule=""\} (\S+)/.exec(metrics)?.[1]);
    expect(Date.now() / 1000 - at).toBeLessThan(30);
    expect(metrics).toContain(`buildsync_export_last_success_projects{account="default",schedule=""} ${listed.length}`);
    expect(metrics).toContain('buildsync_export_last_success_changes{account="default",schedule="",change="added"} 0');
  });

  it('leaves the table, the change state and the changes file as they were when the listing is cut mid-way', async () => {
    await setUp(300);
    const sb = rig.sandbox;
    const out = path.join(rig.dir, 'projects.csv');
    const changesFile = path.join(rig.dir, 'projects-changes.csv');
    const first = await rig.settle(await rig.submit({ to: 'postgres', changes: true, out }));
    expect(first.state).toBe('completed');
    const redis = new Redis(REDIS_URL);
    try {
      const tableBefore = await rows();
      const stateBefore = await stateOf(redis, rig.prefix);
      const changesBefore = await readFile(changesFile, 'utf8');
      expect(Object.keys(stateBefore).length).toBe(tableBefore.size);

      const listed = [...tableBefore.keys()];
      sb.editProject(listed[10]!, { NAME: 'Edited before the cut' });
      sb.deleteProject(listed[250]!);
      sb.addProject({ NAME: 'Added before the cut' });
      // 200 records (~450 KB, several COPY batches) reach the database, then the connection dies.
      sb.setFaults({ cutListingsAfter: 200 });
      const cut = await rig.settle(await rig.submit({ to: 'postgres', changes: true, out }), 60_000);
      expect(cut.state).toBe('failed');
      expect(cut.job.failedReason).toMatch(/^\[BUILDSYNC_NETWORK\]/);

      const tableAfter = await rows();
      expect([...tableAfter.entries()].map(([id, r]) => [id, r.xmin, r.name, r.removed_at])).toEqual(
        [...tableBefore.entries()].map(([id, r]) => [id, r.xmin, r.name, r.removed_at]),
      );
      expect(await stateOf(redis, rig.prefix)).toEqual(stateBefore);
      expect(await readFile(changesFile, 'utf8')).toBe(changesBefore);
      expect((await readdir(rig.dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      // No next state left behind by the three failed attempts.
      const leftovers = await redis.keys(`${exportStateKeyOf(redis, rig.prefix, 'default', 'v2:true:exclude')}:next:*`);
      expect(leftovers).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});
