import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { errorsFileChunks, errorsFileSource, planBills, planEstimates, wirePayload } from '../src/import/index.ts';
import { STYLE, writeExcelXlsx, xmlEscape } from './helpers/excel-xml.ts';
import { failure } from './helpers/failure.ts';

/*
 * What a cell shows (README "What a cell shows (.xlsx)"): workbooks written the way Excel writes
 * them (test/helpers/excel-xml.ts), planned as an import plans them. A number is read at Excel's
 * 15 significant digits; a percent-formatted fraction is the percentage it shows in a percent
 * field and a row error elsewhere; a code formatted `0000` keeps its zeros in a text field; a
 * date cell in a text field is a row error; a date format proves the file's day/month order.
 */

const dir = mkdtempSync(join(tmpdir(), 'buildsync-cell-shows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** A cell: text (inline), a General number, or a number with a style and an optional formula. */
type Cell = string | number | { v: number; s?: number; f?: string } | undefined;

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function cellXml(ref: string, c: Cell): string {
  if (c === undefined) return '';
  if (typeof c === 'string') return `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(c)}</t></is></c>`;
  if (typeof c === 'number') return `<c r="${ref}"><v>${c}</v></c>`;
  return `<c r="${ref}"${c.s === undefined ? '' : ` s="${c.s}"`}>${c.f === undefined ? '' : `<f>${xmlEscape(c.f)}</f>`}<v>${c.v}</v></c>`;
}

function workbook(header: string[], rows: Cell[][]): string {
  const file = join(dir, `book-${++n}.xlsx`);
  const all = [header as Cell[], ...rows];
  const xml = all.map((cells, r) => `<row r="${r + 1}">${cells.map((c, i) => cellXml(`${LETTERS[i]}${r + 1}`, c)).join('')}</row>`).join('');
  writeExcelXlsx(file, { sheets: [{ name: 'Sheet1', rows: xml }] });
  return file;
}

/** Excel's serial day (1900 system) of a date. */
function serial(y: number, m: number, d: number): number {
  return Date.UTC(y, m - 1, d) / 86_400_000 + 25_569;
}

const EST = ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'cost_code', 'unit', 'qty', 'rate', 'line_item_markup', 'description'];

/** One item row of an estimate, with `cells` in place of the defaults by column name. */
function estimateRow(cells: Partial<Record<(typeof EST)[number], Cell>>): Cell[] {
  const base: Record<string, Cell> = { project_id: 1042, estimate_name: 'Kitchen', category: 'Cabinets', subcategory: 'Uppers', item: 'Crown', unit: 'lf', qty: 10, rate: 15 };
  return EST.map((c) => (c in cells ? cells[c] : base[c]));
}

describe('estimate cells read as they show', () => {
  const sent: Array<[string, Partial<Record<string, Cell>>, Record<string, unknown>]> = [
    ['a markup typed 15% (0.15 formatted 0%) is 15', { line_item_markup: { v: 0.15, s: STYLE.percent } }, { LINE_ITEM_MARKUP: 15 }],
    ['a markup shown 8.25% (0.0825 formatted 0.00%) is 8.25, not 8.250000000000002', { line_item_markup: { v: 0.0825, s: STYLE.percent2 } }, { LINE_ITEM_MARKUP: 8.25 }],
    ['a markup typed as the text 15% is 15, as before', { line_item_markup: '15%' }, { LINE_ITEM_MARKUP: 15 }],
    ['=100*1.15 (stored 114.99999999999999, shown 115.00) is 115', { rate: { v: 114.99999999999999, s: STYLE.decimal, f: '100*1.15' } }, { RATE: 115 }],
    ['=0.1+0.2 (stored 0.30000000000000004) is 0.3', { qty: { v: 0.30000000000000004, f: '0.1+0.2' } }, { QTY: 0.3 }],
    ['a cost code formatted 0000 keeps its zero', { cost_code: { v: 310, s: STYLE.zeros4 } }, { COST_CODE: '0310' }],
    ['a cost code formatted 00-000 is shown with its dash', { cost_code: { v: 2410, s: STYLE.zip5 } }, { COST_CODE: '02-410' }],
    ['a code labelled by its format ("INV-"0000) is read with its label', { cost_code: { v: 42, s: STYLE.invoice } }, { COST_CODE: 'INV-0042' }],
    ['a 12-digit code held as a number is its digits, never 1.23457E+11', { cost_code: 123456789012 }, { COST_CODE: '123456789012' }],
    ['a number formatted #,##0.00 in a code field is its digits', { cost_code: { v: 1234.5, s: STYLE.decimal } }, { COST_CODE: '1234.5' }],
    ['a number formatted #,##0.00 in a description shows as Excel shows it', { description: { v: 1234.5, s: STYLE.decimal } }, { DESCRIPTION: '1,234.50' }],
  ];
  for (const [name, cells, fields] of sent) {
    it(name, async () => {
      const plan = await planEstimates(workbook(EST, [estimateRow(cells)]));
      expect(plan.statics).toEqual([]);
      const item = (plan.records[0]!.payload.CATS![0]!.SUBCATS![0]!.ITEMS as Record<string, unknown>[])[0]!;
      expect(item).toEqual({ NAME: 'Crown', UNIT: 'lf', QTY: 10, RATE: 15, ...fields });
    });
  }

  const refused: Array<[string, Partial<Record<string, Cell>>, string]> = [
    ['3-4 that Excel turned into a date, in a subcategory', { subcategory: { v: serial(2026, 3, 4), s: STYLE.date } },
      'column subcategory (Sheet1!D2): Excel stored this as a date; type it as text: the cell holds the date 2026-03-04 (formatted "m/d/yyyy"), not the text typed. Format the column as Text (or start the entry with \') and type the value again'],
    ['1/2 that Excel turned into a date, in a unit', { unit: { v: serial(2026, 1, 2), s: STYLE.dmy } },
      'column unit (Sheet1!G2): Excel stored this as a date; type it as text: the cell holds the date 2026-01-02 (formatted "dd/mm/yyyy"), not the text typed. Format the column as Text (or start the entry with \') and type the value again'],
    ['a percent-formatted quantity', { qty: { v: 0.15, s: STYLE.percent } },
      'column qty (Sheet1!H2): this cell is formatted as a percent: it shows 15% (the number 0.15), and this column is not a percentage. Type the number it means without the percent format'],
    ['a 20-digit quantity (its last digits are not in the workbook)', { qty: 12345678901234567000 /* the double nearest 12345678901234567890 */ },
      'column qty (Sheet1!H2): the number 12345678901234567000 has more than 15 digits; a spreadsheet keeps 15 significant digits (Excel shows it as 1.23457E+19), so its last digits are already lost. Check the value; if it is a code or a reference, type it as text (format the column as Text first)'],
  ];
  for (const [name, cells, message] of refused) {
    it(`refuses ${name}`, async () => {
      const file = workbook(EST, [estimateRow(cells)]);
      const plan = await planEstimates(file);
      expect(plan.records).toEqual([]);
      expect(plan.statics.map((s) => [s.line, s.status, s.message])).toEqual([[2, 'invalid', `${file}:2 ${message}`]]);
    });
  }

  it('the errors file writes the cells of a refused row as they showed: 15 for 15%, 0310 with its zero, 115 for =100*1.15', async () => {
    const file = workbook(EST, [estimateRow({ cost_code: { v: 310, s: STYLE.zeros4 }, qty: { v: 0.5, s: STYLE.percent }, rate: { v: 114.99999999999999, f: '100*1.15' }, line_item_markup: { v: 0.15, s: STYLE.percent } })]);
    const plan = await planEstimates(file);
    let text = '';
    for await (const chunk of errorsFileChunks(errorsFileSource(plan, file, {}), new Map(plan.statics.map((s) => [s.line, s.message])))) text += chunk.text;
    const lines = text.slice(1).split(/\r?\n/);
    expect(lines[0]).toBe(`${EST.join(',')},source_line,error`);
    // qty stays as the workbook holds it: it was refused (a percent in a quantity), and the user fixes it.
    expect(lines[1]!.split(',').slice(0, EST.length)).toEqual(['1042', 'Kitchen', 'Cabinets', 'Uppers', 'Crown', '0310', 'lf', '0.5', '115', '15', '']);
  });

  it('a markup row shown 10% sends the value 10', async () => {
    const header = ['project_id', 'estimate_name', 'category', 'markup_name', 'markup_value'];
    const plan = await planEstimates(workbook(header, [[1042, 'Kitchen', 'Cabinets'], [1042, 'Kitchen', undefined, 'Overhead', { v: 0.1, s: STYLE.percent }]]));
    expect(plan.statics).toEqual([]);
    expect(plan.records[0]!.payload.COMS).toEqual([{ NAME: 'Overhead', VALUE: 10 }]);
  });
});

const BILL = ['bill_ref', 'project_id', 'vendor_id', 'invoice_date', 'due_date', 'item_name', 'rate', 'qty', 'tax_percent'];

function billRow(cells: Partial<Record<(typeof BILL)[number], Cell>>): Cell[] {
  const base: Record<string, Cell> = { bill_ref: 'B-1', project_id: 10008, vendor_id: 55, item_name: 'Ready-mix', rate: 1250, qty: 6 };
  return BILL.map((c) => (c in cells ? cells[c] : base[c]));
}

describe('bill cells read as they show', () => {
  it('a 12-digit invoice number held as a number is the bill_ref 123456789012', async () => {
    const plan = await planBills(workbook(BILL, [billRow({ bill_ref: 123456789012 })]));
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => [r.key, r.label])).toEqual([['bill:ref:123456789012|10008|55', 'bill 123456789012 / project 10008 / vendor 55']]);
  });

  it('a rate of =100*1.15 is 115 (sent 115.00), not refused for its third decimal; a tax shown 8.25% is 8.25', async () => {
    const plan = await planBills(workbook(BILL, [billRow({ rate: { v: 114.99999999999999, s: STYLE.decimal, f: '100*1.15' }, tax_percent: { v: 0.0825, s: STYLE.percent2 } })]));
    expect(plan.statics).toEqual([]);
    expect(plan.records[0]!.payload.ITEMS).toEqual([{ NAME: 'Ready-mix', RATE: '115', QTY: 6, TAX_PERCENT: 8.25 }]);
  });

  it('a percent-formatted rate is a row error', async () => {
    const file = workbook(BILL, [billRow({ rate: { v: 0.5, s: STYLE.percent } })]);
    const plan = await planBills(file);
    expect(plan.statics.map((s) => s.message)).toEqual([`${file}:2 column rate (Sheet1!G2): this cell is formatted as a percent: it shows 50% (the number 0.5), and this column is not a percentage. Type the number it means without the percent format`]);
  });

  const orders: Array<[string, number, string, string]> = [
    ['dd/mm/yyyy date cells prove day first: the text 03/04/2026 is 3 April', STYLE.dmy, '03/04/2026', '2026-04-03T00:00:00'],
    ['mm/dd/yyyy date cells prove month first: the text 03/04/2026 is 4 March', STYLE.mdy, '03/04/2026', '2026-03-04T00:00:00'],
  ];
  for (const [name, style, text, due] of orders) {
    it(name, async () => {
      const plan = await planBills(workbook(BILL, [billRow({ invoice_date: { v: serial(2026, 3, 2), s: style }, due_date: text })]));
      expect(plan.statics).toEqual([]);
      expect(plan.records.map((r) => [r.payload.INVOICE_DATE, r.payload.DUE_DATE])).toEqual([['2026-03-02T00:00:00', due]]);
    });
  }

  it('a dd/mm/yyyy date cell and a text date with a second part over 12 prove both orders: stop', async () => {
    const file = workbook(BILL, [billRow({ invoice_date: { v: serial(2026, 3, 2), s: STYLE.dmy } }), billRow({ bill_ref: 'B-2', due_date: '03/25/2026' })]);
    const err = await failure(planBills(file));
    expect(err.message).toBe(
      `${file}: its dates are written in both orders: line 2 column invoice_date has a date cell formatted "dd/mm/yyyy" (day first), line 3 column due_date has "03/25/2026" (month first). ` +
        'Correct the dates that are wrong, or pass --date-format DMY or MDY to say how the file is written (the dates that do not fit are then reported).',
    );
  });

  it("Excel's built-in short date (id 14) shows in the reader's own order and proves nothing", async () => {
    const file = workbook(BILL, [billRow({ invoice_date: { v: serial(2026, 3, 2), s: STYLE.date }, due_date: '03/04/2026' })]);
    const err = await failure(planBills(file));
    expect(err.message).toMatch(/:2 column due_date: "03\/04\/2026" can be read day first or month first, and nothing in the file settles it/);
  });

  it('a date format in a field that is not a date proves nothing', async () => {
    const header = [...BILL, 'notes'];
    const file = workbook(header, [[...billRow({ due_date: '03/04/2026' }), { v: 1, s: STYLE.dmy }]]);
    const err = await failure(planBills(file));
    expect(err.message).toMatch(/can be read day first or month first/);
  });
});

/*
 * The same rules over workbooks LibreOffice wrote (test/fixtures/workbooks/README.md): its
 * number formats (`0000`, `00\-000`, `0%`, `0.00%`, `dd/mm/yyyy`, `d\-mmm`) and its numbers
 * (a 20-digit value stored `1.23456789012346E+019`, formulas with their results).
 */
const FIXTURES = join(import.meta.dirname, 'fixtures', 'workbooks');

describe('workbooks written by LibreOffice', () => {
  it('cell-shows-estimate.xlsx: percents, padded codes, a formula rate and a 12-digit code are sent as they show', async () => {
    const plan = await planEstimates(join(FIXTURES, 'cell-shows-estimate.xlsx'));
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.payload)).toEqual([{
      NAME: 'Kitchen',
      PROJECT_ID: 1042,
      CATS: [{
        NAME: 'Cabinets',
        SUBCATS: [{
          NAME: 'Uppers',
          ITEMS: [
            { NAME: 'Crown', COST_CODE: '0310', UNIT: 'lf', QTY: 10, RATE: 115, LINE_ITEM_MARKUP: 15 },
            { NAME: 'Hinge', COST_CODE: '02-410', UNIT: 'ea', QTY: 24, RATE: 4.25, LINE_ITEM_MARKUP: 8.25 },
            { NAME: 'Pull', COST_CODE: '123456789012', UNIT: 'ea', QTY: 24, RATE: 3.5, LINE_ITEM_MARKUP: 15 },
          ],
        }],
      }],
      COMS: [{ NAME: 'Overhead', VALUE: 10 }],
    }]);
  });

  it('cell-shows-refused.xlsx: date cells in text fields, a 20-digit quantity and a percent quantity are row errors naming the cell', async () => {
    const file = join(FIXTURES, 'cell-shows-refused.xlsx');
    const plan = await planEstimates(file);
    expect(plan.records.map((r) => r.label)).toEqual(['project 2005 / Shed']);
    const dated = (column: string, date: string) =>
      `${column}: Excel stored this as a date; type it as text: the cell holds the date ${date} (formatted "d\\-mmm"), not the text typed. Format the column as Text (or start the entry with ') and type the value again`;
    expect(plan.statics.map((s) => [s.line, s.status, s.message])).toEqual([
      [2, 'invalid', `${file}:2 column ${dated('subcategory (Estimate!D2)', '2026-03-04')}`],
      [3, 'invalid', `${file}:3 column ${dated('unit (Estimate!F3)', '2026-01-02')}`],
      [4, 'invalid', `${file}:4 column qty (Estimate!G4): the number 12345678901234600000 has more than 15 digits; a spreadsheet keeps 15 significant digits (Excel shows it as 1.23457E+19), so its last digits are already lost. Check the value; if it is a code or a reference, type it as text (format the column as Text first)`],
      [5, 'invalid', `${file}:5 column qty (Estimate!G5): this cell is formatted as a percent: it shows 50% (the number 0.5), and this column is not a percentage. Type the number it means without the percent format`],
    ]);
  });

  it('cell-shows-uk-bills.xlsx: dd/mm/yyyy date cells prove day first for the text dates; a 12-digit invoice number, =100*1.15 and 8.25% as shown', async () => {
    const plan = await planBills(join(FIXTURES, 'cell-shows-uk-bills.xlsx'));
    expect(plan.statics).toEqual([]);
    expect(plan.table!.rules.dateOrder).toBe('DMY');
    expect(plan.records.map((r) => [r.key, wirePayload('bills', r)])).toEqual([
      ['bill:ref:123456789012|10008|55', JSON.stringify({
        PRJ_ID: '10008', VENDOR_ID: '55', DUE_DATE: '2026-04-03T00:00:00', INVOICE_DATE: '2026-03-02T00:00:00',
        ITEMS: [{ NAME: 'Ready-mix', RATE: '115.00', TAX_PERCENT: 8.25, QTY: 6 }, { NAME: 'Pump hire', RATE: '450.00', TAX_PERCENT: 20, QTY: 1 }],
      })],
      ['bill:ref:B-7|10008|56', JSON.stringify({
        PRJ_ID: '10008', VENDOR_ID: '56', DUE_DATE: '2026-05-01T00:00:00', INVOICE_DATE: '2026-03-09T00:00:00',
        ITEMS: [{ NAME: 'Rebar', RATE: '812.40', QTY: 1 }],
      })],
    ]);
  });
});
