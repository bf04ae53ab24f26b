import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csv, freeProjectIds, parseReport, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { onlyJson, runCli } from './helpers/cli.ts';

// Scripting the CLI: `--json` (one object on stdout, the documented keys, in order), `-` for
// standard output, and progress on stderr only.
let rig: E2eRig;
let free: number[];
const SAMPLES = join(import.meta.dirname, '..', 'samples');
const IMPORT_KEYS = ['status', 'importId', 'kind', 'file', 'rows', 'records', 'counts', 'ignored', 'report', 'errorsFile', 'exitCode', 'error'];
const COUNT_KEYS = ['created', 'exists', 'skipped', 'failed', 'unknown', 'invalidRows'];
const HEADER = ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost'];

beforeAll(async () => {
  rig = await startE2eRig();
  free = freeProjectIds(rig.sandbox);
});
afterAll(() => rig?.close());

describe('import --json', () => {
  it('prints one summary object; a re-run is all skipped, and its plain progress ends at N/N skipped N', async () => {
    const bills = join(rig.dir, 'bills.csv');
    copyFileSync(join(SAMPLES, 'bills.csv'), bills);
    const args = ['import', 'bills', bills, '--vendors', join(SAMPLES, 'vendors.csv'), '--json'];
    const first = await runCli(args, rig.env, { cwd: rig.dir });
    expect(first.code, first.stderr).toBe(0);
    const a = onlyJson(first.stdout);
    expect(Object.keys(a)).toEqual(IMPORT_KEYS);
    expect(Object.keys(a.counts as object)).toEqual(COUNT_KEYS);
    expect(a).toMatchObject({ status: 'done', kind: 'bills', file: bills, rows: 7, records: 4, report: `${bills}.report.csv`, errorsFile: null, exitCode: 0, error: null });
    expect(a.counts).toEqual({ created: 4, exists: 0, skipped: 0, failed: 0, unknown: 0, invalidRows: 0 });
    // No row outside the table: the object is there, empty (README, "Scripting").
    expect(a.ignored).toEqual({});
    expect(a.importId).toMatch(/^import-/);
    expect(parseReport(readFileSync(`${bills}.report.csv`, 'utf8')).map((r) => r.status)).toEqual(Array(7).fill('created'));

    const again = await runCli(args, rig.env, { cwd: rig.dir });
    expect(again.code, again.stderr).toBe(0);
    const b = onlyJson(again.stdout);
    expect(b.counts).toEqual({ created: 0, exists: 0, skipped: 4, failed: 0, unknown: 0, invalidRows: 0 });
    expect(b.importId).not.toBe(a.importId);
    // No terminal here: plain lines on stderr, the last one the final state with every outcome.
    const progress = again.stderr.split('\n').filter((l) => l.startsWith('bills: '));
    expect(progress.at(-1)).toMatch(/^bills: 4\/4 created 0 exists 0 skipped 4 failed 0 unknown 0( \| .*)?$/);
    expect(rig.sandbox.bills()).toHaveLength(4);
  });

  it('a failure before any summary is still one object of the same shape, status failed, with the exit code and the error code', async () => {
    const missing = join(rig.dir, 'nope.csv');
    const r = await runCli(['import', 'bills', missing, '--json'], rig.env, { cwd: rig.dir });
    expect(r.code).toBe(2);
    const f = onlyJson(r.stdout);
    expect(Object.keys(f)).toEqual(IMPORT_KEYS);
    expect(f).toMatchObject({ status: 'failed', importId: null, kind: 'bills', file: missing, ignored: {}, exitCode: 2, error: { code: 'BUILDSYNC_FILE_UNREADABLE', message: `${missing}: no such file; check the path` } });
    expect(r.stderr).toContain(`buildsync: ${missing}: no such file`);
  });

  it('a dry run and a detached import say so in the same shape; jobs list|show --json and jobs report follow the import', async () => {
    const file = rig.file('one.csv', csv(HEADER, [[free[0]!, 'Kitchen', 'General', 'Labor', 'Crew day', 1, 640]]));
    const dry = await runCli(['import', 'estimates', file, '--dry-run', '--json'], rig.env, { cwd: rig.dir });
    expect(dry.code, dry.stderr).toBe(0);
    const d = onlyJson(dry.stdout);
    expect(Object.keys(d)).toEqual(IMPORT_KEYS);
    expect(d).toMatchObject({ status: 'dry-run', importId: null, rows: 1, records: 1, exitCode: 0 });
    // One row, one estimate: singular words.
    expect(dry.stderr).toContain('dry run: 1 row -> 1 estimate to send, 0 invalid rows');

    const detached = await runCli(['import', 'estimates', file, '--detach', '--json'], rig.env, { cwd: rig.dir });
    expect(detached.code, detached.stderr).toBe(0);
    const s = onlyJson(detached.stdout);
    expect(s).toMatchObject({ status: 'submitted', kind: 'estimates', rows: 1, records: 1, report: `${file}.report.csv`, exitCode: 0 });
    const importId = s.importId as string;
    await rig.workers();
    await rig.waitForImport(importId);

    const show = await runCli(['jobs', 'show', importId, '--json'], rig.env, { cwd: rig.dir });
    expect(show.code, show.stderr).toBe(0);
    const j = onlyJson(show.stdout);
    expect(Object.keys(j)).toEqual(['id', 'kind', 'queue', 'state', 'attempts', 'created', 'started', 'finished', 'seconds', 'account', 'error', 'import', 'export', 'budget', 'etaSeconds']);
    expect(j).toMatchObject({ id: importId, kind: 'import-estimates', state: 'completed', account: 'default', error: null, export: null });
    // The worker runs on this machine, so it wrote the report where the import asked.
    expect(j.import).toMatchObject({ rows: 1, records: 1, pending: 0, report: `${file}.report.csv`, reportCommand: `buildsync jobs report ${importId} --out report.csv` });
    expect((j.import as { counts: object }).counts).toMatchObject({ created: 1 });
    const human = await runCli(['jobs', 'show', importId], rig.env, { cwd: rig.dir });
    expect(human.stdout).toContain(`report    ${file}.report.csv`);
    expect(human.stdout).toContain('(1 row, 1 record)');

    const list = await runCli(['jobs', 'list', '--json'], rig.env, { cwd: rig.dir });
    const jobs = (onlyJson(list.stdout).jobs as Array<Record<string, unknown>>);
    const entry = jobs.find((e) => e.id === importId)!;
    expect(Object.keys(entry)).toEqual(['id', 'kind', 'state', 'created', 'finished', 'seconds', 'account', 'result', 'error']);
    expect(entry).toMatchObject({ kind: 'import-estimates', state: 'completed', account: 'default', error: null });

    // The report on standard output, with no --out and with --out -; no file named "-".
    const [plain, dash] = await Promise.all([
      runCli(['jobs', 'report', importId], rig.env, { cwd: rig.dir }),
      runCli(['jobs', 'report', importId, '--out', '-'], rig.env, { cwd: rig.dir }),
    ]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout.split('\n')[0]).toBe('line,record,status,id,message');
    expect(parseReport(plain.stdout).map((r) => r.status)).toEqual(['created']);
    expect(dash.stdout).toBe(plain.stdout);
    expect(existsSync(join(rig.dir, '-'))).toBe(false);
  });
});

describe('export projects: --json and --out -', () => {
  it('--json prints the summary; --out - writes the file to stdout and creates no file named "-"', async () => {
    const out = join(rig.dir, 'projects.csv');
    const r = await runCli(['export', 'projects', '--out', out, '--json', '--include-client-sub', 'false'], rig.env, { cwd: rig.dir });
    expect(r.code, r.stderr).toBe(0);
    const e = onlyJson(r.stdout);
    expect(Object.keys(e)).toEqual(['status', 'jobId', 'path', 'format', 'projects', 'bytes', 'seconds', 'exitCode', 'error', 'to', 'changes', 'postgres']);
    expect(e).toMatchObject({ status: 'done', path: out, format: 'csv', exitCode: 0, error: null, to: 'file', changes: null, postgres: null });
    expect(e.jobId).toMatch(/^export-/);
    const text = readFileSync(out, 'utf8');
    expect(e.projects).toBe((parse(text, { columns: true }) as unknown[]).length);
    expect(e.bytes).toBe(Buffer.byteLength(text));

    // `no` reads as `false`: the same listing, here on standard output.
    const before = readdirSync(rig.dir).sort();
    const piped = await runCli(['export', 'projects', '--out', '-', '--include-client-sub', 'no'], rig.env, { cwd: rig.dir });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toBe(text);
    expect(piped.stderr).toContain(`wrote ${e.projects} projects to standard output`);
    expect(readdirSync(rig.dir).sort()).toEqual(before);

    const [both, maybe, changes] = await Promise.all([
      runCli(['export', 'projects', '--out', '-', '--json'], rig.env, { cwd: rig.dir }),
      runCli(['export', 'projects', '--include-client-sub', 'maybe'], rig.env, { cwd: rig.dir }),
      runCli(['export', 'projects', '--out', '-', '--changes'], rig.env, { cwd: rig.dir }),
    ]);
    // The changes file sits beside the export file: with the export on stdout there is none.
    expect(changes.code).toBe(2);
    expect(changes.stderr).toContain('give --out PATH with --changes');
    expect(changes.stdout).toBe('');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--out - and --json both write to standard output');
    expect(maybe.code).toBe(2);
    expect(maybe.stderr).toContain('--include-client-sub "maybe": expected true, false, yes or no');
  });
});

describe('schedule: cron in our words, the next run in the schedule\'s zone', () => {
  it('a bad cron exits 2 naming it and a valid example; list shows the zone, "never run", and --json', async () => {
    for (const cron of ['every night', '61 2 * * *']) {
      const bad = await runCli(['schedule', 'export-projects', '--cron', cron], rig.env, { cwd: rig.dir });
      expect(bad.code, cron).toBe(2);
      expect(bad.stderr.trim()).toBe(
        `buildsync: --cron ${JSON.stringify(cron)} is not a cron expression; write five fields, minute hour day-of-month month day-of-week, e.g. --cron "0 2 * * *" for 02:00 every night or "30 6 * * 1-5" for 06:30 on weekdays`,
      );
    }

    const add = await runCli(['schedule', 'export-projects', '--cron', '0 2 * * *', '--tz', 'America/Chicago', '--name', 'nightly', '--out-dir', rig.dir], rig.env, { cwd: rig.dir });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toMatch(/next run \d{4}-\d\d-\d\d 02:00 America\/Chicago$/m);

    const list = await runCli(['schedule', 'list'], rig.env, { cwd: rig.dir });
    expect(list.code, list.stderr).toBe(0);
    const row = list.stdout.split('\n').find((l) => l.startsWith('nightly\t'))!;
    expect(row).toMatch(/^nightly\t0 2 \* \* \*\t\d{4}-\d\d-\d\d 02:00 America\/Chicago\t.+\tnever run$/);

    const json = await runCli(['schedule', 'list', '--json'], rig.env, { cwd: rig.dir });
    const schedules = onlyJson(json.stdout).schedules as Array<Record<string, unknown>>;
    expect(schedules).toHaveLength(1);
    expect(Object.keys(schedules[0]!)).toEqual(['name', 'cron', 'tz', 'next', 'nextInZone', 'outDir', 'format', 'runs']);
    expect(schedules[0]).toMatchObject({ name: 'nightly', cron: '0 2 * * *', tz: 'America/Chicago', outDir: rig.dir, format: 'csv', runs: 0 });
    // The instant and the wall clock agree: 02:00 in Chicago is 07:00 or 08:00 UTC.
    expect(schedules[0]!.next).toMatch(/T0[78]:00:00\.000Z$/);
    expect(schedules[0]!.nextInZone).toMatch(/02:00 America\/Chicago$/);
  });
});
