import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeExcelXlsx, xmlEscape, type ExcelSheet } from './helpers/excel-xml.ts';
import { parseReport } from './helpers/import-e2e-rig.ts';
import { runCli } from './helpers/cli.ts';

/*
 * Reading the spreadsheet people see (README "Where the table is"): which sheets hold the table
 * (--sheet NAME|all), hidden rows and columns (--hidden include|skip), merged cells. Whole-path
 * cases run the CLI (`--dry-run --print-payloads`) on workbooks LibreOffice wrote
 * (test/fixtures/workbooks/README.md) and on workbooks written as Excel writes its XML.
 */

const FIXTURES = resolve(import.meta.dirname, 'fixtures', 'workbooks');
const dir = mkdtempSync(join(tmpdir(), 'buildsync-sheets-hidden-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A dry run needs neither Redis nor the service: Redis is a closed port, no service is set.
const ENV = { REDIS_URL: 'redis://127.0.0.1:1', LOG_LEVEL: 'warn', BUILDSYNC_LIMITS: 'none' };
let runs = 0;

/** `import KIND FILE ARGS --dry-run --print-payloads` in `cwd`, the report written to a temporary folder. */
async function dryRun(kind: 'estimates' | 'bills', file: string, args: string[] = [], cwd = FIXTURES) {
  const report = join(dir, `run-${++runs}.report.csv`);
  const res = await runCli(['import', kind, file, ...args, '--dry-run', '--print-payloads', '--report', report], ENV, { cwd });
  const lines = res.code === 2 ? [] : parseReport(readFileSync(report, 'utf8')).map((r) => [r.line, r.status, r.message]);
  return { ...res, payloads: res.stdout.trim() === '' ? [] : res.stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown), lines };
}

function mapping(json: object): string {
  const file = join(dir, `mapping-${++runs}.json`);
  writeFileSync(file, JSON.stringify(json));
  return file;
}

const VALID = 'dry run: valid, not sent';
const HIDDEN_ROW = 'hidden row: not read (--hidden skip)';
const FILTERED_ROW = 'row hidden by the filter: not read (--hidden skip)';
const HOW = 'Show them and check them, or pass --hidden include to read them as any row, or --hidden skip to leave the hidden rows out (reported ignored) and read hidden columns as empty.';

describe('estimate-revisions.xlsx (LibreOffice): "Rev A (superseded)" and "Rev B"', () => {
  const file = 'estimate-revisions.xlsx';
  // Column H "Old adjustments" is hidden in Rev B.
  const adjustments = mapping({ columns: { 'Old adjustments': 'adjustment' } });
  const KITCHEN_SHOWN = {
    NAME: 'Kitchen remodel',
    PROJECT_ID: 1042,
    CATS: [
      { NAME: 'Demolition', SUBCATS: [{ NAME: 'Labor', ITEMS: [{ NAME: 'Crew day', QTY: 2, UNIT_COST: 640 }] }, { NAME: 'Disposal', ITEMS: [{ NAME: 'Dumpster', QTY: 1, UNIT_COST: 1250 }] }] },
      { NAME: 'Framing', SUBCATS: [{ NAME: 'Labor', ITEMS: [{ NAME: 'Headers', QTY: 1, UNIT_COST: 300 }] }] },
    ],
  };

  it('without --sheet stops: both tabs hold a table; each is named with its rows and the active tab (exit 2, nothing read from the first)', async () => {
    const r = await dryRun('estimates', file, ['--mapping', adjustments]);
    expect(r.code).toBe(2);
    expect(r.payloads).toEqual([]);
    expect(r.stderr.trim()).toBe(
      'buildsync: estimate-revisions.xlsx has 2 sheets with a table: "Rev A (superseded)" (3 rows), "Rev B" (5 rows). "Rev A (superseded)" was the active sheet when the workbook was saved. ' +
        'Pass --sheet NAME to read one of them (--sheet "Rev A (superseded)"), or --sheet all to read every one.',
    );
  });

  it('--sheet "Rev B" stops on the hidden alternate, the filtered row and the hidden column the mapping reads (exit 2)', async () => {
    const r = await dryRun('estimates', file, ['--sheet', 'Rev B', '--mapping', adjustments]);
    expect(r.code).toBe(2);
    expect(r.payloads).toEqual([]);
    expect(r.stderr.trim()).toBe(`buildsync: estimate-revisions.xlsx: sheet "Rev B" holds what its reader does not see: hidden row 6; row 4 hidden by the filter; hidden column H "Old adjustments". ${HOW}`);
  });

  it('--hidden skip: hidden rows ignored (hidden), the hidden column read as empty, merged category and project block filled', async () => {
    const r = await dryRun('estimates', file, ['--sheet', 'Rev B', '--hidden', 'skip', '--mapping', adjustments]);
    expect(r.stderr).toContain('dry run: 3 rows -> 1 estimate to send, 0 invalid rows');
    expect(r.code).toBe(0);
    expect(r.payloads).toEqual([KITCHEN_SHOWN]);
    expect(r.lines).toEqual([
      ['2', 'skipped', VALID],
      ['3', 'skipped', VALID],
      ['4', 'ignored', FILTERED_ROW],
      ['5', 'skipped', VALID],
      ['6', 'ignored', HIDDEN_ROW],
    ]);
  });

  it('the mapping key "hidden" says the same as the flag; --hidden wins over it', async () => {
    const skip = await dryRun('estimates', file, ['--sheet', 'Rev B', '--mapping', mapping({ columns: { 'Old adjustments': 'adjustment' }, hidden: 'skip' })]);
    expect(skip.code).toBe(0);
    expect(skip.payloads).toEqual([KITCHEN_SHOWN]);
    const include = await dryRun('estimates', file, ['--sheet', 'Rev B', '--hidden', 'include', '--mapping', mapping({ columns: { 'Old adjustments': 'adjustment' }, hidden: 'skip' })]);
    expect(include.payloads).toHaveLength(1);
    expect(JSON.stringify(include.payloads)).toContain('Steel beam (alternate)');
  });

  it('--hidden include reads hidden rows and the hidden column as any', async () => {
    const r = await dryRun('estimates', file, ['--sheet', 'Rev B', '--hidden', 'include', '--mapping', adjustments]);
    expect(r.code).toBe(0);
    expect(r.payloads).toEqual([
      {
        NAME: 'Kitchen remodel',
        PROJECT_ID: 1042,
        CATS: [
          {
            NAME: 'Demolition',
            SUBCATS: [
              { NAME: 'Labor', ITEMS: [{ NAME: 'Crew day', QTY: 2, UNIT_COST: 640, ADJUSTMENT: 50 }, { NAME: 'Old partition', QTY: 3, UNIT_COST: 400 }] },
              { NAME: 'Disposal', ITEMS: [{ NAME: 'Dumpster', QTY: 1, UNIT_COST: 1250 }] },
            ],
          },
          { NAME: 'Framing', SUBCATS: [{ NAME: 'Labor', ITEMS: [{ NAME: 'Headers', QTY: 1, UNIT_COST: 300 }, { NAME: 'Steel beam (alternate)', QTY: 1, UNIT_COST: 2200 }] }] },
        ],
      },
    ]);
    expect(r.lines.map((l) => l[1])).toEqual(['skipped', 'skipped', 'skipped', 'skipped', 'skipped']);
  });

  it('a bad --hidden value exits 2 naming it', async () => {
    const r = await dryRun('estimates', file, ['--sheet', 'Rev B', '--hidden', 'show', '--mapping', adjustments]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("option '--hidden <mode>' argument 'show' is invalid. Allowed choices are include, skip.");
    const bad = await dryRun('estimates', file, ['--sheet', 'Rev B', '--mapping', mapping({ hidden: 'yes' })]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('hidden: hidden must be "include" or "skip"');
  });

  it('--sheet all reads both tabs with one mapping: lines Sheet!row, a key in two sheets a row error, the sheets read named', async () => {
    const r = await dryRun('estimates', file, ['--sheet', 'all', '--hidden', 'skip', '--mapping', adjustments]);
    expect(r.code).toBe(1);
    expect(r.payloads).toEqual([{ NAME: 'Bath refresh', PROJECT_ID: 1077, CATS: [{ NAME: 'Tile', SUBCATS: [{ NAME: 'Labor', ITEMS: [{ NAME: 'Wall tile', QTY: 40, UNIT_COST: 12 }] }] }] }]);
    const twice =
      "project 1042 / Kitchen remodel is in more than one sheet (rows 'Rev A (superseded)'!2, 'Rev A (superseded)'!3 and 'Rev B'!2, 'Rev B'!3, 'Rev B'!5): " +
      '--sheet all reads each record from one sheet. Delete the superseded rows, or import the sheet you mean with --sheet NAME';
    const revA = (row: number) => `'Rev A (superseded)'!${row}`;
    const revB = (row: number) => `'Rev B'!${row}`;
    expect(r.lines).toEqual([
      ...[2, 3].map((n) => [revA(n), 'invalid', twice]),
      [revA(4), 'skipped', VALID],
      ...[2, 3].map((n) => [revB(n), 'invalid', twice]),
      [revB(4), 'ignored', FILTERED_ROW],
      [revB(5), 'invalid', twice],
      [revB(6), 'ignored', HIDDEN_ROW],
    ]);
    expect(r.stderr).toContain('sheets read: "Rev A (superseded)", "Rev B"; not read: none');
  });
});

describe('--sheet all: the lines messages name', () => {
  it('a bad cell and a bill\'s other rows name their lines as the report does (Sheet!row), never the reader\'s own numbers', async () => {
    const s = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(text)}</t></is></c>`;
    const n = (ref: string, v: number) => `<c r="${ref}"><v>${v}</v></c>`;
    const header = `<row r="1">${['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate'].map((h, i) => s(`${'ABCDE'[i]}1`, h)).join('')}</row>`;
    const row = (r: number, ref: string, item: string, rate: number | string) =>
      `<row r="${r}">${s(`A${r}`, ref)}${n(`B${r}`, 1042)}${n(`C${r}`, 55)}${s(`D${r}`, item)}${typeof rate === 'number' ? n(`E${r}`, rate) : s(`E${r}`, rate)}</row>`;
    const file = join(dir, 'two-months.xlsx');
    writeExcelXlsx(file, {
      sheets: [
        { name: 'March', rows: header + row(2, 'M-1', 'Gravel', 320) },
        { name: 'April', rows: header + row(2, 'A-1', 'Cement', 95) + row(3, 'A-1', 'Rebar', 'twelve') },
      ],
    });
    const r = await dryRun('bills', file, ['--sheet', 'all'], dir);
    expect(r.code).toBe(1);
    expect(r.lines).toEqual([
      ['March!2', 'skipped', VALID],
      ['April!2', 'invalid', 'not sent: line April!3 of this bill is invalid'],
      ['April!3', 'invalid', expect.stringMatching(/two-months\.xlsx:April!3 column rate \(April![A-Z]+3\): expected a number/)],
    ]);
    expect(JSON.stringify(r.lines)).not.toMatch(/10485\d\d/);
  });
});

describe('bills-merged.xlsx (LibreOffice): a vendor list, the bills, a hidden archive', () => {
  it('reads the one visible sheet with a header row; merged keys fill their rows; an amount merged over rows is a row error on each', async () => {
    const r = await dryRun('bills', 'bills-merged.xlsx');
    expect(r.code).toBe(1);
    expect(r.payloads).toEqual([{ PRJ_ID: '1042', VENDOR_ID: '55', ITEMS: [{ NAME: 'Ready-mix', RATE: '1250.00', QTY: 6 }, { NAME: 'Pump truck', RATE: '480.00', QTY: 1 }] }]);
    const lump = (row: number) =>
      `bills-merged.xlsx:${row} column rate (Bills!F${row}): Bills!F4:F5 is one cell merged over rows 4 to 5 holding "75" in the numeric field rate: a lump sum is not repeated on each row. Unmerge it and put the amount on one row, or split it over the rows`;
    expect(r.lines).toEqual([
      ['2', 'skipped', VALID],
      ['3', 'skipped', VALID],
      ['4', 'invalid', lump(4)],
      ['5', 'invalid', lump(5)],
    ]);
  });

  it('the hidden sheet is read when named', async () => {
    const r = await dryRun('bills', 'bills-merged.xlsx', ['--sheet', 'Old bills']);
    expect(r.code).toBe(0);
    expect(r.payloads).toEqual([{ PRJ_ID: '1042', VENDOR_ID: '55', ITEMS: [{ NAME: 'Old line', RATE: '10.00', QTY: 1 }] }]);
  });
});

describe('sheet-facts.xlsx (LibreOffice)', () => {
  // Lists holds a "Category" header, which with these constants is a header row too.
  const facts = mapping({ columns: { Item: 'subcategory', Amount: 'unit_cost' }, ignore: ['Code', 'Zip', 'Markup', 'Tax', 'Start', 'Due', 'Ref', 'Internal', 'Done'], constants: { project_id: 1042, estimate_name: 'Facts' } });

  it('two candidate sheets stop; the merged category fills row 3; the filtered row stops, then is skipped; the hidden column the mapping ignores never stops', async () => {
    const both = await dryRun('estimates', 'sheet-facts.xlsx', ['--mapping', facts]);
    expect(both.code).toBe(2);
    expect(both.stderr.trim()).toBe(
      'buildsync: sheet-facts.xlsx has 2 sheets with a table: "Lists" (1 row), "Estimates" (4 rows). "Lists" was the active sheet when the workbook was saved. Pass --sheet NAME to read one of them (--sheet "Lists"), or --sheet all to read every one.',
    );
    const stop = await dryRun('estimates', 'sheet-facts.xlsx', ['--sheet', 'Estimates', '--mapping', facts]);
    expect(stop.code).toBe(2);
    expect(stop.stderr.trim()).toBe(`buildsync: sheet-facts.xlsx: sheet "Estimates" holds what its reader does not see: row 4 hidden by the filter. ${HOW}`);
    const r = await dryRun('estimates', 'sheet-facts.xlsx', ['--sheet', 'Estimates', '--hidden', 'skip', '--mapping', facts]);
    expect(r.code).toBe(0);
    expect(r.payloads).toEqual([{ NAME: 'Facts', PROJECT_ID: 1042, CATS: [{ NAME: 'Demolition', SUBCATS: [{ NAME: 'Walls', UNIT_COST: 1234.5 }, { NAME: 'Floors' }] }, { NAME: 'Framing', SUBCATS: [{ NAME: 'Studs' }] }] }]);
    expect(r.lines).toEqual([
      ['2', 'skipped', VALID],
      ['3', 'skipped', VALID],
      ['4', 'ignored', FILTERED_ROW],
      ['5', 'skipped', VALID],
      ['7', 'ignored', 'footer below the last row: not part of the table'],
    ]);
  });
});

describe('workbooks written as Excel writes them', () => {
  const text = (ref: string, s: string): string => `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(s)}</t></is></c>`;
  const num = (ref: string, n: number): string => `<c r="${ref}"><v>${n}</v></c>`;
  const HEADER = ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost'];
  /** A row: strings as inline text, numbers as numbers, undefined left out. */
  const row = (r: number, cells: Array<string | number | undefined>, attrs = ''): string =>
    `<row r="${r}"${attrs}>${cells.map((v, i) => (v === undefined ? '' : typeof v === 'number' ? num(`${String.fromCharCode(65 + i)}${r}`, v) : text(`${String.fromCharCode(65 + i)}${r}`, v))).join('')}</row>`;
  const estimate = (name: string, extra: Partial<ExcelSheet> = {}, rows?: string): ExcelSheet => ({
    name,
    rows: rows ?? row(1, HEADER) + row(2, [7, name, 'Site', 'Labor', 'Survey', 1, 500]),
    ...extra,
  });
  let books = 0;
  function book(sheets: ExcelSheet[], activeTab?: number): string {
    const name = `book-${++books}.xlsx`;
    writeExcelXlsx(join(dir, name), { sheets, activeTab });
    return name;
  }

  it('names the sheet that was active when saved; a sheet without a header row and a hidden one are no candidates', async () => {
    const file = book(
      [
        estimate('Rev A (superseded)'),
        { name: 'Notes', rows: row(1, ['Sent to the client on 3 March']) },
        estimate('Rev B', {}, row(1, HEADER) + row(2, [8, 'Rev B', 'Site', 'Labor', 'Survey', 1, 500]) + row(3, [8, 'Rev B', 'Site', 'Labor', 'Stakes', 10, 2])),
        estimate('Lists', { state: 'hidden' }),
      ],
      2,
    );
    const r = await dryRun('estimates', file, [], dir);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `buildsync: ${file} has 2 sheets with a table: "Rev A (superseded)" (1 row), "Rev B" (2 rows). "Rev B" was the active sheet when the workbook was saved. ` +
        'Pass --sheet NAME to read one of them (--sheet "Rev B"), or --sheet all to read every one.',
    );
    const all = await dryRun('estimates', file, ['--sheet', 'all'], dir);
    expect(all.code).toBe(0);
    expect(all.payloads.map((p) => (p as { NAME: string }).NAME)).toEqual(['Rev A (superseded)', 'Rev B']);
    expect(all.lines.map((l) => l[0])).toEqual(["'Rev A (superseded)'!2", "'Rev B'!2", "'Rev B'!3"]);
    expect(all.stderr).toContain('sheets read: "Rev A (superseded)", "Rev B"; not read: "Notes", "Lists"');
    const hidden = await dryRun('estimates', file, ['--sheet', 'Lists'], dir);
    expect(hidden.code).toBe(0);
    expect(hidden.payloads.map((p) => (p as { NAME: string }).NAME)).toEqual(['Lists']);
  });

  it('--sheet all stops when the sheets\' header rows differ', async () => {
    const file = book([estimate('One'), { name: 'Two', rows: row(1, [...HEADER.slice(0, 5), 'unit_cost', 'qty']) + row(2, [7, 'Two', 'Site', 'Labor', 'Survey', 500, 1]) }]);
    const r = await dryRun('estimates', file, ['--sheet', 'all'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `buildsync: --sheet all reads every sheet with one mapping, but the header row of "Two" (row 1) differs from that of "One" (row 1): column F is "qty" in "One" and "unit_cost" in "Two". ` +
        'Make their header rows name the same columns in the same order, or import one sheet at a time with --sheet NAME.',
    );
  });

  it('a category merged over three rows and a project block over two fill their rows; a unit cost merged over two rows is a row error on both', async () => {
    const rows =
      row(1, HEADER) +
      row(2, [1042, 'Kitchen', 'Demolition', 'Labor', 'Crew day', 2, 640]) +
      row(3, [undefined, undefined, undefined, 'Disposal', 'Dumpster', 1, 1250]) +
      row(4, [1042, 'Kitchen', undefined, 'Disposal', 'Haul', 1, 300]) +
      row(5, [1043, 'Porch', 'Deck', 'Boards', 'Cedar', 40, 900]) +
      row(6, [1043, 'Porch', 'Deck', 'Boards', 'Screws', 2]);
    const file = book([{ name: 'Sheet1', rows, merged: ['A2:A3', 'B2:B3', 'C2:C4', 'G5:G6'] }]);
    const r = await dryRun('estimates', file, [], dir);
    expect(r.code).toBe(1);
    expect(r.payloads).toEqual([
      {
        NAME: 'Kitchen',
        PROJECT_ID: 1042,
        CATS: [{ NAME: 'Demolition', SUBCATS: [{ NAME: 'Labor', ITEMS: [{ NAME: 'Crew day', QTY: 2, UNIT_COST: 640 }] }, { NAME: 'Disposal', ITEMS: [{ NAME: 'Dumpster', QTY: 1, UNIT_COST: 1250 }, { NAME: 'Haul', QTY: 1, UNIT_COST: 300 }] }] }],
      },
    ]);
    const lump = (line: number) =>
      `${file}:${line} column unit_cost (Sheet1!G${line}): Sheet1!G5:G6 is one cell merged over rows 5 to 6 holding "900" in the numeric field unit_cost: a lump sum is not repeated on each row. Unmerge it and put the amount on one row, or split it over the rows`;
    expect(r.lines).toEqual([
      ['2', 'skipped', VALID],
      ['3', 'skipped', VALID],
      ['4', 'skipped', VALID],
      ['5', 'invalid', lump(5)],
      ['6', 'invalid', lump(6)],
    ]);
  });

  it('hidden rows and a used hidden column stop naming them; a hidden column the mapping ignores does not', async () => {
    const rows = row(1, [...HEADER, 'Internal']) + row(2, [7, 'Site', 'Site', 'Labor', 'Survey', 1, 500, 'x']) + row(3, [7, 'Site', 'Site', 'Labor', 'Stakes', 10, 2], ' hidden="1"') + row(4, [7, 'Site', 'Site', 'Labor', 'Flags', 5, 1], ' hidden="1"');
    const ignored = mapping({ ignore: ['Internal'] });
    const quiet = await dryRun('estimates', book([{ name: 'Sheet1', rows: rows.replace(/ hidden="1"/g, ''), hiddenColumns: [8] }]), ['--mapping', ignored], dir);
    expect(quiet.code).toBe(0);
    const file = book([{ name: 'Sheet1', rows, hiddenColumns: [6, 8], autoFilter: 'A1:H3' }]);
    const r = await dryRun('estimates', file, ['--mapping', ignored], dir);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`buildsync: ${file}: sheet "Sheet1" holds what its reader does not see: hidden row 4; row 3 hidden by the filter; hidden column F "qty". ${HOW}`);
    const skip = await dryRun('estimates', file, ['--mapping', ignored, '--hidden', 'skip'], dir);
    expect(skip.code).toBe(0);
    expect(skip.payloads).toEqual([{ NAME: 'Site', PROJECT_ID: 7, CATS: [{ NAME: 'Site', SUBCATS: [{ NAME: 'Labor', ITEMS: [{ NAME: 'Survey', UNIT_COST: 500 }] }] }] }]);
    expect(skip.lines).toEqual([
      ['2', 'skipped', VALID],
      ['3', 'ignored', FILTERED_ROW],
      ['4', 'ignored', HIDDEN_ROW],
    ]);
  });
});
