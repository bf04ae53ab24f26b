/**
 * Bills in sections (README, "What is not a record"): QuickBooks' "Transaction List by Vendor"
 * writes each vendor's name alone in the first column (whose header is empty), its bills under it
 * with no vendor cell, and a `Total for …` row. With `--layout sections` (here the mapping's
 * `"layout": "sections"`) each heading names the vendor of the rows under it (`ignored`,
 * `heading`), each `Total for …` closes that vendor's rows and is checked, and a vendor called
 * "Total Plumbing Supply" is a vendor. Without the layout, the file has no vendor column.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dryRunReportLines, planBills } from '../src/import/index.ts';
import { parseMappingFile, type MappingFile } from '../src/mapping/index.ts';
import { BillFiles } from './helpers/bill-dry-run.ts';

const ROWS = resolve(import.meta.dirname, 'fixtures', 'rows');
const FILE = join(ROWS, 'quickbooks-transactions-by-vendor-sections.csv');
const MAPPING = parseMappingFile(JSON.parse(readFileSync(join(ROWS, 'quickbooks-sections-mapping.json'), 'utf8')), 'mapping.json');
const VENDORS = join(ROWS, 'vendors.csv');

describe('a vendor-grouped QuickBooks report with --layout sections', () => {
  it('each heading names the vendor of the rows under it; each Total for … checked; the bills are exact', async () => {
    const plan = await planBills(FILE, { mapping: MAPPING, vendorsFile: VENDORS });
    expect(plan.records.map((r) => r.payload)).toEqual([
      { PRJ_ID: 1042, VENDOR_ID: 56, INVOICE_DATE: '2026-03-02T00:00:00', ITEMS: [{ NAME: 'Framing package', RATE: '1250.00' }] },
      { PRJ_ID: 1042, VENDOR_ID: 56, INVOICE_DATE: '2026-03-18T00:00:00', ITEMS: [{ NAME: 'Joist hangers', RATE: '112.40' }] },
      { PRJ_ID: 1042, VENDOR_ID: 61, INVOICE_DATE: '2026-03-11T00:00:00', ITEMS: [{ NAME: 'Copper pipe and fittings', RATE: '500.70' }] },
    ]);
    expect(dryRunReportLines(plan).map((l) => [l.line, l.status, l.message])).toEqual([
      [1, 'ignored', 'title above the header row (line 5): not part of the table'],
      [2, 'ignored', 'title above the header row (line 5): not part of the table'],
      [3, 'ignored', 'title above the header row (line 5): not part of the table'],
      [6, 'ignored', 'section heading: vendor "Summit Lumber & Millwork" of the rows under it'],
      [7, 'skipped', 'dry run: valid, not sent'],
      [8, 'skipped', 'dry run: valid, not sent'],
      [9, 'ignored', 'total row: "Total for Summit Lumber & Millwork", 1362.40 = the sum of vendor "Summit Lumber & Millwork"'],
      [10, 'ignored', 'section heading: vendor "Total Plumbing Supply" of the rows under it'],
      [11, 'skipped', 'dry run: valid, not sent'],
      [12, 'ignored', 'total row: "Total for Total Plumbing Supply", 500.70 = the sum of vendor "Total Plumbing Supply"'],
      [14, 'ignored', 'total row: "TOTAL", 1863.10 = the sum of every line since the previous total'],
      [17, 'ignored', 'footer below the last row: not part of the table'],
    ]);
  });

  it('a vendor total that does not check is a row error naming both sums', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'sections-')), 'off.csv');
    writeFileSync(file, readFileSync(FILE, 'utf8').replace('Total for Total Plumbing Supply,,,,,,,$500.70', 'Total for Total Plumbing Supply,,,,,,,$507.00'));
    const plan = await planBills(file, { mapping: MAPPING, vendorsFile: VENDORS });
    expect(dryRunReportLines(plan).find((l) => l.line === 12)).toMatchObject({ status: 'invalid', message: 'total row "Total for Total Plumbing Supply" says 507.00 but the lines it closes (vendor "Total Plumbing Supply") add up to 500.70; correct the amounts, or the total' });
  });

  it('through the CLI with --layout sections: the same three bills, exit 0, headings and totals counted', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'sections-cli-'));
    const { layout: _, ...plain } = MAPPING;
    const mapping = join(dir, 'mapping.json');
    writeFileSync(mapping, JSON.stringify(plain));
    const files = new BillFiles();
    try {
      const r = await files.dryRun(FILE, ['--mapping', mapping, '--vendors', VENDORS, '--layout', 'sections']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.payloads.map((p) => (p as { VENDOR_ID: string }).VENDOR_ID)).toEqual(['56', '56', '61']);
      expect(r.ignoredSummary).toBe('9 rows ignored: title 3, footer 1, total 3, heading 2');
    } finally {
      files.close();
    }
  });

  it('without the layout the file stops: it has no vendor column', async () => {
    const { layout: _, ...plain } = MAPPING;
    await expect(planBills(FILE, { mapping: plain as MappingFile, vendorsFile: VENDORS })).rejects.toThrow(/vendor/);
  });
});
