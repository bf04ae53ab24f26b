/**
 * Every bill test file of the repository whose source program wrote its totals (a `Total for …`
 * or closing `TOTAL` row, Xero's `Total` column) is read as an import reads it, and each sent
 * bill's sum (qty × rate, plus its tax) is compared with the totals the program wrote: a bill
 * sent at another value than its program says is the worst defect this tool can have (README,
 * "What is not a record"). The files are found by what they hold, so a new one must be added to
 * the table below with the options it is imported with.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { planBills, projectResolverFromListing, type PlanOptions } from '../src/import/index.ts';
import { parseMappingFile, presetMapping } from '../src/mapping/index.ts';
import type { BillPayload } from '../src/payloads/index.ts';

const ROOT = resolve(import.meta.dirname, '..');
const resolver = projectResolverFromListing([
  { ID: 10009, PROJECT_NUMBER: 'P-2022-0004', NAME: 'Smith, Jones & Partners — Office Fit-out' },
  { ID: 10025, PROJECT_NUMBER: 'P-2019-0015', NAME: 'Silver Lake Library Addition' },
  { ID: 10037, PROJECT_NUMBER: 'P-2024-0023', NAME: 'Foxglove Retail Center Roof Replacement' },
  { ID: 10039, PROJECT_NUMBER: 'P-2020-0025', NAME: 'Elm Street Lofts Kitchen Remodel' },
  { ID: 10053, PROJECT_NUMBER: 'P-2019-0032', NAME: 'Riverside Warehouse Roof Replacement' },
]);
const xero = presetMapping('xero')!;

/** How each file is imported (the options its own tests use). */
const CASES: Record<string, PlanOptions> = {
  'samples/xero-bills.csv': { mapping: xero, vendorsFile: join(ROOT, 'samples', 'vendors.csv'), resolver },
  'test/fixtures/reading/xero-uk-bills.csv': { mapping: xero, vendorsFile: join(ROOT, 'test/fixtures/reading/vendors.csv'), dateFormat: 'DMY', accountCurrency: 'GBP' },
  'test/fixtures/bad-input/total-not-checking.csv': {},
  'test/fixtures/rows/quickbooks-transactions-by-vendor-sections.csv': {
    mapping: parseMappingFile(JSON.parse(readFileSync(join(ROOT, 'test/fixtures/rows/quickbooks-sections-mapping.json'), 'utf8')), 'mapping'),
    vendorsFile: join(ROOT, 'test/fixtures/rows/vendors.csv'),
  },
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : /\.(csv|txt)$/i.test(name) ? [path] : [];
  });
}

/** The rows of a file as csv-parse reads it (UTF-8; the files with totals are). */
function rowsOf(path: string): string[][] {
  return parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, ''), { relax_column_count: true, skip_empty_lines: false }) as string[][];
}

const TOTAL_ROW = /^(total for\s+\S|total$)/i;
const XERO_TOTAL = /^\*?total$/i;

/** A file whose program wrote totals: a `Total` column (Xero), or a row whose first text is `Total for …` or `TOTAL`. */
function writesTotals(path: string): boolean {
  let rows: string[][];
  try {
    rows = rowsOf(path);
  } catch {
    return false; // no table as a CSV reader reads it (the bad-input corpus's binary and broken files)
  }
  return rows.some((r, i) => (i < 30 && r.some((c) => XERO_TOTAL.test(c.trim()))) || TOTAL_ROW.test((r.find((c) => c.trim() !== '') ?? '').trim()));
}

const money = (n: number): number => Math.round(n * 100) / 100;
const amount = (text: string): number => Number(text.replace(/[$,\s]/g, ''));

/** What a bill comes to: each line's qty × rate plus its tax, rounded to cents as a line is. */
function sumOf(bill: BillPayload): number {
  let sum = 0;
  for (const item of bill.ITEMS as Array<{ RATE: string; QTY?: number; TAX_PERCENT?: number }>) {
    const line = money(Number(item.RATE) * (item.QTY ?? 1));
    sum += line + money((line * (item.TAX_PERCENT ?? 0)) / 100);
  }
  return money(sum);
}

describe('every bill file whose program wrote its totals', () => {
  const found = [ROOT + '/samples', ROOT + '/test/fixtures'].flatMap(filesUnder).filter(writesTotals).map((p) => relative(ROOT, p)).sort();

  it('has its import options here (a new file with totals is checked too)', () => {
    expect(found).toEqual(Object.keys(CASES).sort());
  });

  for (const name of Object.keys(CASES).sort()) {
    it(`${name}: every sent bill comes to the total its program wrote`, async () => {
      const path = join(ROOT, name);
      const plan = await planBills(path, CASES[name]!);
      const rows = rowsOf(path);
      const header = rows.findIndex((r) => r.some((c) => XERO_TOTAL.test(c.trim())) || r.some((c) => /^(bill_ref|num|\*?invoicenumber)$/i.test(c.trim())));
      const totalAt = rows[header]!.findIndex((c) => XERO_TOTAL.test(c.trim()));
      let compared = 0;
      let written = totalAt >= 0 ? 1 : 0;
      if (totalAt >= 0) {
        // Xero: each row of a bill carries the bill's Total.
        for (const r of plan.records) {
          const written = amount(rows[r.lines[0]! - 1]![totalAt]!);
          expect([r.label, sumOf(r.payload as BillPayload)]).toEqual([r.label, written]);
          compared++;
        }
      }
      // `Total for X` (a bill or a vendor) and the closing TOTAL: the sent bills they close.
      const byLine = new Map<number, BillPayload>();
      for (const r of plan.records) for (const l of r.lines) byLine.set(l, r.payload as BillPayload);
      let since: BillPayload[] = [];
      let group: BillPayload[] = [];
      rows.forEach((r, i) => {
        const first = (r.find((c) => c.trim() !== '') ?? '').trim();
        const bill = byLine.get(i + 1);
        if (bill !== undefined && !group.includes(bill)) group.push(bill);
        if (bill !== undefined && !since.includes(bill)) since.push(bill);
        if (!TOTAL_ROW.test(first)) return;
        written++;
        const total = amount(r[r.length - 1]!.trim() === '' ? r.filter((c) => c.trim() !== '').pop()! : r[r.length - 1]!);
        const closed = /^total$/i.test(first) ? since : group;
        // A total whose bill was held back (it does not check) closes no sent bill.
        if (closed.length > 0) {
          expect([first, money(closed.reduce((s, b) => s + sumOf(b), 0))]).toEqual([first, total]);
          compared++;
        }
        group = [];
        if (/^total$/i.test(first)) since = [];
      });
      expect(written, `${name}: no total found`).toBeGreaterThan(0);
      // A file whose every total closes a bill held back (it does not check) compares none, and sends none of them.
      if (compared === 0) expect(plan.records.every((r) => !rows.slice(r.lines[0]! - 1).some((row) => TOTAL_ROW.test((row.find((c) => c.trim() !== '') ?? '').trim())))).toBe(true);
    });
  }
});
