import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planBills, planEstimates } from '../src/import/index.ts';
import { readPage } from '../src/import-service/index.ts';
import { messageFor } from '../src/errors/index.ts';
import { excelParts, xmlEscape, zip, type ExcelWorkbook } from './helpers/excel-xml.ts';

/*
 * Which sheet is read (docs/reading-rules.md ".xlsx sheets"): when no visible sheet holds a table, the
 * stop lists the sheets (hidden ones said hidden, each with its rows and whether it has a header row,
 * a pivot table's sheet said to be one) and proposes `--sheet NAME`. Workbooks as Excel writes them:
 * an empty sheet as `<sheetData/>`, a pivot table as its shown cells plus a `pivotTable` relationship
 * of the sheet (with its part and cache definition, and their content types).
 */

const dir = mkdtempSync(join(tmpdir(), 'buildsync-sheet-listing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n';
const text = (ref: string, s: string) => `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(s)}</t></is></c>`;
const num = (ref: string, n: number) => `<c r="${ref}"><v>${n}</v></c>`;
const row = (r: number, cells: string) => `<row r="${r}">${cells}</row>`;

/** An empty worksheet as Excel saves one: a dimension of A1 and `<sheetData/>`. */
const EMPTY_SHEET = `${DECL}<worksheet xmlns="${MAIN}" xmlns:r="${REL}"><dimension ref="A1"/><sheetViews><sheetView tabSelected="1" workbookViewId="0"/></sheetViews><sheetFormatPr defaultRowHeight="15"/><sheetData/><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>`;

const ESTIMATE_ROWS =
  row(1, ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost'].map((h, i) => text(`${'ABCDEFG'[i]}1`, h)).join('')) +
  row(2, `${num('A2', 1042)}${text('B2', 'Kitchen remodel')}${text('C2', 'Demolition')}${text('D2', 'Labor')}${text('E2', 'Crew day')}${num('F2', 2)}${num('G2', 640)}`) +
  row(3, `${num('A3', 1042)}${text('B3', 'Kitchen remodel')}${text('C3', 'Demolition')}${text('D3', 'Disposal')}${text('E3', 'Dumpster')}${num('F3', 1)}${num('G3', 1250)}`);

function write(name: string, book: ExcelWorkbook, extra: Array<[string, string]> = [], contentTypes: string[] = []): string {
  const file = join(dir, name);
  const parts = excelParts(book).map(([path, content]): [string, string | Buffer] =>
    path === '[Content_Types].xml' && typeof content === 'string' ? [path, content.replace('</Types>', `${contentTypes.join('')}</Types>`)] : [path, content]);
  writeFileSync(file, zip([...parts, ...extra], true));
  return file;
}

describe('no visible sheet holds a table', () => {
  it('a visible empty sheet beside hidden data sheets: the stop lists every sheet and proposes --sheet "Estimate"', async () => {
    const file = write('hidden-data.xlsx', {
      sheets: [
        { name: 'Sheet1', xml: EMPTY_SHEET },
        { name: 'Estimate', state: 'hidden', rows: ESTIMATE_ROWS },
        { name: 'Lists', state: 'hidden', rows: row(1, text('A1', 'Units')) + row(2, text('A2', 'lf')) + row(3, text('A3', 'ea')) },
      ],
    });
    const err = await planEstimates(file).then(() => undefined, (e: unknown) => e as Error);
    expect(err).toMatchObject({ code: 'BUILDSYNC_FILE_UNREADABLE' });
    const facts = `${file}: no visible sheet holds a table (a header row with every required column). Its sheets: "Sheet1" (empty), "Estimate" (hidden, 3 rows, with a header row), "Lists" (hidden, 3 rows, no header row). `;
    expect(err!.message).toBe(`${facts}Pass --sheet NAME to read one of them (--sheet "Estimate").`);
    expect(messageFor(err, 'page')).toBe(`${facts}Choose one of them in "Sheet" above ("Estimate").`);
    expect(err!.message).not.toMatch(/its first row must be a header row/);

    const plan = await planEstimates(file, { sheet: 'Estimate' });
    expect(plan.records.map((r) => r.lines)).toEqual([[2, 3]]);

    // The import page: its first visible sheet is empty, so the listing is what it says, in its words.
    const page = await readPage(file, 'hidden-data.xlsx', { kind: 'estimates' }).then(() => undefined, (e: unknown) => e);
    expect(messageFor(page, 'page')).toBe(`${facts}Choose one of them in "Sheet" above ("Estimate").`);
    const chosen = await readPage(file, 'hidden-data.xlsx', { kind: 'estimates', sheet: 'Estimate' });
    expect(chosen).toMatchObject({ sheet: 'Estimate', headerRow: 1, headerFound: true });
  });

  it('at most 10 sheets are listed, then how many more', async () => {
    const sheets = Array.from({ length: 12 }, (_, i) => ({ name: `Week ${i + 1}`, rows: row(1, text('A1', `Week ${i + 1} notes`)) }));
    const file = write('twelve.xlsx', { sheets });
    const err = await planEstimates(file).then(() => undefined, (e: unknown) => e as Error);
    const listed = sheets.slice(0, 10).map((s) => `"${s.name}" (1 row, no header row)`).join(', ');
    expect(err!.message).toBe(`${file}: no visible sheet holds a table (a header row with every required column). Its sheets: ${listed} and 2 more. Pass --sheet NAME to read one of them (--sheet "Week 1").`);
  });
});

describe('a sheet holding a pivot table', () => {
  /** The pivot table's shown cells, as Excel writes them into its sheet. */
  const PIVOT_ROWS =
    row(3, `${text('A3', 'Row Labels')}${text('B3', 'Sum of rate')}`) +
    row(4, `${text('A4', 'Ready-mix')}${num('B4', 1250)}`) +
    row(5, `${text('A5', 'Rebar')}${num('B5', 980)}`) +
    row(6, `${text('A6', 'Grand Total')}${num('B6', 2230)}`);
  const PIVOT_PARTS: Array<[string, string]> = [
    ['xl/worksheets/_rels/sheet1.xml.rels', `${DECL}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/pivotTable" Target="../pivotTables/pivotTable1.xml"/></Relationships>`],
    ['xl/pivotTables/pivotTable1.xml', `${DECL}<pivotTableDefinition xmlns="${MAIN}" name="PivotTable1" cacheId="3" applyNumberFormats="0" applyBorderFormats="0" applyFontFormats="0" applyPatternFormats="0" applyAlignmentFormats="0" applyWidthHeightFormats="1" dataCaption="Values" updatedVersion="8" minRefreshableVersion="3" useAutoFormatting="1" itemPrintTitles="1" createdVersion="8" indent="0" outline="1" outlineData="1" multipleFieldFilters="0"><location ref="A3:B6" firstHeaderRow="1" firstDataRow="1" firstDataCol="1"/><pivotFields count="2"><pivotField axis="axisRow" showAll="0"><items count="3"><item x="0"/><item x="1"/><item t="default"/></items></pivotField><pivotField dataField="1" showAll="0"/></pivotFields><rowFields count="1"><field x="0"/></rowFields><rowItems count="3"><i><x/></i><i><x v="1"/></i><i t="grand"><x/></i></rowItems><colItems count="1"><i/></colItems><dataFields count="1"><dataField name="Sum of rate" fld="1" baseField="0" baseItem="0"/></dataFields></pivotTableDefinition>`],
    ['xl/pivotTables/_rels/pivotTable1.xml.rels', `${DECL}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/pivotCacheDefinition" Target="../pivotCache/pivotCacheDefinition1.xml"/></Relationships>`],
    ['xl/pivotCache/pivotCacheDefinition1.xml', `${DECL}<pivotCacheDefinition xmlns="${MAIN}" xmlns:r="${REL}" r:id="rId1" refreshedBy="J. Ortiz" refreshedDate="46082.5" createdVersion="8" refreshedVersion="8" minRefreshableVersion="3" recordCount="2"><cacheSource type="worksheet"><worksheetSource ref="A1:F3" sheet="Data"/></cacheSource><cacheFields count="2"><cacheField name="item_name" numFmtId="0"><sharedItems count="2"><s v="Ready-mix"/><s v="Rebar"/></sharedItems></cacheField><cacheField name="rate" numFmtId="0"><sharedItems containsSemiMixedTypes="0" containsString="0" containsNumber="1" containsInteger="1" minValue="980" maxValue="1250"/></cacheField></cacheFields></pivotCacheDefinition>`],
  ];
  const PIVOT_TYPES = [
    '<Override PartName="/xl/pivotTables/pivotTable1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.pivotTable+xml"/>',
    '<Override PartName="/xl/pivotCache/pivotCacheDefinition1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.pivotCacheDefinition+xml"/>',
  ];
  const BILL_ROWS =
    row(1, ['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate', 'qty'].map((h, i) => text(`${'ABCDEF'[i]}1`, h)).join('')) +
    row(2, `${text('A2', 'B-1')}${num('B2', 1042)}${num('C2', 55)}${text('D2', 'Ready-mix')}${num('E2', 1250)}${num('F2', 1)}`) +
    row(3, `${text('A3', 'B-2')}${num('B3', 1042)}${num('C3', 56)}${text('D3', 'Rebar')}${num('E3', 980)}${num('F3', 1)}`);

  it('is said to be a pivot table, never "has no header row", when the data sheet beside it is hidden', async () => {
    const file = write('pivot-hidden-data.xlsx', { sheets: [{ name: 'Summary', rows: PIVOT_ROWS }, { name: 'Data', state: 'hidden', rows: BILL_ROWS }] }, PIVOT_PARTS, PIVOT_TYPES);
    const err = await planBills(file).then(() => undefined, (e: unknown) => e as Error);
    expect(err!.message).toBe(
      `${file}: no visible sheet holds a table (a header row with every required column). Its sheets: "Summary" (a pivot table, 4 rows), "Data" (hidden, 3 rows, with a header row). Pass --sheet NAME to read one of them (--sheet "Data").`,
    );
  });

  it('does not stop the file: the visible data sheet beside it is read', async () => {
    const file = write('pivot-beside-data.xlsx', { sheets: [{ name: 'Summary', rows: PIVOT_ROWS }, { name: 'Data', rows: BILL_ROWS }] }, PIVOT_PARTS, PIVOT_TYPES);
    const plan = await planBills(file);
    expect(plan.table?.sheet).toBe('Data');
    expect(plan.records.map((r) => r.payload)).toEqual([
      { PRJ_ID: 1042, VENDOR_ID: 55, ITEMS: [{ NAME: 'Ready-mix', RATE: '1250', QTY: 1 }] },
      { PRJ_ID: 1042, VENDOR_ID: 56, ITEMS: [{ NAME: 'Rebar', RATE: '980', QTY: 1 }] },
    ]);
  });
});
