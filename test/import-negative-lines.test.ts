/**
 * Negative lines of bills (README, "Negative lines"), planned in process as an import plans them:
 * a negative line on a bill whose lines sum above zero is a discount or a return, sent as
 * written; a bill whose lines sum below zero (100 and −150) is a credit: `ignored` (`credit`)
 * unless `--credits negative`, which sends its rates as written (100 and −150 stay 100 and −150,
 * never −100 and −150); −|rate| is only for credits known by their kind.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planBills } from '../src/import/index.ts';
import { parseMappingFile } from '../src/mapping/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'buildsync-negative-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Bills as Excel saves a CSV: CRLF, a negative written with a minus or in parentheses.
const FILE = join(dir, 'bills-with-returns.csv');
writeFileSync(FILE, [
  'bill_ref,project_id,vendor_id,item_name,qty,rate',
  'R-100,1042,55,Ready-mix,1,100.00',
  'R-100,1042,55,Returned ready-mix,1,-150.00',
  'R-200,1042,56,Lumber package,1,"1,250.00"',
  'R-200,1042,56,Returned studs,10,(3.50)',
].join('\r\n') + '\r\n');

const RETURNS = { PRJ_ID: 1042, VENDOR_ID: 56, ITEMS: [{ NAME: 'Lumber package', RATE: '1250.00', QTY: 1 }, { NAME: 'Returned studs', RATE: '-3.50', QTY: 10 }] };
const CREDIT_MESSAGE = "its lines sum to -50.00: a credit; the service's bills hold no credit notes, so it is not sent (--credits negative sends it with its rates as written)";

describe('negative lines on bills', () => {
  it('a bill summing above zero is sent with its negative line as written; one of 100 and −150 sums to −50: a credit, ignored', async () => {
    const plan = await planBills(FILE, {});
    expect(plan.records.map((r) => r.payload)).toEqual([RETURNS]);
    expect(plan.statics.map((s) => [s.line, s.status, s.reason, s.message])).toEqual([
      [2, 'ignored', 'credit', CREDIT_MESSAGE],
      [3, 'ignored', 'credit', CREDIT_MESSAGE],
    ]);
  });

  it('--credits negative sends 100 and −150 as written, never −100 and −150', async () => {
    const plan = await planBills(FILE, { credits: 'negative' });
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.payload)).toEqual([
      { PRJ_ID: 1042, VENDOR_ID: 55, ITEMS: [{ NAME: 'Ready-mix', RATE: '100.00', QTY: 1 }, { NAME: 'Returned ready-mix', RATE: '-150.00', QTY: 1 }] },
      RETURNS,
    ]);
  });

  it('"credits": "negative" in the mapping file does the same', async () => {
    const plan = await planBills(FILE, { mapping: parseMappingFile({ credits: 'negative' }, 'm.json') });
    expect(plan.records.map((r) => (r.payload as { ITEMS: Array<{ RATE: string }> }).ITEMS.map((i) => i.RATE))).toEqual([['100.00', '-150.00'], ['1250.00', '-3.50']]);
  });

  it('a credit known by its kind is still sent at −|rate| with --credits negative', async () => {
    const file = join(dir, 'kinds.csv');
    writeFileSync(file, 'bill_ref,project_id,vendor_id,item_name,rate,Type\r\nVC-1,1042,55,Credit for damaged bags,40.00,Vendor Credit\r\n');
    const mapping = parseMappingFile({ kinds: { column: 'Type', bill: ['Bill'], credit: ['Vendor Credit'], ignore: [] } }, 'm.json');
    const plan = await planBills(file, { mapping, credits: 'negative' });
    expect(plan.records.map((r) => r.payload)).toEqual([{ PRJ_ID: 1042, VENDOR_ID: 55, ITEMS: [{ NAME: 'Credit for damaged bags', RATE: '-40.00' }] }]);
  });
});
