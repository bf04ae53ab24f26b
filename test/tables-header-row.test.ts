import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ESTIMATE_COLUMNS } from '../src/mapping/index.ts';
import { planEstimates } from '../src/import/index.ts';
import { writeExcelXlsx, xmlEscape } from './helpers/excel-xml.ts';
import { parseReport } from './helpers/import-e2e-rig.ts';
import { runCli } from './helpers/cli.ts';

// Where the table is in a spreadsheet as people export it: a title block above the header row,
// Excel's `sep=` line, MYOB's `{}` line, a row of group headings, a footer. The fixtures are
// written byte for byte as the programs write them (CRLF, quoted title lines).

const FIXTURES = resolve(import.meta.dirname, 'fixtures', 'reading');
const fixture = (name: string): string => join(FIXTURES, name);
const dir = mkdtempSync(join(tmpdir(), 'buildsync-header-row-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A dry run needs neither Redis nor the service: Redis is a closed port, no service is set.
const ENV = { REDIS_URL: 'redis://127.0.0.1:1', LOG_LEVEL: 'warn', BUILDSYNC_LIMITS: 'none' };
let runs = 0;

/** `import KIND FILE ARGS --dry-run --print-payloads` in the fixtures' directory, the report written to a temporary one. */
async function dryRun(kind: 'estimates' | 'bills', file: string, args: string[] = []) {
  const report = join(dir, `run-${++runs}.report.csv`);
  const res = await runCli(['import', kind, file, ...args, '--dry-run', '--print-payloads', '--report', report], ENV, { cwd: FIXTURES });
  const lines = res.code === 2 ? [] : parseReport(readFileSync(report, 'utf8')).map((r) => [Number(r.line), r.status, r.message]);
  return { ...res, payloads: res.stdout.trim() === '' ? [] : res.stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown), lines };
}

const TITLE = (headerLine: number, unit = 'line') => `title above the header row (${unit} ${headerLine}): not part of the table`;
const FOOTER = 'footer below the last row: not part of the table';
const VALID = 'dry run: valid, not sent';
/** The estimate of the files with a crew day and a dumpster. */
const KITCHEN_TWO_LINES = {
  NAME: 'Kitchen remodel',
  PROJECT_ID: 1042,
  CATS: [{ NAME: 'Demolition', SUBCATS: [{ NAME: 'Labor', ITEMS: [{ NAME: 'Crew day', QTY: 2, UNIT_COST: 640 }] }, { NAME: 'Disposal', ITEMS: [{ NAME: 'Dumpster', QTY: 1, UNIT_COST: 1250 }] }] }],
};

describe('a title block above the header row', () => {
  it('reads a QuickBooks report export: three title lines, a blank line, the header on line 5, a footer', async () => {
    const r = await dryRun('bills', fixture('quickbooks-transaction-list-by-vendor.csv'), ['--mapping', 'quickbooks', '--vendors', fixture('vendors.csv')]);
    expect(r.stderr).not.toMatch(/unknown column|ACME BUILDERS/);
    expect(r.code).toBe(0);
    expect(r.payloads).toEqual([
      { PRJ_ID: null, VENDOR_ID: '55', INVOICE_DATE: '2026-03-14T00:00:00', ITEMS: [{ NAME: 'Framing lumber', RATE: '1250.00' }, { NAME: 'Delivery', RATE: '75.00' }] },
      { PRJ_ID: null, VENDOR_ID: '56', INVOICE_DATE: '2026-03-20T00:00:00', ITEMS: [{ NAME: 'Rough-in wiring', RATE: '2400.00' }] },
    ]);
    // The blank lines 4 and 9 get no report line, nor does the header on line 5.
    expect(r.lines).toEqual([
      [1, 'ignored', TITLE(5)],
      [2, 'ignored', TITLE(5)],
      [3, 'ignored', TITLE(5)],
      [6, 'skipped', VALID],
      [7, 'skipped', VALID],
      [8, 'skipped', VALID],
      [10, 'ignored', FOOTER],
    ]);
    expect(r.stderr).toMatch(/dry run: 3 rows -> 2 bills to send, 0 invalid rows/);
  });

  it('--header-row names the line of the header row; a blank line or a bad number is refused (exit 2)', async () => {
    const file = 'quickbooks-transaction-list-by-vendor.csv';
    const args = ['--mapping', 'quickbooks', '--vendors', 'vendors.csv'];
    const named = await dryRun('bills', file, [...args, '--header-row', '5']);
    expect(named.code).toBe(0);
    expect(named.payloads).toHaveLength(2);
    expect(named.lines.map((l) => l[0])).toEqual([1, 2, 3, 6, 7, 8, 10]);

    const blank = await dryRun('bills', file, [...args, '--header-row', '4']);
    expect(blank.code).toBe(2);
    expect(blank.stderr).toContain('--header-row 4: line 4 of quickbooks-transaction-list-by-vendor.csv holds no row (it is blank, past the end, or inside a quoted field of the row above).');
    for (const bad of ['0', 'x', '2.5']) {
      const r = await dryRun('bills', file, [...args, '--header-row', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--header-row ${JSON.stringify(bad)}: expected a whole number from 1 to 1048576`);
    }
  });

  it('takes the header row from the mapping file ("headerRow"), as --header-row', async () => {
    const map = join(dir, 'header-row-1.json');
    writeFileSync(map, JSON.stringify({ headerRow: 1 }));
    const r = await dryRun('estimates', fixture('two-row-header.csv'), ['--mapping', map]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/two-row-header\.csv:1: unknown columns "Location", "Line", "Cost"\./);
  });

  it('skips a row of group headings above the real header row', async () => {
    const r = await dryRun('estimates', fixture('two-row-header.csv'));
    expect(r.code).toBe(0);
    expect(r.payloads).toEqual([
      { NAME: 'Kitchen remodel', PROJECT_ID: 1042, CATS: [{ NAME: 'Demolition', SUBCATS: [{ NAME: 'Labor', ITEMS: [{ NAME: 'Crew day', QTY: 2, UNIT_COST: 640 }] }] }] },
    ]);
    expect(r.lines).toEqual([
      [1, 'ignored', TITLE(2)],
      [3, 'skipped', VALID],
    ]);
  });

  it('reads an .xlsx whose header row sits under a title block, with a footer note', async () => {
    const file = join(dir, 'titled.xlsx');
    const text = (ref: string, s: string) => `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(s)}</t></is></c>`;
    const num = (ref: string, n: number) => `<c r="${ref}"><v>${n}</v></c>`;
    const header = ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost'];
    const row = (r: number, cells: string[]) => `<row r="${r}">${cells.join('')}</row>`;
    const data = (r: number, sub: string, item: string, qty: number, cost: number) =>
      row(r, [num(`A${r}`, 1042), text(`B${r}`, 'Kitchen remodel'), text(`C${r}`, 'Demolition'), text(`D${r}`, sub), text(`E${r}`, item), num(`F${r}`, qty), num(`G${r}`, cost)]);
    writeExcelXlsx(file, {
      sheets: [{
        name: 'Estimate',
        rows:
          row(1, [text('A1', 'ACME BUILDERS LLC')]) +
          row(2, [text('A2', 'Estimate for Kitchen remodel, printed March 3, 2026')]) +
          row(4, header.map((h, i) => text(`${String.fromCharCode(65 + i)}4`, h))) +
          data(5, 'Labor', 'Crew day', 2, 640) +
          data(6, 'Disposal', 'Dumpster', 1, 1250) +
          row(8, [text('A8', 'Prepared by J. Smith')]),
      }],
    });
    const r = await dryRun('estimates', file);
    expect(r.stderr).not.toMatch(/unknown column/);
    expect(r.code).toBe(0);
    expect(r.payloads).toEqual([KITCHEN_TWO_LINES]);
    expect(r.lines).toEqual([
      [1, 'ignored', TITLE(4, 'row')],
      [2, 'ignored', TITLE(4, 'row')],
      [5, 'skipped', VALID],
      [6, 'skipped', VALID],
      [8, 'ignored', FOOTER],
    ]);
  });
});

describe("Excel's sep= line and MYOB's {} line", () => {
  it('a first line sep=; sets the delimiter and gets no report line', async () => {
    const r = await dryRun('estimates', fixture('excel-sep-semicolon.csv'));
    expect(r.code).toBe(0);
    expect(r.payloads).toEqual([KITCHEN_TWO_LINES]);
    expect(r.lines).toEqual([
      [3, 'skipped', VALID],
      [4, 'skipped', VALID],
    ]);
  });

  it('a first line {} is a title line', async () => {
    const r = await dryRun('bills', fixture('myob-purchases.csv'), ['--mapping', fixture('myob-mapping.json'), '--vendors', fixture('vendors.csv')]);
    expect(r.code).toBe(0);
    expect(r.payloads).toEqual([
      { PRJ_ID: '1042', VENDOR_ID: '55', ITEMS: [{ NAME: 'Framing lumber', RATE: '1250.00' }, { NAME: 'Delivery', RATE: '75.00' }] },
      { PRJ_ID: '1042', VENDOR_ID: '56', ITEMS: [{ NAME: 'Rough-in wiring', RATE: '2400.00' }] },
    ]);
    expect(r.lines).toEqual([
      [1, 'ignored', TITLE(2)],
      [3, 'skipped', VALID],
      [4, 'skipped', VALID],
      [5, 'skipped', VALID],
    ]);
  });
});

describe('no row is the header row', () => {
  it('names the row that came closest and the columns it lacks, never a title line as a column', async () => {
    const r = await dryRun('estimates', 'no-header-row.csv');
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      'buildsync: no-header-row.csv:2: missing column: project_id (or project_number / project_name). No row of the first 3 has every required column; line 2 comes closest. ' +
        'Line 2 has unknown column "project". Did you mean: "project" → project_name? To read it so, pass --mapping MAP.json with {"columns": {"project": "project_name"}}; to skip it, {"ignore": ["project"]}. ' +
        `Known columns: ${ESTIMATE_COLUMNS.join(', ')} (case, spaces, _, - and . do not matter). If the header row is another line, name it with --header-row N.`,
    );
    expect(r.stderr).not.toContain('Estimate export');
  });

  it('looks at the first 30 rows only: a header row below them is found when --header-row names it', async () => {
    const file = join(dir, 'deep.csv');
    const titles = Array.from({ length: 30 }, (_, i) => `Note ${i + 1}`);
    writeFileSync(file, [...titles, 'project_id,estimate_name,category,subcategory,item', '1042,Kitchen remodel,Demolition,Labor,Crew day', ''].join('\r\n'));
    const err = await planEstimates(file).then(() => undefined, (e: unknown) => e as Error);
    expect(err).toMatchObject({ code: 'BUILDSYNC_FILE_UNREADABLE' });
    expect(err!.message).toBe(
      `${file}:1: missing columns: project_id (or project_number / project_name); estimate_name. No row of the first 30 has every required column; line 1 comes closest. ` +
        'Line 1 has "Note 1"; rename a header, or map it with --mapping MAP.json ({"columns": {"<header>": "<column>"}}). If the header row is another line, name it with --header-row N.',
    );
    const plan = await planEstimates(file, { headerRow: 31 });
    expect(plan.records.map((p) => p.lines)).toEqual([[32]]);
    expect(plan.statics.map((s) => [s.line, s.status, s.reason])).toEqual(titles.map((_, i) => [i + 1, 'ignored', 'title']));
  });
});

describe('the footer', () => {
  it('is a blank row followed only by rows with at most one value; a short row before it stays a row error', async () => {
    const r = await dryRun('estimates', 'footer-after-short-row.csv');
    expect(r.code).toBe(1);
    expect(r.lines.map(([line, status]) => [line, status])).toEqual([
      [2, 'skipped'],
      [3, 'invalid'],
      [5, 'ignored'],
    ]);
    expect(r.lines[1]![2]).toMatch(/^footer-after-short-row\.csv:3 column estimate_name: the estimate name is missing/);
    expect(r.lines[2]![2]).toBe(FOOTER);
    // The errors file holds the rows to fix, not the footer.
    const errors = readFileSync(join(dir, `run-${runs}.errors.csv`), 'utf8').replace(/^\uFEFF/, '').trim().split(/\r?\n/);
    expect(errors.map((l) => l.split(',').at(-2))).toEqual(['source_line', '3']);
  });

  it('is data again when a row with two values follows it', async () => {
    const file = join(dir, 'not-footer.csv');
    writeFileSync(file, 'project_id,estimate_name,category,subcategory,item\r\n1042,Kitchen remodel,Demolition,Labor,Crew day\r\n\r\nLoose note,,,,\r\n1042,Kitchen remodel,Demolition,Labor,Haul-off\r\n');
    const plan = await planEstimates(file);
    expect(plan.statics.map((s) => [s.line, s.status])).toEqual([[4, 'invalid']]);
    expect(plan.records.map((p) => p.lines)).toEqual([[2, 5]]);
    expect(plan.rows).toBe(3);
  });
});
