import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers } from '../src/queue/index.ts';
import { REDIS_URL } from './helpers/redis.ts';
import { csv, freeProjectIds, parseReport, silentLog, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { runCli } from './helpers/cli.ts';

// `buildsync import` as a user runs it: a child process, its environment, its exit code
// (README, Commands: 0 done, 1 some rows invalid or failed, 2 usage/config, 3 credentials refused).
let rig: E2eRig;
let free: number[];
const HEADER = ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost'];
const estimate = (project: number, name: string, qty: string | number = 1) => [project, name, 'General', 'Labor', 'Crew day', qty, '640'];

beforeAll(async () => {
  rig = await startE2eRig();
  free = freeProjectIds(rig.sandbox);
});
afterAll(() => rig?.close());

describe('buildsync import exit codes', () => {
  it('0 when everything was created; the report defaults to FILE.report.csv', async () => {
    const file = rig.file('ok.csv', csv(HEADER, [estimate(free[0]!, 'One'), estimate(free[1]!, 'Two')]));
    const res = await runCli(['import', 'estimates', file], rig.env, { cwd: rig.dir });
    expect(res.stderr).not.toMatch(/unexpected error/);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/estimates: 2 rows, 2 records: created 2, exists 0, skipped 0, failed 0, unknown 0; invalid rows 0/);
    expect(res.stdout).toContain(`report: ${file}.report.csv`);
    const report = parseReport(readFileSync(`${file}.report.csv`, 'utf8'));
    const ids = rig.sandbox.estimates().map((e) => String(e.id));
    expect(report.map((r) => [r.line, r.status, r.id])).toEqual([
      ['2', 'created', ids[0]],
      ['3', 'created', ids[1]],
    ]);
  });

  it('1 when some rows are invalid (the valid ones are still created)', async () => {
    const file = rig.file('partial.csv', csv(HEADER, [estimate(free[2]!, 'Three'), estimate(free[3]!, 'Four', 'twelve')]));
    const res = await runCli(['import', 'estimates', file], rig.env, { cwd: rig.dir });
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/created 1, .*invalid rows 1/);
    const report = parseReport(readFileSync(`${file}.report.csv`, 'utf8'));
    expect(report.map((r) => r.status)).toEqual(['created', 'invalid']);
    expect(report[1]!.message).toMatch(/twelve/);
  });

  it('2 for a missing file, an unknown column or a bad flag, sending nothing', async () => {
    const posts = rig.sandbox.requests().filter((r) => r.method === 'POST').length;

    const unknownColumn = rig.file('extra.csv', csv([...HEADER, 'colour'], [[...estimate(free[4]!, 'Five'), 'red']]));
    // Independent runs: started together to keep the suite fast.
    const [missing, col, flag] = await Promise.all([
      runCli(['import', 'estimates', join(rig.dir, 'nope.csv')], rig.env, { cwd: rig.dir }),
      runCli(['import', 'estimates', unknownColumn], rig.env, { cwd: rig.dir }),
      runCli(['import', 'estimates', unknownColumn, '--no-such-flag'], rig.env, { cwd: rig.dir }),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.csv: no such file/);
    expect(col.code).toBe(2);
    expect(col.stderr).toMatch(/unknown column.*colour/i);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/unknown option '--no-such-flag'/);

    expect(rig.sandbox.requests().filter((r) => r.method === 'POST').length).toBe(posts);
  });

  it('3 when the service refuses the credentials, whether the CLI or the worker sends them', async () => {
    const file = rig.file('auth.csv', csv(HEADER, [estimate(free[5]!, 'Six')]));
    const wrong = { ...rig.env, BUILDSYNC_PASSWORD: 'not-the-password' };
    const res = await runCli(['import', 'estimates', file], wrong, { cwd: rig.dir });
    expect(res.code).toBe(3);
    expect(res.stderr).not.toContain('not-the-password');

    // The CLI's credentials are right (its listing works) but the worker's are not: every
    // create is refused with 401 and the import still ends with 3.
    const worker = await startWorkers({ redisUrl: REDIS_URL, prefix: rig.prefix, concurrency: 2, env: wrong, log: silentLog });
    try {
      const viaWorker = await runCli(['import', 'estimates', file], rig.env, { cwd: rig.dir });
      expect(viaWorker.code, viaWorker.stdout + viaWorker.stderr).toBe(3);
      expect(viaWorker.stdout).toMatch(/failed 1/);
      const report = parseReport(readFileSync(`${file}.report.csv`, 'utf8'));
      expect(report[0]).toMatchObject({ status: 'failed' });
      expect(report[0]!.message).toMatch(/401|credentials|denied/i);
      expect(report[0]!.message).not.toContain('not-the-password');
    } finally {
      await worker.close();
    }
    expect(rig.sandbox.estimates().some((e) => e.projectId === free[5])).toBe(false);
  });

  it('--detach prints the import id and returns; jobs report ID --out later writes the same report', async () => {
    const file = rig.file('detached.csv', csv(HEADER, [estimate(free[6]!, 'Seven'), estimate(free[7]!, 'Eight', 'x'), estimate(free[8]!, 'Nine')]));
    const res = await runCli(['import', 'estimates', file, '--detach'], rig.env, { cwd: rig.dir });
    expect(res.code).toBe(0);
    const importId = res.stdout.trim();
    expect(importId).toMatch(/^import-\d{4}-\d{2}-\d{2}-[0-9a-f]{8}$/);
    expect(res.stderr).toContain(`buildsync jobs show ${importId}`);
    expect(existsSync(`${file}.report.csv`)).toBe(false); // nothing ran yet

    // A worker comes along later and finishes it; it writes the report where the import asked.
    await rig.workers();
    await rig.waitForImport(importId);
    const byWorker = readFileSync(`${file}.report.csv`, 'utf8');

    const out = join(rig.dir, 'later.csv');
    const later = await runCli(['jobs', 'report', importId, '--out', out], rig.env, { cwd: rig.dir });
    expect(later.code).toBe(0);
    expect(later.stdout).toContain(`wrote 3 report lines to ${out}`);
    expect(readFileSync(out, 'utf8')).toBe(byWorker);
    const report = parseReport(byWorker);
    expect(report.map((r) => [r.line, r.status])).toEqual([
      ['2', 'created'],
      ['3', 'invalid'],
      ['4', 'created'],
    ]);
    const idOf = (p: number) => String(rig.sandbox.estimates().find((e) => e.projectId === p)!.id);
    expect(report[0]!.id).toBe(idOf(free[6]!));
    expect(report[2]!.id).toBe(idOf(free[8]!));
  });
});
