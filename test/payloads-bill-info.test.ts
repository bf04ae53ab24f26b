import { describe, expect, it } from 'vitest';
import { RecordInvalidError } from '../src/errors/index.ts';
import { type BillPayload, billQueryString, encodeBillInfo } from '../src/payloads/index.ts';

const bill: BillPayload = {
  PRJ_ID: 1042,
  VENDOR_ID: 55,
  TITLE: 'INV-7 "kitchen" & co',
  INVOICE_DATE: '2024-03-01T00:00:00',
  DUE_DATE: '2024-03-31T00:00:00',
  RECIEVED_DATE: '2024-03-02T09:30:00',
  ACTIVE: true,
  READY_FOR_PAYMENT: false,
  APPROVER: 9,
  NOTES: 'Net 30 – ünïcode',
  ITEMS: [
    { NAME: 'Cabinets', RATE: '1250.5', QTY: 2, UNIT: 'ea', DESCRIPTION: 'Oak', COST_CODE_ID: 301, TAX_TYPE_ID: 4, TAX_PERCENT: '8.25' },
    { NAME: 'Trailing zeros', RATE: '2.6700' },
    { NAME: 'Credit', RATE: '-1.05', QTY: '1.5' },
  ],
};

describe('encodeBillInfo writes the bill in the observed wire shape (docs/service.md, Bills)', () => {
  it('writes identifiers and RATE as decimal text, RATE with two decimals, booleans as strings', () => {
    const info = JSON.parse(encodeBillInfo(bill));
    expect(info.PRJ_ID).toBe('1042');
    expect(info.VENDOR_ID).toBe('55');
    expect(info.APPROVER).toBe('9');
    expect(info.ACTIVE).toBe('true');
    expect(info.READY_FOR_PAYMENT).toBe('false');
    expect(info.TITLE).toBe('INV-7 "kitchen" & co');
    expect(info.RECIEVED_DATE).toBe('2024-03-02T09:30:00');
    expect(info.NOTES).toBe('Net 30 – ünïcode');
    expect(info.ITEMS).toEqual([
      { NAME: 'Cabinets', RATE: '1250.50', COST_CODE_ID: '301', TAX_TYPE_ID: '4', TAX_PERCENT: '8.25', DESCRIPTION: 'Oak', QTY: 2, UNIT: 'ea' },
      { NAME: 'Trailing zeros', RATE: '2.67' },
      { NAME: 'Credit', RATE: '-1.05', QTY: '1.5' },
    ]);
    // Absent optional fields are absent on the wire, not null.
    expect(Object.keys(info)).not.toContain('TRADE');
  });

  it('keeps an approver given by name as written', () => {
    expect(JSON.parse(encodeBillInfo({ ...bill, APPROVER: 'Pat Lee' })).APPROVER).toBe('Pat Lee');
  });

  it('refuses a bill that breaks the seed rules, naming every bad field', () => {
    const bad = {
      PRJ_ID: 0,
      ITEMS: [{ NAME: '', RATE: '1e3' }, { RATE: '5' }],
      DUE_DATE: '03/31/2024',
      LMOD: '2024-01-01T00:00:00',
    } as unknown as BillPayload;
    let caught: unknown;
    try {
      encodeBillInfo(bad);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(RecordInvalidError);
    const message = (caught as Error).message;
    expect(message).toMatch(/^the bill is not valid for the service: /);
    for (const field of ['PRJ_ID', 'VENDOR_ID', 'ITEMS[0].NAME', 'ITEMS[0].RATE', 'ITEMS[1].NAME', 'DUE_DATE', 'LMOD']) {
      expect(message).toContain(field);
    }
    expect(message).toContain("expected plain decimal text such as '1250.5'");
    expect(message).toContain("'YYYY-MM-DDTHH:MM:SS'");
  });

  it('refuses a bill without items and a RATE given as a number', () => {
    expect(() => encodeBillInfo({ ...bill, ITEMS: [] })).toThrow('ITEMS: a bill needs at least one item');
    expect(() => encodeBillInfo({ ...bill, ITEMS: [{ NAME: 'x', RATE: 12.5 as unknown as string }] })).toThrow('ITEMS[0].RATE');
  });

  it('refuses a RATE with a third decimal that is not zero instead of rounding it', () => {
    expect(() => encodeBillInfo({ ...bill, ITEMS: [{ NAME: 'x', RATE: '1234.567' }] })).toThrow('ITEMS[0].RATE: expected at most two decimals (a rate is never rounded)');
  });

  it('measures the query string as it is sent', () => {
    const query = billQueryString(bill);
    expect(query.startsWith('Info=')).toBe(true);
    expect(decodeURIComponent(query.slice('Info='.length))).toBe(encodeBillInfo(bill));
    expect(query).not.toMatch(/[ "{}&]/);
  });
});
