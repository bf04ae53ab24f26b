/**
 * Summary rows known by their sums (README, "What is not a record"): NetSuite's saved search of
 * vendor bills repeats each bill's total on its "Main Line" row, without a label. Without the
 * mapping key the file stops before anything is sent, naming those rows; with
 * `"summaryRows": {"column": "Main Line", "values": ["*"]}` they are ignored as totals, each
 * checked against its bill, and exactly the bills go out, once (through the queue, a second run
 * creates nothing); `"summaryRows": "none"` sends them as lines. A plain bill of 100, 50 and 50
 * among bills that do not match is sent, with a word on its report lines.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dryRunReportLines, planBills, projectResolverFromListing, streamBills } from '../src/import/index.ts';
import { FileError } from '../src/errors/index.ts';
import { parseMappingFile, type MappedRecord, type MappingFile, type StaticLine } from '../src/mapping/index.ts';
import { startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';

const ROWS = resolve(import.meta.dirname, 'fixtures', 'rows');
const VENDORS = resolve(import.meta.dirname, '..', 'samples', 'vendors.csv');
/** A NetSuite transaction saved search of vendor bills (Main Line: Either), exported as CSV: CRLF, `*` on each bill's main line. */
const NETSUITE = join(ROWS, 'netsuite-vendor-bills.csv');
const mapping = (name: string): MappingFile => parseMappingFile(JSON.parse(readFileSync(join(ROWS, name), 'utf8')), name);
const KITCHEN = 10039;
const resolver = projectResolverFromListing([{ ID: KITCHEN, PROJECT_NUMBER: 'P-2020-0025', NAME: 'Elm Street Lofts Kitchen Remodel' }]);

const bills = (project: number | string) => [
  { PRJ_ID: project, VENDOR_ID: 56, INVOICE_DATE: '2026-03-02T00:00:00', ITEMS: [{ NAME: 'Framing lumber', RATE: '1250.00' }, { NAME: 'Engineered joists', RATE: '480.00' }] },
  { PRJ_ID: project, VENDOR_ID: 57, INVOICE_DATE: '2026-03-09T00:00:00', ITEMS: [{ NAME: '200A panel and breakers', RATE: '3480.00' }] },
  { PRJ_ID: project, VENDOR_ID: 58, INVOICE_DATE: '2026-03-16T00:00:00', ITEMS: [{ NAME: 'PEX supply lines', RATE: '600.00' }, { NAME: 'Drain fittings', RATE: '200.00' }, { NAME: 'Shut-off valves', RATE: '112.40' }] },
];
const MAIN_LINES: StaticLine[] = [
  { line: 2, record: '', status: 'ignored', reason: 'total', message: 'summary row (Main Line "*"): 1730.00 = the sum of bill "VB-1001"' },
  { line: 5, record: '', status: 'ignored', reason: 'total', message: 'summary row (Main Line "*"): 3480.00 = the sum of bill "VB-1002"' },
  { line: 7, record: '', status: 'ignored', reason: 'total', message: 'summary row (Main Line "*"): 912.40 = the sum of bill "VB-1003"' },
];

describe('NetSuite Main Line rows', () => {
  it('without the mapping key: the file stops (exit 2) naming the rows, before anything is sent', async () => {
    const err = await planBills(NETSUITE, { mapping: mapping('netsuite-mapping.json'), vendorsFile: VENDORS, resolver }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileError);
    expect((err as FileError).message).toBe(
      `${NETSUITE}: every bill of two or more rows has a first or last row whose amount equals the sum of its other rows (lines 2, 5, 7): summary rows repeating each bill's total (as NetSuite's "Main Line" rows do), which would send every bill at twice its value. ` +
        'Say how the mapping file knows them: "summaryRows": {"column": "<the column that marks them>", "values": ["<its value>"]} (those rows are ignored, each checked against its bill), or "summaryRows": "none" (they are lines); nothing was sent.',
    );
  });

  it('names at most 10 rows, and says how many more', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'netsuite-')), 'twelve.csv');
    const lines = ['bill_ref,project_id,vendor_id,item_name,rate'];
    for (let b = 1; b <= 12; b++) lines.push(`VB-${b},1042,55,Bill ${b},30.00`, `VB-${b},1042,55,Lumber,20.00`, `VB-${b},1042,55,Delivery,10.00`);
    writeFileSync(file, `${lines.join('\r\n')}\r\n`);
    const err = await planBills(file).catch((e: unknown) => e);
    expect((err as FileError).message).toContain('(lines 2, 5, 8, 11, 14, 17, 20, 23, 26, 29 and 2 more)');
  });

  it('a streamed plan stops the same way, after the last row', async () => {
    const records: MappedRecord[] = [];
    const err = await streamBills(NETSUITE, { mapping: mapping('netsuite-mapping.json'), vendorsFile: VENDORS, resolver }, { async add(r) { records.push(...r); } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileError);
    expect((err as FileError).message).toContain('(lines 2, 5, 7)');
  });

  it('with "summaryRows": {"column": "Main Line", "values": ["*"]}: the main lines are ignored (total), each checked, and the bills are exact', async () => {
    const plan = await planBills(NETSUITE, { mapping: mapping('netsuite-mapping-main-line.json'), vendorsFile: VENDORS, resolver });
    expect(plan.records.map((r) => r.payload)).toEqual(bills(KITCHEN));
    expect(plan.statics.sort((a, b) => a.line - b.line)).toEqual(MAIN_LINES);
    expect(plan.records.map((r) => r.notes)).toEqual([undefined, undefined, undefined]);
  });

  /** NetSuite's export with one change, planned with the main-line mapping. */
  async function planChangedNetsuite(name: string, from: string, to: string) {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'netsuite-')), name);
    writeFileSync(file, readFileSync(NETSUITE, 'utf8').replace(from, to));
    return planBills(file, { mapping: mapping('netsuite-mapping-main-line.json'), vendorsFile: VENDORS, resolver });
  }

  it('a main line that does not check is a row error naming both sums; its bill is not sent', async () => {
    const plan = await planChangedNetsuite('netsuite-off.csv', 'Rough-in,*,912.40', 'Rough-in,*,921.40');
    expect(plan.records.map((r) => r.payload)).toEqual(bills(KITCHEN).slice(0, 2));
    const lines = dryRunReportLines(plan).filter((l) => l.line >= 7);
    expect(lines.map((l) => [l.line, l.status, l.message])).toEqual([
      [7, 'invalid', 'summary row (Main Line "*") says 921.40 but the lines of bill "VB-1003" add up to 912.40; not sent: correct the amounts, or the summary row'],
      [8, 'invalid', 'not sent: line 7 of this bill is invalid'],
      [9, 'invalid', 'not sent: line 7 of this bill is invalid'],
      [10, 'invalid', 'not sent: line 7 of this bill is invalid'],
    ]);
  });

  it('a main line whose bill has a line that cannot be read is not checked, and says so instead of naming a partial sum', async () => {
    const plan = await planChangedNetsuite('netsuite-unreadable-line.csv', 'PEX supply lines,,600.00', 'PEX supply lines,,six hundred');
    expect(plan.records.map((r) => r.payload)).toEqual(bills(KITCHEN).slice(0, 2));
    const line7 = dryRunReportLines(plan).find((l) => l.line === 7)!;
    expect(line7.status).toBe('invalid');
    expect(line7.message).toBe('summary row (Main Line "*") says 912.40; not checked, since a line of bill "VB-1003" has an error (see its line): correct it and run again; not sent');
    expect(dryRunReportLines(plan).find((l) => l.line === 8)).toMatchObject({ status: 'invalid' });
  });

  it('with "summaryRows": "none": the main lines are lines, as the user said', async () => {
    const plan = await planBills(NETSUITE, { mapping: { ...mapping('netsuite-mapping.json'), summaryRows: 'none' }, vendorsFile: VENDORS, resolver });
    expect(plan.records.map((r) => (r.payload as { ITEMS: Array<{ NAME: string }> }).ITEMS[0]!.NAME)).toEqual(['April framing', 'Panel upgrade', 'Rough-in']);
    expect(plan.statics).toEqual([]);
  });
});

describe('a bill that matches alone', () => {
  it('100, 50 and 50 among bills that do not match: sent, each of its report lines saying one row equals the sum of the others', async () => {
    const plan = await planBills(join(ROWS, 'bill-one-row-equals-the-others.csv'));
    expect(plan.records.map((r) => r.payload)).toEqual([
      { PRJ_ID: 1042, VENDOR_ID: 55, ITEMS: [{ NAME: 'Ready-mix 4000 psi', RATE: '100.00' }, { NAME: 'Pump truck', RATE: '50.00' }, { NAME: 'Short-load fee', RATE: '50.00' }] },
      { PRJ_ID: 1042, VENDOR_ID: 56, ITEMS: [{ NAME: 'Framing lumber', RATE: '300.00' }, { NAME: 'Delivery', RATE: '40.00' }] },
    ]);
    const word = 'dry run: valid, not sent; line 2 (100.00) equals the sum of this bill\'s other rows; if it is a summary row, say how the mapping knows them ("summaryRows")';
    expect(dryRunReportLines(plan).map((l) => [l.line, l.message])).toEqual([
      [2, word], [3, word], [4, word], [5, 'dry run: valid, not sent'], [6, 'dry run: valid, not sent'],
    ]);
  });
});

describe('NetSuite through the queue', () => {
  let rig: E2eRig;
  let kitchen: number;
  beforeAll(async () => {
    rig = await startE2eRig();
    kitchen = rig.sandbox.visibleProjectIds(rig.sandbox.credentials.email, false).find((id) => rig.sandbox.project(id)!.NAME === 'Elm Street Lofts Kitchen Remodel')!;
  });
  afterAll(() => rig?.close());

  it('with the Main Line key: exactly the three bills are created at their totals; a second run creates nothing', async () => {
    await rig.workers();
    const before = rig.sandbox.bills().length;
    const first = await rig.importFile('bills', NETSUITE, { mapping: mapping('netsuite-mapping-main-line.json'), vendorsFile: VENDORS });
    expect(first.summary).toMatchObject({ records: 3, counts: { created: 3, invalidRows: 0 }, ignored: { total: 3 } });
    const created = rig.sandbox.bills().slice(before).map((b) => b.payload as { VENDOR_ID: unknown; ITEMS: Array<{ NAME: string; RATE: string }> });
    created.sort((a, b) => Number(a.VENDOR_ID) - Number(b.VENDOR_ID));
    expect(created.map((b) => b.ITEMS)).toEqual(bills(kitchen).map((b) => b.ITEMS));
    expect(first.report.filter((l) => l.status === 'ignored').map((l) => [l.line, l.message])).toEqual(MAIN_LINES.map((l) => [l.line, l.message]));

    const second = await rig.importFile('bills', NETSUITE, { mapping: mapping('netsuite-mapping-main-line.json'), vendorsFile: VENDORS });
    expect(second.summary.counts).toMatchObject({ created: 0, exists: 0, skipped: 3 });
    expect(rig.sandbox.bills().length).toBe(before + 3);
  });

  it('without it: the import stops before anything is sent', async () => {
    const before = rig.sandbox.bills().length;
    await expect(rig.importFile('bills', NETSUITE, { mapping: mapping('netsuite-mapping.json'), vendorsFile: VENDORS })).rejects.toThrow(/summary rows repeating each bill's total/);
    expect(rig.sandbox.bills().length).toBe(before);
  });
});
