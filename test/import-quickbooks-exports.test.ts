/**
 * QuickBooks exports as QuickBooks writes them (README, "What is not a record"), through the
 * spawned CLI against the sandbox: a bill report (CRLF, a title block of three lines and a blank
 * above the header, quoted "1,250.00", split lines with the bill's number, vendor, dates, memo
 * and customer on its first line only, a Vendor Credit, a Bill Payment (Check), a
 * "Total for QB-3004" row, a closing TOTAL, a "Cash Basis" footer) and a "Transaction List by
 * Vendor" (the alternative headers: Transaction Type, Date, Num, Amount; no totals). Each: the
 * exact payloads of the dry run, the `ignored` lines with their reasons, the summary line and
 * exit 0; imported through the queue, exactly those bills are created, and a second run creates
 * nothing.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.ts';
import { parseReport, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';

const VENDORS = resolve(import.meta.dirname, '..', 'samples', 'vendors.csv');
const KITCHEN = 'Elm Street Lofts Kitchen Remodel';
const ROOF = 'Riverside Warehouse Roof Replacement';
const TITLE = 'title above the header row (line 5): not part of the table';
const FOOTER = 'footer below the last row: not part of the table';
const CREDIT = 'Type "Vendor Credit": a credit; the service\'s bills hold no credit notes, so it is not sent (--credits negative sends it as a bill with negative rates)';

let rig: E2eRig;
let kitchen: string;
let roof: string;
let seq = 0;

beforeAll(async () => {
  rig = await startE2eRig();
  const idOf = (name: string): string => String(rig.sandbox.visibleProjectIds(rig.sandbox.credentials.email, false).find((id) => rig.sandbox.project(id)!.NAME === name));
  kitchen = idOf(KITCHEN);
  roof = idOf(ROOF);
});
afterAll(() => rig?.close());

/** `lines` as QuickBooks writes a file: CRLF line ends, one at the end. */
function qbFile(name: string, lines: readonly string[]): string {
  return rig.file(`${++seq}-${name}`, `${lines.join('\r\n')}\r\n`);
}

const args = (file: string, ...more: string[]) => ['import', 'bills', file, '--mapping', 'quickbooks', '--vendors', VENDORS, ...more];

async function dryRun(file: string) {
  const r = await runCli(args(file, '--dry-run', '--print-payloads'), rig.env, { cwd: rig.dir });
  const payloads = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as unknown);
  const report = parseReport(readFileSync(`${file}.report.csv`, 'utf8'));
  return { ...r, payloads, report, ignored: report.filter((l) => l.status === 'ignored').map((l) => [l.line, l.message]) };
}

/** Imports FILE for real through the queue; the bills the sandbox holds after it that it did not before. */
async function importForReal(file: string) {
  const before = rig.sandbox.bills().length;
  const r = await runCli(args(file), rig.env, { cwd: rig.dir });
  // The payloads as the service received them, in the order of their lines (workers send in any order).
  const created = rig.sandbox.bills().slice(before).map((b) => b.payload as { ITEMS: Array<{ NAME: string }> });
  created.sort((a, b) => a.ITEMS[0]!.NAME.localeCompare(b.ITEMS[0]!.NAME));
  return { ...r, created, report: parseReport(readFileSync(`${file}.report.csv`, 'utf8')) };
}

/** The bill report: QB-3004 on three lines (the last two split lines), its total, a credit, a payment, QB-3005, the closing TOTAL. */
const BILL_REPORT = [
  'Bill Details',
  'ACME BUILDERS LLC',
  '"March 1 - March 31, 2026"',
  '',
  'Type,Bill No.,Vendor,Bill Date,Due Date,Memo,Account,Line Description,Line Amount,Customer',
  `Bill,QB-3004,Summit Lumber & Millwork,03/02/2026,04/01/2026,Framing package,Job Materials,"2x6 studs, 16ft","1,250.00",${KITCHEN}`,
  ',,,,,,Job Materials,Delivery,85.00,',
  ',,,,,,Job Materials,Hangers and fasteners,112.40,',
  'Total for QB-3004,,,,,,,,"1,447.40",',
  `Vendor Credit,VC-118,Summit Lumber & Millwork,03/05/2026,,Returned studs,Job Materials,Returned studs,-150.00,${KITCHEN}`,
  'Bill Payment (Check),4410,Keystone Electric,03/20/2026,,,Checking,,"-3,480.00",',
  `Bill,QB-3005,Keystone Electric,03/09/2026,04/08/2026,Panel upgrade,Subcontractors,200A panel and breakers,"3,480.00",${ROOF}`,
  'TOTAL,,,,,,,,"1,297.40",',
  '',
  '"Cash Basis Tuesday, March 3, 2026 10:15 AM"',
];

describe('a QuickBooks bill report', () => {
  const qb3004 = () => ({
    PRJ_ID: kitchen, VENDOR_ID: '56', DUE_DATE: '2026-04-01T00:00:00', INVOICE_DATE: '2026-03-02T00:00:00', NOTES: 'Framing package',
    ITEMS: [{ NAME: '2x6 studs, 16ft', RATE: '1250.00' }, { NAME: 'Delivery', RATE: '85.00' }, { NAME: 'Hangers and fasteners', RATE: '112.40' }],
  });
  const qb3005 = () => ({ PRJ_ID: roof, VENDOR_ID: '57', DUE_DATE: '2026-04-08T00:00:00', INVOICE_DATE: '2026-03-09T00:00:00', NOTES: 'Panel upgrade', ITEMS: [{ NAME: '200A panel and breakers', RATE: '3480.00' }] });

  it('dry run: each bill with all its split lines at its true total; title, total, credit, payment and footer ignored with their reasons; exit 0', async () => {
    const r = await dryRun(qbFile('bill-details.csv', BILL_REPORT));
    expect(r.code, r.stderr).toBe(0);
    expect(r.payloads).toEqual([qb3004(), qb3005()]);
    expect(r.ignored).toEqual([
      ['1', TITLE], ['2', TITLE], ['3', TITLE],
      ['9', 'total row: "Total for QB-3004", 1447.40 = the sum of bill "QB-3004"'],
      ['10', CREDIT],
      ['11', 'Type "Bill Payment (Check)"'],
      ['13', 'total row: "TOTAL", 1297.40 = the sum of every line since the previous total'],
      ['15', FOOTER],
    ]);
    const bill3004 = `bill QB-3004 / project ${kitchen} / vendor 56`;
    expect(r.report.filter((l) => l.status !== 'ignored').map((l) => [l.line, l.record, l.status])).toEqual([
      ['6', bill3004, 'skipped'], ['7', bill3004, 'skipped'], ['8', bill3004, 'skipped'],
      ['12', `bill QB-3005 / project ${roof} / vendor 57`, 'skipped'],
    ]);
    expect(r.stderr).toContain('dry run: 8 rows -> 2 bills to send, 0 invalid rows');
    expect(r.stderr.split('\n')).toContain('8 rows ignored: title 3, footer 1, total 2, kind 1, credit 1');
  });

  it('a split line that is a row error: the rows to fix are written with their filled-down keys, the footer left out', async () => {
    const file = qbFile('bill-details-bad.csv', BILL_REPORT.map((l) => l.replace('Hangers and fasteners,112.40', 'Hangers and fasteners,abc')));
    const r = await dryRun(file);
    expect(r.code, r.stderr).toBe(1);
    expect(r.payloads).toEqual([qb3005()]);
    const rows = readFileSync(`${file}.errors.csv`, 'utf8').replace(/^\uFEFF/, '').trim().split(/\r?\n/);
    expect(rows.map((l) => l.split(',').slice(0, 4).join(','))).toEqual([
      'Type,Bill No.,Vendor,Bill Date',
      'Bill,QB-3004,Summit Lumber & Millwork,2026-03-02',
      ',QB-3004,Summit Lumber & Millwork,2026-03-02',
      ',QB-3004,Summit Lumber & Millwork,2026-03-02',
      'Total for QB-3004,,,',
      'TOTAL,,,',
    ]);
    expect(rows[3]).toContain('Hangers and fasteners,abc,' + KITCHEN + ',8,');
  });

  it('through the queue: exactly those bills are created; a second run creates nothing', async () => {
    const file = qbFile('bill-details.csv', BILL_REPORT);
    const first = await importForReal(file);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('bills: 8 rows, 2 records: created 2, exists 0, skipped 0, failed 0, unknown 0; invalid rows 0');
    expect(first.stdout.split('\n')).toContain('8 rows ignored: title 3, footer 1, total 2, kind 1, credit 1');
    expect(first.created).toEqual([qb3005(), qb3004()]);
    expect(first.report.filter((l) => l.status === 'created').map((l) => l.line)).toEqual(['6', '7', '8', '12']);

    const again = await importForReal(file);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('bills: 8 rows, 2 records: created 0, exists 0, skipped 2, failed 0, unknown 0; invalid rows 0');
    expect(again.created).toEqual([]);
  });
});

/**
 * A "Transaction List by Vendor": QuickBooks' other headers (Transaction Type, Date, Num, Amount),
 * no totals, split lines, a check and a card credit that are no bills, and a bill with no number
 * (a transaction of its own, keyed by its content: the number above does not fill into it).
 */
const TRANSACTION_LIST = [
  'Transaction List by Vendor',
  'ACME BUILDERS LLC',
  '"March 1 - March 31, 2026"',
  '',
  'Transaction Type,Date,Num,Vendor,Due Date,Memo,Account,Line Description,Amount,Customer',
  `Bill,03/02/2026,QB-3101,Northgate Glass,04/01/2026,Kitchen glazing,Job Materials,Tempered splashback panels,"2,340.00",${KITCHEN}`,
  ',,,,,,Job Materials,Installation,640.00,',
  `Check,03/04/2026,1187,Blue River Plumbing,,,Checking,Emergency call-out,250.00,${ROOF}`,
  `Bill,03/20/2026,QB-3102,Blue River Plumbing,04/19/2026,,Subcontractors,Roof drain replacement,"1,875.50",${ROOF}`,
  ',,,,,,Subcontractors,Permit fee,95.00,',
  `Credit Card Credit,03/21/2026,CC-9,Acme Concrete Supply,,Refund,Job Materials,Refund,40.00,${ROOF}`,
  `Bill,03/22/2026,,Acme Concrete Supply,,,Job Materials,Short-load fee,125.00,${ROOF}`,
  '',
  '"Cash Basis Tuesday, March 24, 2026 09:00 AM"',
];

describe('a QuickBooks "Transaction List by Vendor"', () => {
  it('dry run: the split lines join their bills, the check and the card credit are ignored, the bill with no number is a bill of its own; exit 0', async () => {
    const r = await dryRun(qbFile('transactions.csv', TRANSACTION_LIST));
    expect(r.code, r.stderr).toBe(0);
    expect(r.payloads).toEqual([
      { PRJ_ID: kitchen, VENDOR_ID: '59', DUE_DATE: '2026-04-01T00:00:00', INVOICE_DATE: '2026-03-02T00:00:00', NOTES: 'Kitchen glazing', ITEMS: [{ NAME: 'Tempered splashback panels', RATE: '2340.00' }, { NAME: 'Installation', RATE: '640.00' }] },
      { PRJ_ID: roof, VENDOR_ID: '58', DUE_DATE: '2026-04-19T00:00:00', INVOICE_DATE: '2026-03-20T00:00:00', ITEMS: [{ NAME: 'Roof drain replacement', RATE: '1875.50' }, { NAME: 'Permit fee', RATE: '95.00' }] },
      { PRJ_ID: roof, VENDOR_ID: '55', INVOICE_DATE: '2026-03-22T00:00:00', ITEMS: [{ NAME: 'Short-load fee', RATE: '125.00' }] },
    ]);
    expect(r.ignored).toEqual([
      ['1', TITLE], ['2', TITLE], ['3', TITLE],
      ['8', 'Transaction Type "Check"'],
      ['11', 'Transaction Type "Credit Card Credit": a credit; the service\'s bills hold no credit notes, so it is not sent (--credits negative sends it as a bill with negative rates)'],
      ['14', FOOTER],
    ]);
    expect(r.report.filter((l) => l.status !== 'ignored').map((l) => [l.line, l.record])).toEqual([
      ['6', `bill QB-3101 / project ${kitchen} / vendor 59`], ['7', `bill QB-3101 / project ${kitchen} / vendor 59`],
      ['9', `bill QB-3102 / project ${roof} / vendor 58`], ['10', `bill QB-3102 / project ${roof} / vendor 58`],
      ['12', `bill row 12 / project ${roof} / vendor 55`],
    ]);
    expect(r.stderr.split('\n')).toContain('6 rows ignored: title 3, footer 1, kind 1, credit 1');
  });

  it('through the queue: three bills created; a second run creates nothing', async () => {
    const file = qbFile('transactions.csv', TRANSACTION_LIST);
    const first = await importForReal(file);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('bills: 7 rows, 3 records: created 3, exists 0, skipped 0, failed 0, unknown 0; invalid rows 0');
    expect(first.created.map((b) => b.ITEMS.map((i) => i.NAME))).toEqual([['Roof drain replacement', 'Permit fee'], ['Short-load fee'], ['Tempered splashback panels', 'Installation']]);
    const again = await importForReal(file);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('bills: 7 rows, 3 records: created 0, exists 0, skipped 3, failed 0, unknown 0; invalid rows 0');
    expect(again.created).toEqual([]);
  });

  it('a file with both Line Amount and Amount reads Line Amount (Amount is the bill\'s total there)', async () => {
    const file = qbFile('both-amounts.csv', [
      'Type,Bill No.,Vendor,Bill Date,Line Description,Line Amount,Amount,Customer',
      `Bill,QB-3201,Keystone Electric,03/19/2026,Breakers,412.50,"3,892.50",${ROOF}`,
      ',,,,200A panel,"3,480.00",,',
    ]);
    const r = await dryRun(file);
    expect(r.code, r.stderr).toBe(0);
    expect(r.payloads).toEqual([{ PRJ_ID: roof, VENDOR_ID: '57', INVOICE_DATE: '2026-03-19T00:00:00', ITEMS: [{ NAME: 'Breakers', RATE: '412.50' }, { NAME: '200A panel', RATE: '3480.00' }] }]);
  });

  it('fill-down stops at a total row: a line under a bill\'s total is not that bill\'s', async () => {
    const file = qbFile('after-total.csv', [
      'Bill No.,Vendor,Bill Date,Line Description,Line Amount,Customer',
      `QB-3301,Keystone Electric,03/19/2026,Breakers,412.50,${ROOF}`,
      'Total for QB-3301,,,,412.50,',
      `,Keystone Electric,03/20/2026,Conduit,60.00,${ROOF}`,
    ]);
    const r = await dryRun(file);
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.filter((l) => l.status !== 'ignored').map((l) => [l.line, l.record])).toEqual([
      ['2', `bill QB-3301 / project ${roof} / vendor 57`],
      ['4', `bill row 4 / project ${roof} / vendor 57`],
    ]);
  });
});
