import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planBills, planEstimates } from '../src/import/index.ts';
import { writeExcelXlsx, xmlEscape } from './helpers/excel-xml.ts';

/*
 * What a cell shows (docs/reading-rules.md): in a name, description or note field a number is read as
 * Excel shows it under its format; in a key, id, reference or code it stays its digits; a number
 * that is not date-formatted is no date; every .xlsx row error names its cell (`Sheet1!D2`). The
 * workbook's styles.xml is written as Excel writes one with these formats: the workbook's own
 * codes under `<numFmts>` (164 and up), the built-in ones (4 `#,##0.00`, 10 `0.00%`, 39
 * `#,##0.00_);(#,##0.00)`) by id only, and one `<xf>` per format in `<cellXfs>`.
 */

const dir = mkdtempSync(join(tmpdir(), 'buildsync-cell-formats-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STYLES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
  '<numFmts count="1"><numFmt numFmtId="164" formatCode="#,##0.00\\ &quot;€&quot;"/></numFmts>' +
  '<fonts count="1"><font><sz val="11"/><color theme="1"/><name val="Calibri"/><family val="2"/><scheme val="minor"/></font></fonts>' +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="5"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
  '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="10" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="39" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="4" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>' +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles><dxfs count="0"/><tableStyles count="0" defaultTableStyle="TableStyleMedium2" defaultPivotStyle="PivotStyleLight16"/></styleSheet>';
const EURO = 1;
const PERCENT = 2;
const PARENS = 3;
const COMMA = 4;

type Cell = string | number | { v: number; s: number } | undefined;
const LETTERS = 'ABCDEFGHIJ';

function workbook(header: string[], rows: Cell[][]): string {
  const file = join(dir, `formats-${header.length}-${rows.length}-${Math.random().toString(36).slice(2, 8)}.xlsx`);
  const cell = (ref: string, c: Cell): string => {
    if (c === undefined) return '';
    if (typeof c === 'string') return `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(c)}</t></is></c>`;
    if (typeof c === 'number') return `<c r="${ref}"><v>${c}</v></c>`;
    return `<c r="${ref}" s="${c.s}"><v>${c.v}</v></c>`;
  };
  const xml = [header as Cell[], ...rows].map((cells, r) => `<row r="${r + 1}">${cells.map((c, i) => cell(`${LETTERS[i]}${r + 1}`, c)).join('')}</row>`).join('');
  writeExcelXlsx(file, { sheets: [{ name: 'Sheet1', rows: xml }], parts: { 'xl/styles.xml': STYLES } });
  return file;
}

describe('number formats in note, name and key fields', () => {
  it('a currency, a percent and a parenthesised format show as Excel shows them in notes, a description and an item name; a bill_ref in Comma Style stays 10045', async () => {
    const file = workbook(
      ['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate', 'item_description', 'notes'],
      [[{ v: 10045, s: COMMA }, 1042, 55, { v: -38245.67, s: PARENS }, 100, { v: 0.25, s: PERCENT }, { v: 355232.3249, s: EURO }]],
    );
    const plan = await planBills(file);
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.payload)).toEqual([
      { PRJ_ID: 1042, VENDOR_ID: 55, NOTES: '355,232.32 €', ITEMS: [{ NAME: '(38,245.67)', RATE: '100', DESCRIPTION: '25.00%' }] },
    ]);
    expect(plan.records[0]!.key).toContain('10045');
    expect(plan.records[0]!.key).not.toContain('10,045');
  });

  it('a cost code (a code) formatted #,##0.00 keeps its digits; a description formatted so shows them grouped', async () => {
    const file = workbook(
      ['project_id', 'estimate_name', 'category', 'subcategory', 'cost_code', 'description'],
      [[1042, 'Kitchen', 'Cabinets', 'Uppers', { v: 2410, s: COMMA }, { v: 2410, s: COMMA }]],
    );
    const plan = await planEstimates(file);
    expect(plan.statics).toEqual([]);
    expect(plan.records[0]!.payload.CATS).toEqual([{ NAME: 'Cabinets', SUBCATS: [{ NAME: 'Uppers', COST_CODE: '2410', DESCRIPTION: '2,410.00' }] }]);
  });
});

describe('numbers in date fields', () => {
  it('a General number (43990) in a date column is a row error naming the cell, never a date', async () => {
    const file = workbook(['bill_ref', 'project_id', 'vendor_id', 'invoice_date', 'item_name', 'rate'], [['B-7', 1042, 55, 43990, 'Ready-mix', 1250]]);
    const plan = await planBills(file);
    expect(plan.records).toEqual([]);
    expect(plan.statics.map((s) => [s.line, s.status, s.message])).toEqual([[
      2,
      'invalid',
      `${file}:2 column invoice_date (Sheet1!D2): expected a date like 2026-03-01, 2026-03-01T08:30:00 or 03/01/2026, got the number 43990: the cell is not formatted as a date, so Excel shows it as a number, not a date. Format the cell as a date (or type the date) and save the workbook again`,
    ]]);
  });
});

describe('significant digits of a CSV number', () => {
  it('1000000000000000 has one significant digit: read; 10000000000000001 has 17: a row error', async () => {
    const file = join(dir, 'digits.csv');
    writeFileSync(file, 'project_id,estimate_name,category,subcategory,qty,unit_cost\r\n1042,Kitchen,Cabinets,Uppers,1000000000000000,1\r\n1043,Bath,Tile,Floor,10000000000000001,1\r\n');
    const plan = await planEstimates(file);
    expect(plan.records.map((r) => r.payload)).toEqual([{ NAME: 'Kitchen', PROJECT_ID: 1042, CATS: [{ NAME: 'Cabinets', SUBCATS: [{ NAME: 'Uppers', QTY: 1000000000000000, UNIT_COST: 1 }] }] }]);
    expect(plan.statics.map((s) => [s.line, s.status])).toEqual([[3, 'invalid']]);
    expect(plan.statics[0]!.message).toContain('"10000000000000001" has 17 significant digits');
  });
});

describe('a PlanSwift-style estimate in sections: indent levels and folder totals', () => {
  /** Styles as Excel writes an indented cell: `applyAlignment` and `<alignment horizontal="left" indent="N"/>` in its `<xf>`. */
  const INDENT_STYLES =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
    '<fonts count="1"><font><sz val="11"/><name val="Calibri"/><family val="2"/><scheme val="minor"/></font></fonts>' +
    '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
    '<cellXfs count="4"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
    '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0" applyAlignment="1"><alignment horizontal="left" indent="1"/></xf>' +
    '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0" applyAlignment="1"><alignment horizontal="left" indent="2"/></xf>' +
    '<xf numFmtId="4" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>' +
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles><dxfs count="0"/><tableStyles count="0" defaultTableStyle="TableStyleMedium2" defaultPivotStyle="PivotStyleLight16"/></styleSheet>';

  it('a folder one level deeper than the category heading is its subcategory; its total in the ignored Total column does not stop it being a heading', async () => {
    const file = join(dir, 'planswift.xlsx');
    const name = (r: number, s: string, indent: number) => `<c r="A${r}"${indent === 0 ? '' : ` s="${indent}"`} t="inlineStr"><is><t>${xmlEscape(s)}</t></is></c>`;
    const total = (r: number, n: number) => `<c r="E${r}" s="3"><v>${n}</v></c>`;
    const item = (r: number, s: string, qty: number, unit: string, each: number) =>
      `<row r="${r}">${name(r, s, 2)}<c r="B${r}"><v>${qty}</v></c><c r="C${r}" t="inlineStr"><is><t>${unit}</t></is></c><c r="D${r}" s="3"><v>${each}</v></c>${total(r, qty * each)}</row>`;
    const folder = (r: number, s: string, indent: number, sum: number) => `<row r="${r}">${name(r, s, indent)}${total(r, sum)}</row>`;
    const header = `<row r="1">${['Name', 'Qty', 'Units', 'Price Each', 'Total'].map((h, i) => `<c r="${'ABCDE'[i]}1" t="inlineStr"><is><t>${h}</t></is></c>`).join('')}</row>`;
    writeExcelXlsx(file, {
      sheets: [{
        name: 'Takeoff',
        rows: header + folder(2, 'Sitework', 0, 2490) + folder(3, 'Excavation', 1, 2490) + item(4, 'Trench', 120, 'lf', 14.5) + item(5, 'Backfill', 120, 'lf', 6.25) +
          folder(6, 'Concrete', 0, 7770) + folder(7, 'Footings', 1, 7770) + item(8, 'Footing pour', 42, 'cy', 185),
      }],
      parts: { 'xl/styles.xml': INDENT_STYLES },
    });
    const { parseMappingFile } = await import('../src/mapping/index.ts');
    const mapping = parseMappingFile({
      layout: 'sections',
      constants: { project_id: 1042, estimate_name: 'Bayview Fire Station' },
      columns: { Name: 'item', Qty: 'qty', Units: 'unit', 'Price Each': 'unit_cost' },
      ignore: ['Total'],
    }, 'map.json');
    const plan = await planEstimates(file, { mapping });
    expect(plan.records.map((r) => r.payload)).toEqual([{
      NAME: 'Bayview Fire Station',
      PROJECT_ID: 1042,
      CATS: [
        { NAME: 'Sitework', SUBCATS: [{ NAME: 'Excavation', ITEMS: [{ NAME: 'Trench', QTY: 120, UNIT: 'lf', UNIT_COST: 14.5 }, { NAME: 'Backfill', QTY: 120, UNIT: 'lf', UNIT_COST: 6.25 }] }] },
        { NAME: 'Concrete', SUBCATS: [{ NAME: 'Footings', ITEMS: [{ NAME: 'Footing pour', QTY: 42, UNIT: 'cy', UNIT_COST: 185 }] }] },
      ],
    }]);
    // A heading is reported when the next one closes it.
    expect(plan.statics.map((s) => [s.line, s.status, s.reason, s.message]).sort((a, b) => (a[0] as number) - (b[0] as number))).toEqual([
      [2, 'ignored', 'heading', 'section heading: category "Sitework" of the rows under it'],
      [3, 'ignored', 'heading', 'section heading: subcategory "Excavation" of the rows under it'],
      [6, 'ignored', 'heading', 'section heading: category "Concrete" of the rows under it'],
      [7, 'ignored', 'heading', 'section heading: subcategory "Footings" of the rows under it'],
    ]);
  });
});
