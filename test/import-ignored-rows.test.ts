/**
 * Rows that are no part of any record (README, "Reports"): a QuickBooks report with a title block
 * of three lines and a footer, imported through the spawned CLI against the sandbox, for real
 * through the queue, as a dry run, detached and followed by `jobs show` / `jobs report`. The
 * summary counts the ignored rows by reason, `--json` carries them as `ignored`, they change no
 * exit code, and they are never rows to fix.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReport, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { onlyJson, runCli } from './helpers/cli.ts';

const SAMPLES = resolve(import.meta.dirname, '..', 'samples');
const SUMMARY = '4 rows ignored: title 3, footer 1';
const TITLE = 'title above the header row (line 5): not part of the table';
const FOOTER = 'footer below the last row: not part of the table';
/** The report's lines of the title block and the footer: lines 1-3 and 12 (the blank lines 4 and 11 get none). */
const IGNORED_LINES = [
  ['1', '', 'ignored', '', TITLE],
  ['2', '', 'ignored', '', TITLE],
  ['3', '', 'ignored', '', TITLE],
  ['12', '', 'ignored', '', FOOTER],
];

let rig: E2eRig;
let seq = 0;

beforeAll(async () => {
  rig = await startE2eRig();
});
afterAll(() => rig?.close());

/** samples/quickbooks-bills.csv as QuickBooks writes a report: a title block above it, a footer below (a file of its own each time). */
function quickbooksReport(): string {
  const table = readFileSync(join(SAMPLES, 'quickbooks-bills.csv'), 'utf8').trimEnd();
  return rig.file(`qb-report-${++seq}.csv`, ['Transaction List by Vendor', 'ACME BUILDERS LLC', '"January 1 - March 20, 2026"', '', table, '', '"Cash Basis Tuesday, March 3, 2026 10:15 AM"', ''].join('\n'));
}

const args = (file: string, ...more: string[]) => ['import', 'bills', file, '--mapping', 'quickbooks', '--vendors', join(SAMPLES, 'vendors.csv'), ...more];

function reportOf(path: string) {
  return parseReport(readFileSync(path, 'utf8')).map((r) => [r.line, r.record, r.status, r.id, r.message]);
}

describe('ignored rows through the CLI', () => {
  it('a dry run counts them by reason, reports them ignored, and writes no rows to fix', async () => {
    const file = quickbooksReport();
    const r = await runCli(args(file, '--dry-run'), rig.env, { cwd: rig.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('dry run: 5 rows -> 3 bills to send, 0 invalid rows');
    expect(r.stderr.split('\n')).toContain(SUMMARY);
    const report = reportOf(`${file}.report.csv`);
    expect(report.filter((l) => l[2] === 'ignored')).toEqual(IGNORED_LINES);
    expect(report.filter((l) => l[2] !== 'ignored').map((l) => l[2])).toEqual(Array(5).fill('skipped'));
    expect(existsSync(`${file}.errors.csv`)).toBe(false);

    const json = await runCli(args(file, '--dry-run', '--json'), rig.env, { cwd: rig.dir });
    expect(json.code, json.stderr).toBe(0);
    const d = onlyJson(json.stdout);
    expect(d).toMatchObject({ status: 'dry-run', rows: 5, records: 3, ignored: { title: 3, footer: 1 }, errorsFile: null, exitCode: 0 });
    expect((d.counts as { invalidRows: number }).invalidRows).toBe(0);
    expect(Object.keys(d.ignored as object)).toEqual(['title', 'footer']);
  });

  it('imported for real through the queue: exit 0, the summary line, the report lines ignored, no rows to fix; a re-run as --json', async () => {
    const before = rig.sandbox.bills().length;
    const file = quickbooksReport();
    const r = await runCli(args(file), rig.env, { cwd: rig.dir });
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout.split('\n');
    expect(out).toContain('bills: 5 rows, 3 records: created 3, exists 0, skipped 0, failed 0, unknown 0; invalid rows 0');
    // Right below the counts.
    expect(out[out.indexOf(SUMMARY) - 1]).toMatch(/^bills: 5 rows/);
    expect(r.stdout).not.toMatch(/rows to fix/);
    expect(rig.sandbox.bills().length - before).toBe(3);
    const report = reportOf(`${file}.report.csv`);
    expect(report.filter((l) => l[2] === 'ignored')).toEqual(IGNORED_LINES);
    expect(report.filter((l) => l[2] !== 'ignored').map((l) => [l[0], l[2]])).toEqual(['6', '7', '8', '9', '10'].map((line) => [line, 'created']));
    expect(existsSync(`${file}.errors.csv`)).toBe(false);

    const again = await runCli(args(file, '--json'), rig.env, { cwd: rig.dir });
    expect(again.code, again.stderr).toBe(0);
    const j = onlyJson(again.stdout);
    expect(Object.keys(j)).toEqual(['status', 'importId', 'kind', 'file', 'rows', 'records', 'counts', 'ignored', 'report', 'errorsFile', 'exitCode', 'error']);
    expect(j).toMatchObject({ status: 'done', rows: 5, records: 3, ignored: { title: 3, footer: 1 }, errorsFile: null, exitCode: 0 });
    expect(j.counts).toEqual({ created: 0, exists: 0, skipped: 3, failed: 0, unknown: 0, invalidRows: 0 });
    expect(rig.sandbox.bills().length - before).toBe(3);
  });

  it('--detach says them; jobs show, jobs list and jobs report follow the import', async () => {
    const file = quickbooksReport();
    const detached = await runCli(args(file, '--detach', '--json'), rig.env, { cwd: rig.dir });
    expect(detached.code, detached.stderr).toBe(0);
    const s = onlyJson(detached.stdout);
    expect(s).toMatchObject({ status: 'submitted', ignored: { title: 3, footer: 1 }, exitCode: 0 });
    const plain = await runCli(args(quickbooksReport(), '--detach'), rig.env, { cwd: rig.dir });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr.split('\n')).toContain(SUMMARY);

    const importId = s.importId as string;
    await rig.workers();
    await rig.waitForImport(importId);
    await rig.waitForImport(plain.stdout.trim());

    const show = await runCli(['jobs', 'show', importId, '--json'], rig.env, { cwd: rig.dir });
    expect(show.code, show.stderr).toBe(0);
    const shown = onlyJson(show.stdout).import as Record<string, unknown>;
    expect(Object.keys(shown)).toEqual(['file', 'rows', 'records', 'counts', 'ignored', 'pending', 'report', 'reportCommand']);
    expect(shown.ignored).toEqual({ title: 3, footer: 1 });
    const human = await runCli(['jobs', 'show', importId], rig.env, { cwd: rig.dir });
    expect(human.stdout.split('\n')).toContain(`ignored   ${SUMMARY}`);
    const list = await runCli(['jobs', 'list'], rig.env, { cwd: rig.dir });
    expect(list.stdout.split('\n').find((l) => l.startsWith(`${importId}\t`))).toMatch(/invalid rows 0; 4 rows ignored: title 3, footer 1$/);

    const report = await runCli(['jobs', 'report', importId], rig.env, { cwd: rig.dir });
    expect(report.code, report.stderr).toBe(0);
    expect(parseReport(report.stdout).filter((l) => l.status === 'ignored').map((l) => [l.line, l.record, l.status, l.id, l.message])).toEqual(IGNORED_LINES);
    const errors = await runCli(['jobs', 'report', importId, '--errors', '--out', join(rig.dir, `fix-${importId}.csv`)], rig.env, { cwd: rig.dir });
    expect(errors.code, errors.stderr).toBe(0);
    expect(errors.stdout).toBe(`nothing to fix in import ${importId}\n`);
  });

  it('one ignored row is said in the singular', async () => {
    const file = rig.file('one-title.csv', 'Bills to enter\nbill_ref,project_id,vendor_id,item_name,rate\nT-1,1,55,Gravel,100\n');
    const r = await runCli(['import', 'bills', file, '--dry-run'], rig.env, { cwd: rig.dir });
    expect(r.stderr.split('\n')).toContain('1 row ignored: title 1');
    expect(reportOf(`${file}.report.csv`)[0]).toEqual(['1', '', 'ignored', '', 'title above the header row (line 2): not part of the table']);
  });
});
