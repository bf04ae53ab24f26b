/**
 * A long accounting export (README, "What is not a record"): a QuickBooks report of 80,000 bills,
 * each followed by its total row and a payment, is planned whole. Its 160,000 ignored rows are
 * reported one by one; once they overflowed the call stack (`RangeError`) and the import failed
 * with an unexpected error.
 *
 * @scale: whole suite only (not `npm run test:quick`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { planBills } from '../src/import/index.ts';
import { presetMapping } from '../src/mapping/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'buildsync-long-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a QuickBooks report of 80,000 bills with a total row and a payment each: every bill planned, 160,000 rows ignored', async () => {
  const BILLS = 80_000;
  const rows = ['Type,Bill No.,Vendor,Bill Date,Due Date,Memo,Account,Line Description,Line Amount,project_id'];
  for (let i = 0; i < BILLS; i++) {
    rows.push(`Bill,B-${i},Summit Lumber & Millwork,03/02/2026,04/20/2026,Studs,Job Materials,2x4 studs,10.00,1042`);
    rows.push(`Total for B-${i},,,,,,,,10.00,`);
    rows.push(`Bill Payment (Check),P-${i},Summit Lumber & Millwork,03/20/2026,,,Checking,,-10.00,`);
  }
  const file = join(dir, 'bill-report.csv');
  writeFileSync(file, `${rows.join('\r\n')}\r\n`);
  const plan = await planBills(file, { mapping: presetMapping('quickbooks'), vendorsFile: resolve(import.meta.dirname, '..', 'samples', 'vendors.csv') });
  expect(plan.records).toHaveLength(BILLS);
  const ignored = plan.statics.filter((s) => s.status === 'ignored');
  expect(ignored).toHaveLength(2 * BILLS);
  expect(ignored.filter((s) => s.reason === 'total')).toHaveLength(BILLS);
  expect(plan.statics.filter((s) => s.status === 'invalid')).toEqual([]);
}, 60_000);
