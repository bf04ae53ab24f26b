import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planEstimates } from '../src/import/index.ts';
import { readPage } from '../src/import-service/index.ts';
import { loadMappingFile, parseMappingFile } from '../src/mapping/index.ts';
import { messageFor } from '../src/errors/index.ts';
import { writeExcelXlsx, xmlEscape } from './helpers/excel-xml.ts';

/*
 * The header row is, of the first 30 rows, the one that names the most of the mapping's columns
 * (docs/reading-rules.md "Where the table is"), never a title line, even when the mapping's
 * constants give every required column. Files as Excel writes them: "CSV UTF-8" (BOM, CRLF, each
 * row as wide as the sheet's used range, so title rows end in commas), and .xlsx.
 */

const FIXTURES = join(import.meta.dirname, 'fixtures', 'reading');
const dir = mkdtempSync(join(tmpdir(), 'buildsync-header-best-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Excel's "CSV UTF-8 (Comma delimited)": a BOM, CRLF after every row. */
function excelCsv(name: string, rows: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `\uFEFF${rows.map((r) => `${r}\r\n`).join('')}`);
  return file;
}

/** The mapping a user writes for an estimate export that names neither project nor estimate. */
const CONSTANTS = parseMappingFile({ constants: { project_id: 1042, estimate_name: 'Bayview Fire Station' } }, 'map.json');

const title = (line: number, header: number, unit = 'line') => [line, 'ignored', 'title', `title above the header row (${unit} ${header}): not part of the table`];
const statics = (plan: Awaited<ReturnType<typeof planEstimates>>) => plan.statics.map((s) => [s.line, s.status, s.reason, s.message]);

describe('the header row is the row that names the most columns', () => {
  it('an estimate with a title block and constants for project and estimate: the title lines are titles, the header row is line 5', async () => {
    const file = join(FIXTURES, 'estimate-title-constants.csv');
    const plan = await planEstimates(file, { mapping: await loadMappingFile(join(FIXTURES, 'estimate-constants-mapping.json')) });
    expect(plan.table?.headerLine).toBe(5);
    expect(plan.records.map((r) => r.payload)).toEqual([{
      NAME: 'Bayview Fire Station',
      PROJECT_ID: 1042,
      CATS: [{ NAME: 'Sitework', SUBCATS: [{ NAME: 'Excavation', ITEMS: [{ NAME: 'Trench', QTY: 120, UNIT: 'lf', UNIT_COST: 14.5 }, { NAME: 'Backfill', QTY: 120, UNIT: 'lf', UNIT_COST: 6.25 }] }] }],
    }]);
    expect(statics(plan)).toEqual([title(1, 5), title(2, 5), title(3, 5)]);
  });

  it('a note line above the header row of a workbook (Houzz Pro style): the note is a title, the header row is row 4', async () => {
    const file = join(dir, 'houzz-estimate.xlsx');
    const text = (ref: string, s: string) => `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(s)}</t></is></c>`;
    const num = (ref: string, n: number) => `<c r="${ref}"><v>${n}</v></c>`;
    writeExcelXlsx(file, {
      sheets: [{
        name: 'Estimate',
        rows:
          `<row r="1">${text('A1', 'Bayview Fire Station')}</row>` +
          `<row r="3">${text('A3', 'Note: prices valid for 30 days; Category must be one of the cost book\'s')}</row>` +
          `<row r="4">${['Category', 'Subcategory', 'Item', 'Qty', 'Unit Cost'].map((h, i) => text(`${'ABCDE'[i]}4`, h)).join('')}</row>` +
          `<row r="5">${text('A5', 'Concrete')}${text('B5', 'Slab')}${text('C5', 'Pour')}${num('D5', 42)}${num('E5', 185)}</row>`,
      }],
    });
    const plan = await planEstimates(file, { mapping: CONSTANTS });
    expect(plan.records.map((r) => r.payload)).toEqual([{
      NAME: 'Bayview Fire Station',
      PROJECT_ID: 1042,
      CATS: [{ NAME: 'Concrete', SUBCATS: [{ NAME: 'Slab', ITEMS: [{ NAME: 'Pour', QTY: 42, UNIT_COST: 185 }] }] }],
    }]);
    expect(statics(plan)).toEqual([title(1, 4, 'row'), title(3, 4, 'row')]);
  });

  it('of two rows with every required column, the one naming more columns is the header row; of equals, the first', async () => {
    // A "column key" line above the real header names two columns; the header row names five.
    const file = excelCsv('key-line.csv', [
      'project_id,estimate_name,,,',
      'project_id,estimate_name,category,subcategory,item',
      '1042,Kitchen,Demolition,Labor,Crew day',
    ]);
    const plan = await planEstimates(file);
    expect(plan.table?.headerLine).toBe(2);
    expect(statics(plan)).toEqual([title(1, 2)]);
  });

  it('stops when the constants give every required column and no row names a column: the closest row, and --header-row', async () => {
    const file = excelCsv('titles-only.csv', ['Estimate ES-1042,', 'Bayview Fire Station,', 'Sitework Trench 120,lf']);
    const err = await planEstimates(file, { mapping: CONSTANTS }).then(() => undefined, (e: unknown) => e as Error);
    expect(err).toMatchObject({ code: 'BUILDSYNC_FILE_UNREADABLE' });
    expect(err!.message).toBe(
      `${file}:3: no header row: no row of the first 3 names a column this import reads (the mapping's constants are not a header row); line 3 comes closest. ` +
        'Line 3 has "Sitework Trench 120", "lf"; rename a header, or map it with --mapping MAP.json ({"columns": {"<header>": "<column>"}}). If the header row is another line, name it with --header-row N.',
    );
    expect(messageFor(err, 'page')).toBe(
      `${file}:3: no header row: no row of the first 3 names a column this import reads (the mapping's constants are not a header row); line 3 comes closest. ` +
        'Line 3 has "Sitework Trench 120", "lf"; choose the column each header holds in its list under "Match columns" above. If the header row is another line, choose it in "Header row" above.',
    );
  });

  it('the stop names the row that names the most columns and what it lacks; the page says "Header row", never a flag', async () => {
    const file = excelCsv('no-project.csv', ['Estimate ES-1042,,', 'estimate_name,category,item', 'Kitchen,Demolition,Crew day']);
    const err = await planEstimates(file).then(() => undefined, (e: unknown) => e as Error);
    expect(err!.message).toBe(
      `${file}:2: missing column: project_id (or project_number / project_name). No row of the first 3 has every required column; line 2 comes closest. ` +
        'Line 2 has "estimate_name", "category", "item"; rename a header, or map it with --mapping MAP.json ({"columns": {"<header>": "<column>"}}). If the header row is another line, name it with --header-row N.',
    );
    const page = await readPage(file, 'no-project.csv', { kind: 'estimates' });
    expect(page.headerRow).toBe(2);
    expect(page.messages.join('\n')).not.toMatch(/--/);
    expect(page.messages.join('\n')).not.toMatch(/"ignore"/);
  });
});
