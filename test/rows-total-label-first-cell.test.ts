/**
 * A total row's label in the first text cell of a row that names no project, vendor, estimate
 * or item of its own, whatever column it stands in (README, "What is not a record"): Procore's
 * "Grand Totals" in its Budget Code column is a total, checked and ignored; a vendor called
 * "Total Plumbing Supply" is a vendor. In-process plans of files written as the programs write them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dryRunReportLines, planBills, planEstimates } from '../src/import/index.ts';
import type { MappingFile } from '../src/mapping/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'total-first-cell-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const VENDORS = resolve(import.meta.dirname, '..', 'samples', 'vendors.csv');
const ROWS = resolve(import.meta.dirname, 'fixtures', 'rows');

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Procore's budget export (Budget > Export > CSV): LF line ends, every field quoted, amounts with their grouping, "Grand Totals" closing the file in the Budget Code column. */
const PROCORE_BUDGET = readFileSync(join(ROWS, 'procore-budget.csv'), 'utf8');
const PROCORE_MAPPING = JSON.parse(readFileSync(join(ROWS, 'procore-budget-mapping.json'), 'utf8')) as MappingFile;

describe('a total label in the first text cell', () => {
  it('Procore budget: "Grand Totals" in its Budget Code column is a total, checked against the subcategories, never a subcategory of 539,900', async () => {
    const plan = await planEstimates(join(ROWS, 'procore-budget.csv'), { mapping: PROCORE_MAPPING });
    expect(plan.records).toHaveLength(1);
    expect(plan.records[0]!.payload).toEqual({
      NAME: 'Budget 2026', PROJECT_ID: 1042,
      CATS: [{ NAME: 'Budget', SUBCATS: [
        { NAME: 'Project Manager', COST_CODE: '01-010.L', UNIT_COST: 120000 },
        { NAME: 'Demolition', COST_CODE: '02-200.S', UNIT_COST: 45500 },
        { NAME: 'Rough Carpentry', COST_CODE: '06-100.S', UNIT_COST: 374400 },
      ] }],
    });
    expect(plan.statics).toEqual([{ line: 5, record: '', status: 'ignored', reason: 'total', message: 'total row: "Grand Totals", 539900.00 = the sum of project 1042 / Budget 2026' }]);
  });

  it('Procore budget whose Grand Totals do not add up: a row error naming both sums, and the estimate is not sent', async () => {
    const plan = await planEstimates(write('procore-budget-off.csv', PROCORE_BUDGET.replace('"Grand Totals","","539,900.00"', '"Grand Totals","","593,900.00"')), { mapping: PROCORE_MAPPING });
    expect(plan.records).toEqual([]);
    expect(dryRunReportLines(plan).find((l) => l.line === 5)).toMatchObject({
      status: 'invalid',
      message: 'total row "Grand Totals" says 593900.00 but the lines it closes (project 1042 / Budget 2026) add up to 539900.00; not sent: correct the amounts, or the total',
    });
  });

  it('a vendor called "Total Plumbing Supply" in the first column is a vendor: its bill is sent', async () => {
    const file = join(ROWS, 'total-plumbing-supply.csv');
    const vendors = join(ROWS, 'vendors.csv');
    const plan = await planBills(file, { vendorsFile: vendors });
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.payload)).toEqual([{ PRJ_ID: 1042, VENDOR_ID: 61, ITEMS: [{ NAME: 'Copper pipe 3/4in', RATE: '412.50' }, { NAME: 'Fittings', RATE: '88.20' }] }]);
  });

  it('a total label in a column the mapping ignores, on a row naming no project, vendor or item, closes the lines above', async () => {
    const file = write('ledger.csv', [
      'Note,bill_ref,project_id,vendor,item_name,rate',
      ',INV-7,1042,Acme Concrete Supply,Slab pour,1200.00',
      ',INV-7,1042,Acme Concrete Supply,Pump truck,480.00',
      'Total INV-7,,,,,1680.00',
      '',
    ].join('\r\n'));
    const plan = await planBills(file, { vendorsFile: VENDORS, mapping: { columns: {}, ignore: ['Note'], constants: {} } });
    expect(plan.records.map((r) => r.payload)).toEqual([{ PRJ_ID: 1042, VENDOR_ID: 55, ITEMS: [{ NAME: 'Slab pour', RATE: '1200.00' }, { NAME: 'Pump truck', RATE: '480.00' }] }]);
    expect(plan.statics).toEqual([{ line: 4, record: '', status: 'ignored', reason: 'total', message: 'total row: "Total INV-7", 1680.00 = the sum of bill "INV-7"' }]);
  });
});
