import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planBills } from '../src/import/index.ts';
import { parseDate, parseMappingFile } from '../src/mapping/index.ts';
import { STYLE, writeExcelXlsx, xmlEscape } from './helpers/excel-xml.ts';

// A workbook saved in the 1904 date system (old Mac Excel; `<workbookPr date1904="1"/>`) counts
// serial days from 1904-01-01: a date cell is read in the workbook's system. A serial in a
// General-formatted cell (a plain number, not a date cell) shows a number, not a date: a row error
// naming its cell (docs/reading-rules.md "What a cell shows").
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'buildsync-1904-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HEADER = ['bill_ref', 'project_id', 'vendor_id', 'invoice_date', 'due_date', 'item_name', 'rate', 'qty'];
const COLS = 'ABCDEFGH';

function cell(ref: string, v: string | number, style?: number): string {
  const s = style === undefined ? '' : ` s="${style}"`;
  return typeof v === 'number' ? `<c r="${ref}"${s}><v>${v}</v></c>` : `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(v)}</t></is></c>`;
}

/** One bill whose invoice date is serial 44620 in a General cell and due date serial 44650 in a date cell. */
function billWorkbook(name: string, date1904: boolean): string {
  const file = path.join(dir, name);
  const row = (r: number, values: (string | number)[], styles: Record<number, number> = {}) =>
    `<row r="${r}">${values.map((v, i) => cell(`${COLS[i]}${r}`, v, styles[i])).join('')}</row>`;
  writeExcelXlsx(file, {
    date1904,
    sheets: [{ name: 'Sheet1', rows: row(1, HEADER) + row(2, ['B-1', 10008, 55, 44620, 44650, 'Ready-mix', 1250, 6], { 3: STYLE.general, 4: STYLE.date }) }],
  });
  return file;
}

describe('serial days of a 1904-date-system workbook', () => {
  it('a date cell is read from 1904-01-01; a General-formatted serial in a date column is a row error naming its cell', async () => {
    const file = billWorkbook('bills-1904.xlsx', true);
    const plan = await planBills(file);
    expect(plan.records).toEqual([]);
    expect(plan.statics.map((s) => s.message)).toEqual([
      `${file}:2 column invoice_date (Sheet1!D2): expected a date like 2026-03-01, 2026-03-01T08:30:00 or 03/01/2026, got the number 44620: the cell is not formatted as a date, so Excel shows it as a number, not a date. Format the cell as a date (or type the date) and save the workbook again`,
    ]);
    const dated = await planBills(file, { mapping: parseMappingFile({ ignore: ['invoice_date'] }, 'map.json') });
    expect(dated.records.map((r) => r.payload.DUE_DATE)).toEqual(['2026-03-31T00:00:00']);
  });

  it('the same date cell in a 1900-date-system workbook is four years and a day earlier', async () => {
    const plan = await planBills(billWorkbook('bills-1900.xlsx', false), { mapping: parseMappingFile({ ignore: ['invoice_date'] }, 'map.json') });
    expect(plan.records.map((r) => r.payload.DUE_DATE)).toEqual(['2022-03-30T00:00:00']);
  });

  it('parseDate refuses a plain number whatever the date system', () => {
    const rules1904 = { decimalSeparator: '.', dateOrder: 'MDY', date1904: true } as const;
    expect(() => parseDate(44620, rules1904)).toThrow('got the number 44620');
    expect(() => parseDate(44620)).toThrow('got the number 44620');
  });
});

describe('serials before 1900-03-01 in a 1900-date-system workbook, as Excel shows them', () => {
  /** Four bills whose due dates are date cells of serials 1, 59, 60 and 61 (60 at 06:00). */
  function earlyWorkbook(name: string, date1904: boolean): string {
    const file = path.join(dir, name);
    const row = (r: number, values: (string | number)[], styles: Record<number, number> = {}) =>
      `<row r="${r}">${values.map((v, i) => cell(`${COLS[i]}${r}`, v, styles[i])).join('')}</row>`;
    const bill = (r: number, serial: number) => row(r, [`B-${serial}`, 10008, 55, 'x', serial, 'Ready-mix', 1250, 6], { 4: STYLE.date });
    writeExcelXlsx(file, {
      date1904,
      sheets: [{ name: 'Sheet1', rows: row(1, HEADER) + bill(2, 1) + bill(3, 59) + bill(4, 60.25) + bill(5, 61) }],
    });
    return file;
  }
  const noInvoiceDate = parseMappingFile({ ignore: ['invoice_date'] }, 'map.json');

  it('serial 1 is 1900-01-01, 59 is 1900-02-28, 61 is 1900-03-01; 60 (Excel\'s 1900-02-29, a day that never was) is a row error naming its cell', async () => {
    const file = earlyWorkbook('early-1900.xlsx', false);
    const plan = await planBills(file, { mapping: noInvoiceDate });
    expect(plan.records.map((r) => [r.payload.DUE_DATE, r.lines])).toEqual([
      ['1900-01-01T00:00:00', [2]],
      ['1900-02-28T00:00:00', [3]],
      ['1900-03-01T00:00:00', [5]],
    ]);
    expect(plan.statics.map((s) => [s.line, s.message])).toEqual([
      [4, `${file}:4 column due_date (Sheet1!E4): Sheet1!E4 holds 1900-02-29 (serial 60), a day that never was: Excel counts one for a leap-year bug of 1900; type the date it should be, then save the workbook again`],
    ]);
  });

  it('the 1904 system has no such day: serial 60 is 1904-03-01', async () => {
    const plan = await planBills(earlyWorkbook('early-1904.xlsx', true), { mapping: noInvoiceDate });
    expect(plan.records.map((r) => r.payload.DUE_DATE)).toEqual(['1904-01-02T00:00:00', '1904-02-29T00:00:00', '1904-03-01T06:00:00', '1904-03-02T00:00:00']);
    expect(plan.statics).toEqual([]);
  });
});
