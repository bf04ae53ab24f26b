import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planBills } from '../src/import/index.ts';
import { parseDate } from '../src/mapping/index.ts';
import { STYLE, writeExcelXlsx, xmlEscape } from './helpers/excel-xml.ts';

// A workbook saved in the 1904 date system (old Mac Excel; `<workbookPr date1904="1"/>`) counts
// serial days from 1904-01-01. A date column may hold a serial in a General-formatted cell (a
// plain number, not a date cell): it is read in the workbook's system, as a date cell is.
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
  it('a General-formatted serial in a bill date column is read from 1904-01-01, like a date-formatted one', async () => {
    const plan = await planBills(billWorkbook('bills-1904.xlsx', true));
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => [r.payload.INVOICE_DATE, r.payload.DUE_DATE])).toEqual([['2026-03-01T00:00:00', '2026-03-31T00:00:00']]);
  });

  it('the same serials in a 1900-date-system workbook are four years and a day earlier', async () => {
    const plan = await planBills(billWorkbook('bills-1900.xlsx', false));
    expect(plan.records.map((r) => [r.payload.INVOICE_DATE, r.payload.DUE_DATE])).toEqual([['2022-02-28T00:00:00', '2022-03-30T00:00:00']]);
  });

  it('parseDate reads a plain number in the date system the rules carry, up to 9999-12-31 of that system', () => {
    const rules1904 = { decimalSeparator: '.', dateOrder: 'MDY', date1904: true } as const;
    expect(parseDate(44620, rules1904)).toBe('2026-03-01T00:00:00');
    expect(parseDate(44620.5, rules1904)).toBe('2026-03-01T12:00:00');
    expect(parseDate(0, rules1904)).toBe('1904-01-01T00:00:00');
    expect(parseDate(2_957_003, rules1904)).toBe('9999-12-31T00:00:00');
    expect(() => parseDate(2_957_004, rules1904)).toThrow('got 2957004');
    expect(parseDate(2_958_465)).toBe('9999-12-31T00:00:00');
  });
});
