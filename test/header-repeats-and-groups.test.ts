import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planBills, planEstimates } from '../src/import/index.ts';
import { messageFor } from '../src/errors/index.ts';
import { loadMappingFile, parseMappingFile } from '../src/mapping/index.ts';
import { writeExcelXlsx, xmlEscape } from './helpers/excel-xml.ts';

/*
 * Repeated and two-row headers (docs/reading-rules.md): a name written twice is `NAME (2)`; a row of
 * group names over the header row names its columns `GROUP NAME`; a page header printed again is
 * `ignored` (`header`) with the title lines above it. Files as the programs write them: Excel's
 * "CSV UTF-8" (BOM, CRLF), Foundation's report CSV (ASCII, CRLF, page headers repeated after a blank
 * row), and an .xlsx with its two-row header merged as Excel writes merges (`<mergeCell>` after the
 * sheet data, the covered cells written empty with the range's style).
 */

const FIXTURES = join(import.meta.dirname, 'fixtures', 'reading');
const dir = mkdtempSync(join(tmpdir(), 'buildsync-header-groups-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const statics = (plan: { statics: Array<{ line: number; status: string; reason?: string; message: string }> }) => plan.statics.map((s) => [s.line, s.status, s.reason, s.message]);

describe('a name written twice', () => {
  const file = join(FIXTURES, 'duplicate-description.csv');
  const item = (extra: Record<string, unknown>) => [{ NAME: 'Kitchen remodel', PROJECT_ID: 1042, CATS: [{ NAME: 'Cabinets', SUBCATS: [{ NAME: 'Uppers', ITEMS: [{ NAME: 'Crown molding', QTY: 10, UNIT_COST: 15, ...extra }] }] }] }];

  it('without a mapping it stops, naming the columns by their letters and how each is read', async () => {
    const err = await planEstimates(file).then(() => undefined, (e: unknown) => e as Error);
    expect(err).toMatchObject({ code: 'BUILDSYNC_FILE_UNREADABLE' });
    expect(err!.message).toBe(
      `${file}:1: "Description" appears twice in the header row, in columns H and I (read as "Description" and "Description (2)"), and which one is meant is not said. ` +
        'Keep one of each, or say which one to read in the mapping file (--mapping MAP.json): name it as it is read ({"columns": {"NAME (2)": "<column>"}}) and skip the others with "ignore" ("ignore": ["NAME"] skips every copy the mapping does not name).',
    );
    expect(messageFor(err, 'page')).toMatch(/and which one is meant is not said\. Keep one of each: choose the column for the one to read under "Match columns" above, and Ignore for the others\.$/);
  });

  it('"ignore": ["Description"] ignores both copies', async () => {
    const plan = await planEstimates(file, { mapping: parseMappingFile({ ignore: ['Description'] }, 'map.json') });
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.payload)).toEqual(item({}));
  });

  it('the second copy named "Description (2)" in the mapping is read as its column, the first by its own name', async () => {
    const plan = await planEstimates(file, { mapping: parseMappingFile({ columns: { 'Description (2)': 'notes_general' } }, 'map.json') });
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.payload)).toEqual(item({ DESCRIPTION: 'Paint-grade poplar', NOTES_GENERAL: 'Client to confirm stain' }));
  });
});

describe('a two-row header', () => {
  it('a Procore-style budget in .xlsx: group names merged over two columns each, the first columns merged down', async () => {
    const file = join(dir, 'procore-budget.xlsx');
    const text = (ref: string, s: string) => `<c r="${ref}" s="0" t="inlineStr"><is><t>${xmlEscape(s)}</t></is></c>`;
    const empty = (ref: string) => `<c r="${ref}" s="0"/>`;
    const num = (ref: string, n: number) => `<c r="${ref}" s="3"><v>${n}</v></c>`;
    writeExcelXlsx(file, {
      sheets: [{
        name: 'Budget',
        rows:
          `<row r="1" spans="1:6">${text('A1', 'Cost Code')}${text('B1', 'Description')}${text('C1', 'Budget')}${empty('D1')}${text('E1', 'Committed Costs')}${empty('F1')}</row>` +
          `<row r="2" spans="1:6">${empty('A2')}${empty('B2')}${text('C2', 'Original')}${text('D2', 'Revised')}${text('E2', 'Original')}${text('F2', 'Pending')}</row>` +
          `<row r="3" spans="1:6">${text('A3', '01-100')}${text('B3', 'General Requirements')}${num('C3', 12500)}${num('D3', 13250)}${num('E3', 9000)}${num('F3', 500)}</row>` +
          `<row r="4" spans="1:6">${text('A4', '03-300')}${text('B4', 'Cast-in-Place Concrete')}${num('C4', 84000)}${num('D4', 86500.5)}${num('E4', 80000)}${num('F4', 0)}</row>`,
        merged: ['A1:A2', 'B1:B2', 'C1:D1', 'E1:F1'],
      }],
    });
    const mapping = parseMappingFile({
      constants: { project_id: 1042, estimate_name: 'Budget 2026', category: 'Budget' },
      // "Pending" is the lower name of one column only: it names it alone. "Original" is under both groups.
      columns: { 'Cost Code': 'cost_code', Description: 'subcategory', 'Budget Revised': 'unit_cost', Pending: 'committed_costs' },
      ignore: ['Budget Original', 'Committed Costs Original'],
    }, 'map.json');
    const plan = await planEstimates(file, { mapping });
    expect(plan.table?.headerLine).toBe(2);
    expect(statics(plan)).toEqual([[1, 'ignored', 'title', 'title above the header row (row 2): not part of the table']]);
    expect(plan.table?.headers).toEqual(['Cost Code', 'Description', 'Budget Original', 'Budget Revised', 'Committed Costs Original', 'Committed Costs Pending']);
    expect(plan.records.map((r) => r.payload)).toEqual([{
      NAME: 'Budget 2026',
      PROJECT_ID: 1042,
      CATS: [{
        NAME: 'Budget',
        SUBCATS: [
          { NAME: 'General Requirements', COST_CODE: '01-100', UNIT_COST: 13250, COMMITTED_COSTS: 500 },
          { NAME: 'Cast-in-Place Concrete', COST_CODE: '03-300', UNIT_COST: 86500.5, COMMITTED_COSTS: 0 },
        ],
      }],
    }]);
    expect(statics(plan)).toEqual([[1, 'ignored', 'title', 'title above the header row (row 2): not part of the table']]);
  });

  it('a lower name under two groups does not name a column alone: the mapping entry is said to be missing', async () => {
    const file = join(dir, 'groups-csv.csv');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, ',,,,Budget,,Actual,\r\nproject_id,estimate_name,category,subcategory,Original,Revised,Original,Revised\r\n1042,Kitchen,Cabinets,Uppers,100,120,90,95\r\n');
    const err = await planEstimates(file, { mapping: parseMappingFile({ columns: { Original: 'unit_cost' }, ignore: ['Budget Revised', 'Actual Original', 'Actual Revised'] }, 'map.json') }).then(() => undefined, (e: unknown) => e as Error);
    expect(err!.message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: the mapping file names a header that .* does not have: "columns" entry "Original" → unit_cost`));
    const plan = await planEstimates(file, { mapping: parseMappingFile({ columns: { 'Budget Original': 'unit_cost' }, ignore: ['Budget Revised', 'Actual Original', 'Actual Revised'] }, 'map.json') });
    expect(plan.records.map((r) => r.payload)).toEqual([{ NAME: 'Kitchen', PROJECT_ID: 1042, CATS: [{ NAME: 'Cabinets', SUBCATS: [{ NAME: 'Uppers', UNIT_COST: 100 }] }] }]);
  });
});

describe("Foundation's page header printed again", () => {
  it('the repeated header row and the title lines directly above it are ignored (header); the bills on both pages are read', async () => {
    const file = join(FIXTURES, 'foundation-job-cost-bills.csv');
    const plan = await planBills(file, { mapping: await loadMappingFile(join(FIXTURES, 'foundation-mapping.json')) });
    expect(plan.records.map((r) => r.payload)).toEqual([
      { PRJ_ID: 1042, VENDOR_ID: 55, INVOICE_DATE: '2026-03-16T00:00:00', ITEMS: [{ NAME: 'Ready-mix', RATE: '1250.00' }, { NAME: 'Pump truck', RATE: '450.00' }] },
      { PRJ_ID: 1042, VENDOR_ID: 56, INVOICE_DATE: '2026-03-20T00:00:00', ITEMS: [{ NAME: 'Rebar', RATE: '980.00' }] },
    ]);
    const again = 'the header row printed again (the header row is line 4): not part of the table';
    expect(statics(plan)).toEqual([
      [1, 'ignored', 'title', 'title above the header row (line 4): not part of the table'],
      [2, 'ignored', 'title', 'title above the header row (line 4): not part of the table'],
      [8, 'ignored', 'header', again],
      [9, 'ignored', 'header', again],
      [10, 'ignored', 'header', again],
    ]);
  });
});
