/**
 * Issue 17 through the binary: `export projects --changes` writes `NAME-changes.csv` beside the
 * export file (first run: every project `added`), `--no-queue --to postgres` upserts from the
 * command's own process, and a bad or missing database URL is a configuration error that never
 * prints the password (docs/data-teams.md).
 */
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRig, type ExportRig } from './helpers/export-rig.ts';
import { runCli, type CliResult } from './helpers/cli.ts';
import { testSchema, type TestSchema } from './helpers/postgres.ts';
import { REDIS_URL } from './helpers/redis.ts';

let rig: ExportRig;
let db: TestSchema;
beforeAll(async () => {
  rig = await exportRig({ projects: 25 });
  db = await testSchema();
});
afterAll(async () => {
  await rig.close();
  await db.drop();
});

/** The CLI over this process's environment and the rig's. */
function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, { ...process.env, ...rig.env, REDIS_URL, BUILDSYNC_PREFIX: rig.prefix, LOG_LEVEL: 'warn', ...env }, { cwd: rig.dir, timeoutMs: 60_000 });
}

const changesOf = async (file: string) => parse(await readFile(file, 'utf8'), { columns: true }) as Record<string, string>[];

describe('export projects --changes (CLI)', () => {
  it('writes the changes file beside the export file: all added at first, then exactly what changed', async () => {
    const out = path.join(rig.dir, 'nightly.jsonl');
    const first = await cli(['export', 'projects', '--no-queue', '--changes', '--format', 'jsonl', '--out', out]);
    expect(first.stderr).not.toMatch(/error/i);
    expect(first.code).toBe(0);
    const changesFile = path.join(rig.dir, 'nightly-changes.csv'); // always CSV
    const all = await changesOf(changesFile);
    const exported = (await readFile(out, 'utf8')).trim().split('\n').map((l) => (JSON.parse(l) as { ID: number }).ID);
    expect(all.map((r) => Number(r.ID))).toEqual(exported);
    expect(new Set(all.map((r) => r.change))).toEqual(new Set(['added']));
    expect(first.stdout).toContain(`changes: ${exported.length} added, 0 changed, 0 removed`);

    rig.sandbox.editProject(exported[3]!, { CITY: 'Springfield' });
    // Through the queue this time (the command's own worker): the state is shared in Redis.
    const second = await cli(['export', 'projects', '--changes', '--format', 'jsonl', '--out', out, '--json']);
    expect(second.code).toBe(0);
    const summary = JSON.parse(second.stdout.trim().split('\n').at(-1)!) as { changes: { added: number; changed: number; removed: number; path: string } };
    expect(summary.changes).toEqual({ path: changesFile, added: 0, changed: 1, removed: 0 });
    const rows = await changesOf(changesFile);
    expect(rows.map((r) => [r.change, Number(r.ID), r.CITY])).toEqual([['changed', exported[3], 'Springfield']]);
  });

  it('upserts into PostgreSQL with --no-queue, and names a missing or bad database URL without its password', async () => {
    const ok = await cli(['export', 'projects', '--no-queue', '--to', 'postgres'], { BUILDSYNC_EXPORT_DATABASE_URL: db.url });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/upserted \d+ projects into buildsync_projects/);
    // Its progress counts projects only: into PostgreSQL no file grows, so no "0.0 MB".
    expect(ok.stderr).toMatch(/export: \d+ projects$/m);
    expect(ok.stderr).not.toContain(' MB');
    const n = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM buildsync_projects'))[0]!.n;
    expect(n).toBeGreaterThan(20);
    await expect(access(path.join(rig.dir, 'exports'))).rejects.toThrow(); // no export file, no changes file

    const missing = await cli(['export', 'projects', '--no-queue', '--to', 'postgres'], { BUILDSYNC_EXPORT_DATABASE_URL: '' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('BUILDSYNC_EXPORT_DATABASE_URL');

    const unreachable = await cli(['export', 'projects', '--no-queue', '--to', 'postgres'], { BUILDSYNC_EXPORT_DATABASE_URL: 'postgres://postgres:hunter2-secret@127.0.0.1:1/test' });
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toContain('BUILDSYNC_DATABASE_UNAVAILABLE');
    expect(unreachable.stderr).not.toContain('hunter2-secret');
    expect(unreachable.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});
