import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csv, freeProjectIds, parseReport, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { runCli } from './helpers/cli.ts';

// Bills end to end: grouping, the Info the service received (decoded and compared field by field
// with the file), exact cents, vendor look-ups, the 2,000-character rule, re-runs, and the
// QuickBooks sample through the CLI.
let rig: E2eRig;
let p1: number, p2: number, p3: number;
let vendors: string;
let file: string;

const HEADER = [
  'bill_ref', 'project_id', 'vendor_id', 'vendor', 'title', 'invoice_date', 'received_date', 'due_date', 'active',
  'ready_for_payment', 'approver', 'approval_date', 'notes', 'trade', 'bill_type', 'traffic_color', 'item_name', 'rate',
  'qty', 'unit', 'item_description', 'cost_code_id', 'tax_type_id', 'tax_percent',
];
/** A row: bill-level cells first, then the item's. */
// The file's one day/month date, 03/04/2026, proves no order: each import says month first (--date-format MDY).
const row = (ref: string, project: number | string, vendorId: string | number, vendor: string, bill: Array<string | number>, item: Array<string | number>) => {
  const billCells = [...bill, ...Array(12 - bill.length).fill('')];
  const itemCells = [...item, ...Array(8 - item.length).fill('')];
  return [ref, project, vendorId, vendor, ...billCells, ...itemCells];
};

beforeAll(async () => {
  rig = await startE2eRig();
  [p1, p2, p3] = freeProjectIds(rig.sandbox) as [number, number, number];
  vendors = rig.file('vendors.csv', 'vendor,vendor_id\nAcme Concrete Supply,55\n"Summit Lumber & Millwork",56\nKeystone Electric,57\n');
  const longText = 'Detailed line description that goes on and on about the work done '.repeat(2);
  file = rig.file(
    'bills.csv',
    csv(HEADER, [
      // 2: B-1's bill-level fields and first item (awkward rate: half a cent up)
      row('B-1', p1, 55, '', ['Slab pour', '2026-03-02', '03/04/2026', '2026-04-01', 'yes', 'no', 1234, '2026-03-05', 'Net 30, "rush"', 'Concrete', 'Material', '#ff0000'],
        ['Ready-mix 4000 psi', '1,234.57', 6, 'cy', 'Delivered with pump', 310, 2, '8.25%']),
      // 3: B-2, vendor by name
      row('B-2', p2, '', 'Acme Concrete Supply', ['Rebar', '', '', '', '', 'y'], ['Rebar #4', '2.6700', 100, 'ea']),
      // 4: B-1 again, not adjacent
      row('B-1', p1, 55, '', [], ['Pump truck', '$480', 1, 'day', '', 310]),
      // 5: B-2 again: float-hostile amount
      row('B-2', p2, '', 'Acme Concrete Supply', [], ['Tie wire', '1.00', 3]),
      // 6: no bill_ref: a bill of its own; a credit in parentheses (it sums below zero: sent as written with --credits negative)
      row('', p3, 57, '', ['Service call credit'], ['Leak repair refund', '(12.50)']),
      // 7: B-1's third item
      row('B-1', p1, 55, '', [], ['Fuel surcharge', '0.1']),
      // 8: a vendor name the vendors file does not have
      row('B-3', p1, '', 'Nobody & Sons', ['Mystery'], ['Thing', '10']),
      // 9: vendor_id and vendor disagree
      row('B-4', p2, 55, 'Keystone Electric', ['Mixed up'], ['Wire', '20']),
      // 10-29: a bill too long for the query string (20 items with long texts)
      ...Array.from({ length: 20 }, (_, i) => row('B-5', p3, 56, '', i === 0 ? ['Whole house lumber'] : [], [`Board lot ${i + 1}`, '19.99', 1, 'ea', longText])),
      // 30: a big amount with a half cent
      row('B-6', p3, 56, '', ['Big one'], ['Steel package', '$1,000,000.01', 1]),
    ]),
  );
});
afterAll(() => rig?.close());

const billPosts = () => rig.sandbox.requests().filter((r) => r.method === 'POST' && /^\/api\/Bills/i.test(r.path));
const infoOf = (title: string) => {
  const bill = rig.sandbox.bills().find((b) => (JSON.parse(b.info) as { TITLE?: string }).TITLE === title);
  expect(bill, `a stored bill titled ${title}`).toBeDefined();
  return { bill: bill!, info: JSON.parse(bill!.info) as Record<string, unknown> };
};

describe('bill import through the queue', () => {
  it('groups rows into bills and sends each one in the observed wire shape, with exact cents', async () => {
    const { report, summary } = await rig.importFile('bills', file, { vendorsFile: vendors, dateFormat: 'MDY', credits: 'negative' });

    // Four bills sent (B-1, B-2, the row without bill_ref, B-6); the invalid and too-long ones never were.
    expect(rig.sandbox.bills()).toHaveLength(4);
    expect(billPosts()).toHaveLength(4);
    expect(summary.counts).toMatchObject({ created: 4, failed: 0, unknown: 0, invalidRows: 22 });

    const b1 = infoOf('Slab pour');
    expect(b1.bill.projectId).toBe(p1);
    expect(b1.info).toEqual({
      PRJ_ID: String(p1),
      VENDOR_ID: '55',
      TITLE: 'Slab pour',
      DUE_DATE: '2026-04-01T00:00:00',
      INVOICE_DATE: '2026-03-02T00:00:00',
      RECIEVED_DATE: '2026-03-04T00:00:00',
      ACTIVE: 'true',
      READY_FOR_PAYMENT: 'false',
      APPROVER: '1234',
      APPROVAL_DATE: '2026-03-05T00:00:00',
      NOTES: 'Net 30, "rush"',
      TRADE: 'Concrete',
      BILL_TYPE: 'Material',
      TRAFFIC_COLOR: '#ff0000',
      ITEMS: [
        { NAME: 'Ready-mix 4000 psi', RATE: '1234.57', COST_CODE_ID: '310', TAX_TYPE_ID: '2', TAX_PERCENT: 8.25, DESCRIPTION: 'Delivered with pump', QTY: 6, UNIT: 'cy' },
        { NAME: 'Pump truck', RATE: '480.00', COST_CODE_ID: '310', QTY: 1, UNIT: 'day' },
        { NAME: 'Fuel surcharge', RATE: '0.10' },
      ],
    });
    // Identifiers and RATE are JSON strings on the wire, RATE with two decimals, exactly as written here.
    expect(b1.bill.info).toContain('"PRJ_ID":"' + p1 + '","VENDOR_ID":"55"');
    expect(b1.bill.info).toContain('"RATE":"1234.57"');

    const b2 = infoOf('Rebar');
    expect(b2.info).toEqual({
      PRJ_ID: String(p2),
      VENDOR_ID: '55', // looked up in the vendors file
      TITLE: 'Rebar',
      READY_FOR_PAYMENT: 'true',
      ITEMS: [
        { NAME: 'Rebar #4', RATE: '2.67', QTY: 100, UNIT: 'ea' }, // 2.6700: trailing zeros dropped, never rounded
        { NAME: 'Tie wire', RATE: '1.00', QTY: 3 },
      ],
    });
    expect(infoOf('Service call credit').info).toEqual({
      PRJ_ID: String(p3),
      VENDOR_ID: '57',
      TITLE: 'Service call credit',
      ITEMS: [{ NAME: 'Leak repair refund', RATE: '-12.50' }],
    });
    expect((infoOf('Big one').info.ITEMS as Array<{ RATE: string }>)[0]!.RATE).toBe('1000000.01');
    // The service's own total agrees to the cent.
    expect(infoOf('Slab pour').bill.record.TOTAL).toBe(7887.52); // 1234.57 × 6 + 480.00 + 0.10

    // One report line per input row, each with its bill's ID or why it was not sent.
    expect(report).toHaveLength(29);
    const idOf = (title: string) => infoOf(title).bill.id;
    const at = (line: number) => report.find((l) => l.line === line)!;
    for (const line of [2, 4, 7]) expect(at(line)).toMatchObject({ record: `bill B-1 / project ${p1} / vendor 55`, status: 'created', id: idOf('Slab pour') });
    for (const line of [3, 5]) expect(at(line)).toMatchObject({ record: `bill B-2 / project ${p2} / vendor 55`, status: 'created', id: idOf('Rebar') });
    expect(at(6)).toMatchObject({ record: `bill row 6 / project ${p3} / vendor 57`, status: 'created', id: idOf('Service call credit') });
    expect(at(30)).toMatchObject({ status: 'created', id: idOf('Big one') });

    // Vendor look-up errors name the vendor and the file.
    expect(at(8)).toMatchObject({ status: 'invalid', id: '' });
    expect(at(8).message).toMatch(/Nobody & Sons/);
    expect(at(9)).toMatchObject({ status: 'invalid', id: '' });
    expect(at(9).message).toMatch(/Keystone Electric.*vendor 57.*vendor_id on the same row is 55/);

    // The too-long bill: every one of its rows invalid, saying why; nothing of it reached the service.
    for (let line = 10; line <= 29; line++) {
      expect(at(line)).toMatchObject({ record: `bill B-5 / project ${p3} / vendor 56`, status: 'invalid' });
      expect(at(line).message).toMatch(/query string would be [\d,]+ characters, over the 2,000/);
    }
    expect(rig.sandbox.bills().some((b) => (JSON.parse(b.info) as { TITLE?: string }).TITLE === 'Whole house lumber')).toBe(false);
    expect(billPosts().every((r) => r.path.length < 2100)).toBe(true);
  });

  it('re-running the same file sends nothing: every created bill is skipped with its ID', async () => {
    const before = rig.sandbox.bills();
    const posts = billPosts().length;
    const { report, summary } = await rig.importFile('bills', file, { vendorsFile: vendors, dateFormat: 'MDY', credits: 'negative' });
    expect(rig.sandbox.bills()).toEqual(before);
    expect(billPosts()).toHaveLength(posts);
    expect(summary.counts).toMatchObject({ created: 0, skipped: 4, invalidRows: 22 });
    const sent = report.filter((l) => l.status !== 'invalid');
    expect(sent).toHaveLength(7);
    for (const l of sent) {
      expect(l.status).toBe('skipped');
      expect(before.map((b) => b.id)).toContain(l.id);
      expect(l.message).toBe(`already created by this tool (ID ${l.id})`);
    }
  });

  it('imports the QuickBooks sample with --mapping quickbooks --vendors samples/vendors.csv through the CLI', async () => {
    const before = rig.sandbox.bills().length;
    const sample = resolve('samples/quickbooks-bills.csv');
    const reportPath = join(rig.dir, 'qb.report.csv');
    const res = await runCli(
      ['import', 'bills', sample, '--mapping', 'quickbooks', '--vendors', resolve('samples/vendors.csv'), '--report', reportPath],
      rig.env,
      { cwd: rig.dir },
    );
    expect(res.stderr).not.toMatch(/unexpected error/);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/bills: 5 rows, 3 records: created 3, exists 0, skipped 0, failed 0, unknown 0; invalid rows 0/);

    const added = rig.sandbox.bills().slice(before);
    expect(added).toHaveLength(3);
    const qb2201 = added.find((b) => (JSON.parse(b.info) as { NOTES?: string }).NOTES === 'Framing package')!;
    expect(JSON.parse(qb2201.info)).toEqual({
      PRJ_ID: '10039',
      VENDOR_ID: '56',
      DUE_DATE: '2026-04-01T00:00:00',
      INVOICE_DATE: '2026-03-02T00:00:00',
      NOTES: 'Framing package',
      ITEMS: [
        { NAME: '2x6 studs, 16ft', RATE: '1250.00' },
        { NAME: 'Delivery', RATE: '85.00' },
      ],
    });
    const rates = added.flatMap((b) => (JSON.parse(b.info) as { ITEMS: Array<{ RATE: string }> }).ITEMS.map((i) => i.RATE));
    expect(rates.sort()).toEqual(['1250.00', '12612.50', '125.00', '3480.00', '85.00'].sort());

    const report = parseReport(readFileSync(reportPath, 'utf8'));
    expect(report.map((r) => [r.line, r.record, r.status])).toEqual([
      ['2', 'bill QB-2201 / project 10039 / vendor 56', 'created'],
      ['3', 'bill QB-2201 / project 10039 / vendor 56', 'created'],
      ['4', 'bill QB-2202 / project 10009 / vendor 57', 'created'],
      ['5', 'bill QB-2203 / project 10053 / vendor 55', 'created'],
      ['6', 'bill QB-2203 / project 10053 / vendor 55', 'created'],
    ]);
    expect(report[0]!.id).toBe(String(qb2201.id));
  });
});
