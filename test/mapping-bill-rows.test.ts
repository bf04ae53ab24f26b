import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBillInfo } from '../src/payloads/index.ts';
import { planBills } from '../src/import/index.ts';
import type { StaticLine } from '../src/mapping/report-line.ts';

let dir: string;
let vendors: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'buildsync-bills-'));
  vendors = await csv('vendors.csv', ['vendor,vendor_id', 'Acme Supply,55', 'Summit Lumber,56', 'Twice Co,57', 'twice co,58', 'Same Co,60', 'Same Co,60']);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function csv(name: string, lines: string[]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

const byLine = (statics: StaticLine[]) => new Map(statics.map((s) => [s.line, s]));

describe('bill rows become bills', () => {
  it('groups rows by bill_ref, project and vendor, items in file order, with the bill fields of the seed', async () => {
    const file = await csv('grouped.csv', [
      'bill_ref,project_id,vendor_id,title,invoice_date,received_date,due_date,ready_for_payment,active,item_name,rate,qty,unit,item_description,cost_code_id,tax_percent',
      'INV-7,1042,55,Concrete,2026-03-02,03/04/2026,2026-04-01T08:30,no,yes,Ready-mix,"1,250.00",6,cy,4000 psi,310,8.25%',
      'INV-8,1042,56,Lumber,,,,,,Studs,3.10,100,ea,,,',
      'INV-7,1042,55,,,,,,,Pump truck,$480,1,day,,310,',
      'INV-7,2001,55,,,,,,,Other project,1,1,,,,',
    ]);
    // 03/04/2026 alone proves no order: the file is said to be month first.
    const plan = await planBills(file, { dateFormat: 'MDY' });
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => [r.key, r.label, r.lines])).toEqual([
      ['bill:ref:INV-7|1042|55', 'bill INV-7 / project 1042 / vendor 55', [2, 4]],
      ['bill:ref:INV-8|1042|56', 'bill INV-8 / project 1042 / vendor 56', [3]],
      ['bill:ref:INV-7|2001|55', 'bill INV-7 / project 2001 / vendor 55', [5]],
    ]);
    const bill = plan.records[0]!.payload;
    expect(bill).toEqual({
      PRJ_ID: 1042,
      VENDOR_ID: 55,
      TITLE: 'Concrete',
      DUE_DATE: '2026-04-01T08:30:00',
      INVOICE_DATE: '2026-03-02T00:00:00',
      RECIEVED_DATE: '2026-03-04T00:00:00',
      ACTIVE: true,
      READY_FOR_PAYMENT: false,
      ITEMS: [
        { NAME: 'Ready-mix', RATE: '1250.00', QTY: 6, UNIT: 'cy', DESCRIPTION: '4000 psi', COST_CODE_ID: 310, TAX_PERCENT: 8.25 },
        { NAME: 'Pump truck', RATE: '480', QTY: 1, UNIT: 'day', COST_CODE_ID: 310 },
      ],
    });
    // The wire form (docs/service.md, Bills): the field is spelled RECIEVED_DATE, identifiers and RATE are decimal text.
    const info = JSON.parse(encodeBillInfo(bill)) as Record<string, unknown>;
    expect(info.RECIEVED_DATE).toBe('2026-03-04T00:00:00');
    expect('RECEIVED_DATE' in info).toBe(false);
    expect(info.READY_FOR_PAYMENT).toBe('false');
    expect((info.ITEMS as Array<{ RATE: string }>).map((i) => i.RATE)).toEqual(['1250.00', '480.00']);
  });

  it('keeps the exact decimal text of awkward amounts and writes two decimals on the wire, never rounding', async () => {
    const file = await csv('rates.csv', [
      'project_id,vendor_id,item_name,rate',
      '1,55,a,0.1',
      '1,55,b,0.2',
      '1,55,c,"1,234.560"',
      '1,55,d,$0.30',
      '1,55,e,(12.00)',
      '1,55,f,2.675',
      '1,55,g,"1,234.567"',
      '1,55,h,2.6751',
    ]);
    // (12.00) alone sums below zero: a credit, sent as written with --credits negative.
    const plan = await planBills(file, { credits: 'negative' });
    expect(plan.records.map((r) => r.payload.ITEMS[0]!.RATE)).toEqual(['0.1', '0.2', '1234.560', '0.30', '-12.00']);
    const wire = plan.records.map((r) => (JSON.parse(encodeBillInfo(r.payload)) as { ITEMS: Array<{ RATE: string }> }).ITEMS[0]!.RATE);
    expect(wire).toEqual(['0.10', '0.20', '1234.56', '0.30', '-12.00']);
    expect(plan.statics.map((l) => [l.line, l.status, l.message])).toEqual([
      // The file proves "." (0.1, 1,234.567): 2.675 is read with it (docs/reading-rules.md), and a rate keeps two decimals.
      [7, 'invalid', `${file}:7 column rate: "2.675" has more than two decimals; a rate is sent with exactly two and is never rounded. Write the rate to the cent (or split the line into a quantity and a unit rate)`],
      [8, 'invalid', `${file}:8 column rate: "1,234.567" has more than two decimals; a rate is sent with exactly two and is never rounded. Write the rate to the cent (or split the line into a quantity and a unit rate)`],
      [9, 'invalid', `${file}:9 column rate: "2.6751" has more than two decimals; a rate is sent with exactly two and is never rounded. Write the rate to the cent (or split the line into a quantity and a unit rate)`],
    ]);
  });

  it('without bill_ref makes one bill per row, keyed by content and occurrence, stable when rows are added at the end', async () => {
    const rows = ['project_id,vendor_id,item_name,rate', '1,55,Service call,375', '1,55,Service call,375', '1,55,Parts,20'];
    const before = await planBills(await csv('rows-a.csv', rows), {});
    const after = await planBills(await csv('rows-b.csv', [...rows, '1,55,Service call,375', '2,56,New,1']), {});
    const keys = before.records.map((r) => r.key);
    expect(keys[0]).toMatch(/^bill:row:[0-9a-f]{16}#0$/);
    expect(keys[1]).toBe(keys[0]!.replace(/#0$/, '#1'));
    expect(before.records.map((r) => r.label)).toEqual(['bill row 2 / project 1 / vendor 55', 'bill row 3 / project 1 / vendor 55', 'bill row 4 / project 1 / vendor 55']);
    expect(after.records.map((r) => r.key).slice(0, 3)).toEqual(keys);
    expect(after.records[3]!.key).toBe(keys[0]!.replace(/#0$/, '#2'));
  });
});

describe('invalid bill rows', () => {
  it('refuses disagreeing bill fields, and sends none of the bill', async () => {
    const file = await csv('disagree.csv', [
      'bill_ref,project_id,vendor_id,due_date,item_name,rate',
      'INV-1,1,55,2026-04-01,a,1',
      'INV-1,1,55,,b,2',
      'INV-1,1,55,2026-05-01,c,3',
    ]);
    const plan = await planBills(file, {});
    expect(plan.records).toEqual([]);
    const s = byLine(plan.statics);
    expect(s.get(4)!.message).toBe(`${file}:4 column due_date: due_date is "2026-05-01T00:00:00" here but "2026-04-01T00:00:00" on line 2; every row of a bill must agree on it (or leave it blank)`);
    expect(s.get(2)!.message).toBe('not sent: line 4 of this bill is invalid');
    expect(s.get(3)!.status).toBe('invalid');
  });

  it('looks vendors up by name in --vendors, naming the vendor and the file when it cannot', async () => {
    const file = await csv('vendors-by-name.csv', [
      'bill_ref,project_id,vendor,item_name,rate',
      'A,1,acme supply ,a,1',
      'B,1,Nobody Inc,b,1',
      'C,1,Twice Co,c,1',
      'D,1,Same Co,d,1',
    ]);
    const plan = await planBills(file, { vendorsFile: vendors });
    expect(plan.records.map((r) => r.key)).toEqual(['bill:ref:A|1|55', 'bill:ref:D|1|60']);
    const s = byLine(plan.statics);
    expect(s.get(3)!.message).toBe(`${file}:3 column vendor: vendor "Nobody Inc" is not in the vendors file ${vendors}; add a line "Nobody Inc,<vendor_id>" there, or give vendor_id in this file`);
    expect(s.get(3)!.record).toBe('bill B / project 1 / vendor "Nobody Inc"');
    expect(s.get(4)!.message).toMatch(/vendor "Twice Co" is ambiguous in the vendors file .*57 on line 4, 58 on line 5/);
    await expect(planBills(file, {})).rejects.toThrow(/missing column: vendor_id, or --vendors VENDORS\.csv/);
  });

  it('reports a bill whose query string would pass 2,000 characters instead of truncating it', async () => {
    const rows = ['bill_ref,project_id,vendor_id,item_name,rate,item_description'];
    for (let i = 0; i < 12; i++) rows.push(`BIG,1,55,Item ${i},10.00,${'Long description with spaces & symbols '.repeat(2)}`);
    rows.push('SMALL,1,55,x,1,');
    const plan = await planBills(await csv('long.csv', rows), {});
    expect(plan.records.map((r) => r.key)).toEqual(['bill:ref:SMALL|1|55']);
    expect(plan.statics).toHaveLength(12);
    expect(plan.statics[0]!.message).toMatch(/^not sent: this bill's query string would be [\d,]+ characters, over the 2,000 the service accepts .*never sent truncated/);
  });

  it('reports a bad rate or a missing item name with line and column', async () => {
    const file = await csv('bad-item.csv', ['project_id,vendor_id,item_name,rate', '1,55,,5', '1,55,x,abc', '1,,x,5']);
    const plan = await planBills(file, {});
    const s = byLine(plan.statics);
    expect(s.get(2)!.message).toBe(`${file}:2 column item_name: the item name is missing: every row is a bill item and needs item_name`);
    expect(s.get(3)!.message).toBe(`${file}:3 column rate: expected a number like 1,234.50, got "abc"`);
    expect(s.get(4)!.message).toMatch(/:4 column vendor_id: the vendor is missing/);
  });
});
