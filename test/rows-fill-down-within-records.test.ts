/**
 * Fill-down stays within one record (README, "What is not a record"): a blank line inside a
 * filled-down block cuts the rows under it off their keys, a row error that holds back the
 * record above the blank line too (never an estimate sent without "Haul debris"); a value never
 * fills down into a row whose own bill_ref differs; the QuickBooks preset fills down split lines
 * only, so a file without a `Type` column fills nothing down. In-process plans (held whole and
 * streamed) of files as Excel and QuickBooks write them.
 */
import { resolve, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dryRunReportLines, planBills, planEstimates, projectResolverFromListing, streamEstimates } from '../src/import/index.ts';
import { QUICKBOOKS_MAPPING, type MappedRecord, type StaticLine } from '../src/mapping/index.ts';

const ROWS = resolve(import.meta.dirname, 'fixtures', 'rows');
const VENDORS = join(ROWS, 'vendors.csv');
const KITCHEN = 10039;
const resolver = projectResolverFromListing([{ ID: KITCHEN, PROJECT_NUMBER: 'P-2020-0025', NAME: 'Elm Street Lofts Kitchen Remodel' }]);

/** Saved by Excel as "CSV (Comma delimited)": CRLF, the empty row inside the block written as commas. */
const BLANK_IN_BLOCK = join(ROWS, 'estimate-blank-line-in-block.csv');
const FILL = ['project_id', 'estimate_name', 'category', 'subcategory'];
const CUT = `${BLANK_IN_BLOCK}:5 column project_id: empty, and fill-down stops at a blank line, so a blank line above cuts this row off the record of line 3; delete the blank line, or fill in project_id; that record is not sent either (a blank line never splits a record)`;
const BATH = {
  NAME: 'Bath remodel', PROJECT_ID: 1043,
  CATS: [{ NAME: 'Plumbing', SUBCATS: [{ NAME: 'Rough-in', ITEMS: [{ NAME: 'Supply lines', UNIT: 'ea', QTY: 6, UNIT_COST: 40 }, { NAME: 'Shut-off valves', UNIT: 'ea', QTY: 6, UNIT_COST: 18 }] }] }],
};

describe('a blank line inside a filled-down block', () => {
  it('the row under it is a row error, and the estimate above is not sent either (its rows say why); the next estimate is sent', async () => {
    const plan = await planEstimates(BLANK_IN_BLOCK, { fillDown: FILL });
    expect(plan.records.map((r) => r.payload)).toEqual([BATH]);
    const kitchen = 'project 1042 / Kitchen remodel';
    expect(dryRunReportLines(plan).map((l) => [l.line, l.record, l.status, l.message])).toEqual([
      [2, kitchen, 'invalid', 'not sent: line 5 of this estimate is invalid'],
      [3, kitchen, 'invalid', 'not sent: line 5 of this estimate is invalid'],
      [5, kitchen, 'invalid', CUT],
      [6, 'project 1043 / Bath remodel', 'skipped', 'dry run: valid, not sent'],
      [7, 'project 1043 / Bath remodel', 'skipped', 'dry run: valid, not sent'],
    ]);
  });

  it('a streamed plan holds the estimate above until the cut row, and sends nothing of it', async () => {
    const records: MappedRecord[] = [];
    const statics: StaticLine[] = [];
    await streamEstimates(BLANK_IN_BLOCK, { fillDown: FILL }, {
      async add(r, s) {
        records.push(...r);
        statics.push(...s);
      },
    });
    expect(records.map((r) => r.label)).toEqual(['project 1043 / Bath remodel']);
    expect(statics.map((l) => [l.line, l.status]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([[2, 'invalid'], [3, 'invalid'], [5, 'invalid']]);
  });

  it('without the blank line the block is one estimate of three items', async () => {
    const { writeFileSync, readFileSync, mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = join(mkdtempSync(join(tmpdir(), 'fill-')), 'whole.csv');
    writeFileSync(path, readFileSync(BLANK_IN_BLOCK, 'utf8').replace(',,,,,,,\r\n', ''));
    const plan = await planEstimates(path, { fillDown: FILL });
    expect(plan.records).toHaveLength(2);
    expect((plan.records[0]!.payload as { CATS: Array<{ SUBCATS: Array<{ ITEMS: unknown[] }> }> }).CATS[0]!.SUBCATS[0]!.ITEMS).toHaveLength(3);
  });
});

describe('fill-down never reaches another record', () => {
  /** QuickBooks' Transaction List by Vendor without a Type column: QB-502's memo is empty. */
  const NO_TYPE = join(ROWS, 'quickbooks-no-type-empty-memo.csv');
  const qb501 = {
    PRJ_ID: KITCHEN, VENDOR_ID: 56, INVOICE_DATE: '2026-04-03T00:00:00', NOTES: 'April framing, phase 2',
    ITEMS: [{ NAME: 'Framing lumber', RATE: '1250.00' }, { NAME: 'Delivery', RATE: '85.00' }],
  };
  const qb502 = { PRJ_ID: KITCHEN, VENDOR_ID: 56, INVOICE_DATE: '2026-04-09T00:00:00', ITEMS: [{ NAME: 'Joist hangers', RATE: '112.40' }] };

  it('the QuickBooks preset on a file without a Type column fills nothing down: QB-502 keeps its empty memo', async () => {
    const plan = await planBills(NO_TYPE, { mapping: QUICKBOOKS_MAPPING, vendorsFile: VENDORS, resolver, dateFormat: 'MDY' });
    expect(plan.table?.rowRules?.fillDown).toBeUndefined();
    expect(plan.records.map((r) => r.payload)).toEqual([qb501, qb502]);
  });

  it('--fill-down notes fills QB-501\'s second row, never QB-502, whose own bill_ref differs', async () => {
    const file = NO_TYPE;
    const plan = await planBills(file, { mapping: QUICKBOOKS_MAPPING, vendorsFile: VENDORS, resolver, dateFormat: 'MDY', fillDown: ['notes'] });
    expect(plan.records.map((r) => r.payload)).toEqual([qb501, qb502]);
  });
});
