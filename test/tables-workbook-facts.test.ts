import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openTable, type SourceRow } from '../src/tables/index.ts';
import { writeExcelXlsx, type ExcelWorkbook } from './helpers/excel-xml.ts';

/*
 * What a workbook says besides its cells (README "Where the table is", "What a cell shows"): its
 * tabs, the active one, merged ranges, hidden rows and columns, the autofilter, and each cell's
 * number format. Read from workbooks LibreOffice wrote (test/fixtures/workbooks/README.md) and
 * from workbooks written the way Excel writes its XML (test/helpers/excel-xml.ts).
 */

const fixtures = join(import.meta.dirname, 'fixtures', 'workbooks');
const dir = mkdtempSync(join(tmpdir(), 'buildsync-workbook-facts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function book(workbook: ExcelWorkbook): string {
  const file = join(dir, `book-${++n}.xlsx`);
  writeExcelXlsx(file, workbook);
  return file;
}

async function rowsOf(file: string, sheet?: string): Promise<SourceRow[]> {
  const table = await openTable(file, sheet === undefined ? {} : { sheet });
  const rows: SourceRow[] = [];
  for await (const row of table.rows()) rows.push(row);
  return rows;
}

const MAIN_NS = 'xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
/** A worksheet tab as `OpenedTable.workbook` lists it. */
const tab = (name: string, state = 'visible'): object => ({ name, state, worksheet: true });
/** A `SourceRow.formats` entry. */
const fmt = (kind: string, id: number, code: string, order?: string): object => (order === undefined ? { kind, id, code } : { kind, id, code, order });
const inline = (ref: string, text: string): string => `<x:c r="${ref}" t="inlineStr"><x:is><x:t>${text}</x:t></x:is></x:c>`;

describe('a workbook LibreOffice wrote (sheet-facts.xlsx)', () => {
  const file = join(fixtures, 'sheet-facts.xlsx');

  it('lists its sheets in tab order with their visibility; LibreOffice headless saves the first tab as active', async () => {
    const table = await openTable(file, { sheet: 'Estimates' });
    expect(table.workbook).toEqual({
      sheets: [tab('Lists'), tab('Estimates'), tab('Archive', 'hidden')],
      activeTab: 0,
      sheet: 'Estimates',
    });
    // Without --sheet, the first visible sheet is read (as before); the facts name it.
    expect((await openTable(file)).workbook?.sheet).toBe('Lists');
  });

  it('knows the merged range, the hidden column, the autofilter, and which hidden row the filter hides', async () => {
    const table = await openTable(file, { sheet: 'Estimates' });
    expect(await table.sheetFacts!()).toEqual({
      merged: [{ ref: 'A2:A4', top: 2, left: 1, bottom: 4, right: 1 }],
      hiddenRows: [4, 7],
      filterHiddenRows: [4],
      hiddenColumns: [10],
      autoFilter: { ref: 'A1:L5', top: 1, left: 1, bottom: 5, right: 12 },
    });
    // Read once per table.
    expect(table.sheetFacts!()).toBe(table.sheetFacts!());
  });

  it('gives each number and date cell its number format, classified, and nothing for General or text cells', async () => {
    const rows = await rowsOf(file, 'Estimates');
    const [walls, floors, skip, studs] = rows;
    expect(walls!.values.slice(0, 6)).toEqual(['Demolition', 'Walls', 310, 2410, 0.15, 0.0825]);
    expect(walls!.formats).toEqual([
      undefined, // A: text
      undefined, // B: text
      fmt('padded', 165, '0000'),
      fmt('padded', 166, '00\\-000'),
      fmt('percent', 167, '0%'),
      fmt('percent', 168, '0.00%'),
      fmt('date', 169, 'dd/mm/yyyy', 'DMY'),
      fmt('date', 170, 'mm/dd/yyyy', 'MDY'),
      undefined, // I: the text "00123" in a text-formatted cell is text already
      undefined, // J: text
      fmt('date', 172, 'yyyy\\-mm\\-dd', 'YMD'),
      fmt('other', 173, '#,##0.00'),
    ]);
    expect(floors!.formats).toEqual([undefined, undefined, fmt('padded', 165, '0000'), ...Array(9).fill(undefined)]);
    expect(skip!.formats).toBeUndefined();
    // A number typed into a cell before it was formatted as text (`@`).
    expect(studs!.values[8]).toBe(42);
    expect(studs!.formats?.[8]).toEqual(fmt('text', 171, '@'));
    // LibreOffice writes its default style as a custom "General" (numFmtId 164): still General.
    expect(rows.map((r) => r.line)).toEqual([2, 3, 4, 5, 7]);
  });
});

describe('a workbook written as Excel writes it', () => {
  it('reads hidden and very hidden tabs and the active tab', async () => {
    const file = book({
      activeTab: 2,
      sheets: [
        { name: 'Lists', state: 'hidden', rows: '<row r="1"><c r="A1" t="inlineStr"><is><t>list</t></is></c></row>' },
        { name: 'Codes', state: 'veryHidden', rows: '<row r="1"><c r="A1" t="inlineStr"><is><t>code</t></is></c></row>' },
        { name: 'Estimates', rows: '<row r="1"><c r="A1" t="inlineStr"><is><t>item</t></is></c></row>' },
      ],
    });
    const table = await openTable(file);
    expect(table.workbook).toEqual({
      sheets: [tab('Lists', 'hidden'), tab('Codes', 'veryHidden'), tab('Estimates')],
      activeTab: 2,
      sheet: 'Estimates',
    });
    expect(await table.sheetFacts!()).toEqual({ merged: [], hiddenRows: [], filterHiddenRows: [], hiddenColumns: [], autoFilter: undefined });
  });

  it('without activeTab the first tab is the active one', async () => {
    const file = book({ sheets: [{ name: 'Sheet1', rows: '<row r="1"><c r="A1" t="inlineStr"><is><t>item</t></is></c></row>' }] });
    expect((await openTable(file)).workbook?.activeTab).toBe(0);
  });

  it('reads merged ranges, hidden rows and columns and the autofilter after sheetData, with prefixed elements, ignoring look-alikes', async () => {
    const xml =
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n<x:worksheet ${MAIN_NS}>` +
      '<x:sheetViews><x:sheetView workbookViewId="0"/></x:sheetViews>' +
      '<x:cols><x:col min="2" max="3" width="0" hidden="1" customWidth="1"/><x:col min="5" max="5" width="9" hidden="0"/></x:cols>' +
      '<x:sheetData>' +
      `<x:row r="1">${inline('A1', 'a')}${inline('B1', 'b')}${inline('C1', 'c')}${inline('D1', 'd')}${inline('E1', 'e')}</x:row>` +
      `<x:row r="2" spans="1:5">${inline('A2', 'Demolition')}${inline('D2', 'walls')}</x:row>` +
      `<x:row r="3" spans="1:5" hidden="1">${inline('D3', 'filtered out')}</x:row>` +
      // Text that reads like the attribute is text, not a hidden row.
      `<x:row r="4" spans="1:5">${inline('D4', 'row hidden="1" here')}</x:row>` +
      `<x:row r="6" spans="1:5" ht="0" customHeight="1" hidden = 'true'>${inline('D6', 'hidden by hand')}</x:row>` +
      `<x:row r="7" hidden="0">${inline('D7', 'shown')}</x:row>` +
      '</x:sheetData>' +
      '<x:autoFilter ref="A1:E4"><x:filterColumn colId="3"><x:filters><x:filter val="walls"/></x:filters></x:filterColumn></x:autoFilter>' +
      // A custom view's own filter is not the sheet's.
      '<x:customSheetViews><x:customSheetView guid="{00000000-0000-0000-0000-000000000001}"><x:autoFilter ref="A1:A9"/></x:customSheetView></x:customSheetViews>' +
      '<x:mergeCells count="2"><x:mergeCell ref="A2:A4"/><x:mergeCell ref="D6:E6"/></x:mergeCells>' +
      '</x:worksheet>';
    const table = await openTable(book({ sheets: [{ name: 'Sheet1', xml }], deflate: true }));
    expect(await table.sheetFacts!()).toEqual({
      merged: [
        { ref: 'A2:A4', top: 2, left: 1, bottom: 4, right: 1 },
        { ref: 'D6:E6', top: 6, left: 4, bottom: 6, right: 5 },
      ],
      hiddenRows: [3, 6],
      filterHiddenRows: [3],
      hiddenColumns: [2, 3],
      autoFilter: { ref: 'A1:E4', top: 1, left: 1, bottom: 4, right: 5 },
    });
  });

  it('finds every hidden row of a long sheet, whatever chunk boundary cuts its tag', async () => {
    const rows: string[] = ['<row r="1"><c r="A1" t="inlineStr"><is><t>item</t></is></c></row>'];
    const expected: number[] = [];
    for (let r = 2; r <= 20_000; r++) {
      const hidden = r % 7 === 0 || r % 1000 === 1;
      if (hidden) expected.push(r);
      // Excel writes hidden="1" on hidden rows only; LibreOffice writes hidden="false" on the others.
      rows.push(`<row r="${r}" spans="1:1" ht="15" customHeight="1"${hidden ? ' hidden="1"' : r % 2 ? ' hidden="false"' : ''}><c r="A${r}"><v>${r}</v></c></row>`);
    }
    const table = await openTable(book({ sheets: [{ name: 'Sheet1', rows: rows.join('') }], deflate: true }));
    const facts = await table.sheetFacts!();
    expect(facts.hiddenRows).toEqual(expected);
    expect(facts.filterHiddenRows).toEqual([]);
  });

  it('numbers a hidden row without r as the row reader does: it follows the row before', async () => {
    const rows =
      '<row r="1"><c r="A1" t="inlineStr"><is><t>item</t></is></c></row>' +
      '<row r="3"><c r="A3"><v>3</v></c></row>' +
      '<row hidden="1"><c><v>4</v></c></row>' +
      '<row><c><v>5</v></c></row>' +
      '<row hidden="1"><c><v>6</v></c></row>';
    const file = book({ sheets: [{ name: 'Sheet1', rows }] });
    await expect((await openTable(file)).sheetFacts!()).resolves.toMatchObject({ hiddenRows: [4, 6] });
    expect((await rowsOf(file)).map((r) => [r.line, r.values[0]])).toEqual([
      [3, 3],
      [4, 4],
      [5, 5],
      [6, 6],
    ]);
  });

  it('a column range hidden to the end of the sheet lists its columns', async () => {
    const xml =
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
      '<cols><col min="16383" max="16384" hidden="true"/></cols>' +
      '<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>item</t></is></c></row></sheetData><mergeCells count="1"><mergeCell ref="B7"/></mergeCells></worksheet>';
    const facts = await (await openTable(book({ sheets: [{ name: 'Sheet1', xml }] }))).sheetFacts!();
    expect(facts.hiddenColumns).toEqual([16383, 16384]);
    expect(facts.merged).toEqual([{ ref: 'B7', top: 7, left: 2, bottom: 7, right: 2 }]);
  });

  it('classifies built-in and custom number formats', async () => {
    const xfs = [0, 9, 10, 14, 49, 164, 165, 166, 167, 168, 22, 169, 170, 171, 2, 15];
    const styles =
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
      '<numFmts count="8">' +
      '<numFmt numFmtId="164" formatCode="&quot;INV-&quot;0"/>' +
      '<numFmt numFmtId="165" formatCode="0.0%;[Red]\\-0.0%"/>' +
      '<numFmt numFmtId="166" formatCode="[$-409]d\\-mmm\\-yyyy;@"/>' +
      '<numFmt numFmtId="167" formatCode="000000"/>' +
      '<numFmt numFmtId="168" formatCode="#,##0"/>' +
      '<numFmt numFmtId="169" formatCode="h:mm"/>' +
      '<numFmt numFmtId="170" formatCode="m/d/yy"/>' +
      '<numFmt numFmtId="171" formatCode="yyyy/mm/dd\\ hh:mm:ss"/>' +
      '</numFmts>' +
      '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="1"><fill><patternFill patternType="none"/></fill></fills>' +
      '<borders count="1"><border/></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
      `<cellXfs count="${xfs.length}">${xfs.map((id) => `<xf numFmtId="${id}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`).join('')}</cellXfs>` +
      '</styleSheet>';
    const header = `<row r="1">${xfs.map((_, i) => `<c r="${col(i)}1" t="inlineStr"><is><t>h${i}</t></is></c>`).join('')}</row>`;
    const values = `<row r="2">${xfs.map((_, i) => `<c r="${col(i)}2" s="${i}"><v>46083</v></c>`).join('')}</row>`;
    const file = book({ sheets: [{ name: 'Sheet1', rows: header + values }], parts: { 'xl/styles.xml': styles } });
    const [row] = await rowsOf(file);
    expect(row!.formats).toEqual([
      undefined, // General
      fmt('percent', 9, '0%'),
      fmt('percent', 10, '0.00%'),
      // Excel shows id 14 in the reader's short date order: it proves no order.
      fmt('date', 14, 'm/d/yyyy'),
      fmt('text', 49, '@'),
      fmt('padded', 164, '"INV-"0'),
      fmt('percent', 165, '0.0%;[Red]\\-0.0%'),
      fmt('date', 166, '[$-409]d\\-mmm\\-yyyy;@', 'DMY'),
      fmt('padded', 167, '000000'),
      fmt('other', 168, '#,##0'),
      fmt('date', 22, 'm/d/yyyy h:mm'),
      fmt('date', 169, 'h:mm'),
      fmt('date', 170, 'm/d/yy', 'MDY'),
      fmt('date', 171, 'yyyy/mm/dd\\ hh:mm:ss', 'YMD'),
      fmt('other', 2, '0.00'),
      fmt('date', 15, 'd-mmm-yy', 'DMY'),
    ]);
  });
});

it('a CSV file has no workbook facts', async () => {
  const file = join(dir, 'plain.csv');
  writeFileSync(file, 'item,qty\nNails,5\n');
  const table = await openTable(file);
  expect(table.workbook).toBeUndefined();
  expect(table.sheetFacts).toBeUndefined();
  expect((await rowsOf(file))[0]).toEqual({ line: 2, values: ['Nails', '5'] });
});

/** 0 → A, 15 → P. */
function col(i: number): string {
  return String.fromCharCode(65 + i);
}
