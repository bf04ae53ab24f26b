/**
 * Issue 17: two `--to postgres` exports of the same account into the same table at the same time
 * (docs/data-teams.md). src/export/postgres/postgres.ts takes a transaction-scoped advisory lock on
 * `schema.buildsync_projects` before it reads the table, so the second waits for the first to
 * commit, then reads the rows the first wrote: no duplicate key, no row written twice.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ExportJobResult } from '../src/queue/index.ts';
import { exportRig, type ExportRig } from './helpers/export-rig.ts';
import { testSchema, type TestSchema } from './helpers/postgres.ts';

let rig: ExportRig | undefined;
let db: TestSchema | undefined;
afterEach(async () => {
  await rig?.close();
  await db?.drop();
  rig = undefined;
  db = undefined;
});

/**
 * Sessions waiting for the advisory lock of this schema's table: pg_advisory_xact_lock(bigint)
 * shows in pg_locks with the key's high half in `classid` and its low half in `objid`.
 */
const WAITING_FOR_TABLE_LOCK = `SELECT count(*)::int AS n FROM pg_locks
  WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND classid = ((hashtext($1)::bigint >> 32) & 4294967295)::oid
    AND objid = (hashtext($1)::bigint & 4294967295)::oid`;

describe('two exports --to postgres into one table at once', () => {
  it('both succeed, the second waits for the first and finds its rows, and the table holds exactly the listing', async () => {
    db = await testSchema();
    // 200 projects, 10 per page, 60 ms per request: each listing takes over a second, so the two
    // jobs (the exports worker runs two at once) overlap.
    rig = await exportRig({ projects: 200, latencyMs: 60, limits: 'none' });
    const sb = rig.sandbox;
    await rig.startHost({ env: { ...rig.env, BUILDSYNC_EXPORT_DATABASE_URL: db.url } });

    const jobs = await Promise.all([rig.submit({ to: 'postgres', source: 'paged', pageSize: 10 }), rig.submit({ to: 'postgres', source: 'paged', pageSize: 10 })]);
    // Watch for the second export waiting on the table's lock while the first holds it.
    let sawWaiting = false;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const [{ n }] = (await db!.query<{ n: number }>(WAITING_FOR_TABLE_LOCK, [`${db!.name}.buildsync_projects`])) as [{ n: number }];
        if (n > 0) sawWaiting = true;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const settled = await Promise.all(jobs.map((j) => rig!.settle(j, 25_000))).finally(() => (watching = false));
    await watcher;

    for (const s of settled) expect(s.state, s.job.failedReason).toBe('completed');
    expect(sawWaiting, 'one export waited on the table lock while the other held it').toBe(true);

    const listed = sb.visibleProjectIds(sb.credentials.email, true).filter((id) => sb.project(id)!.NAME !== 'My Documents');
    const rows = await db.query<{ id: string; name: string; removed_at: Date | null }>('SELECT id, name, removed_at FROM buildsync_projects ORDER BY id');
    expect(rows.map((r) => Number(r.id))).toEqual([...listed].sort((a, b) => a - b));
    for (const r of rows) {
      expect(r.name).toBe(sb.project(Number(r.id))!.NAME);
      expect(r.removed_at).toBeNull();
    }

    // The one that got the lock first created every row; the other saw them all, unchanged.
    const counts = settled
      .map((s) => (s.job.returnvalue as ExportJobResult).postgres!)
      .sort((a, b) => b.inserted - a.inserted);
    expect(counts).toEqual([
      { inserted: listed.length, updated: 0, removed: 0 },
      { inserted: 0, updated: 0, removed: 0 },
    ]);
    for (const s of settled) expect((s.job.returnvalue as ExportJobResult).projects).toBe(listed.length);
  });
});
