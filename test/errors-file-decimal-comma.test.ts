import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dryRunReportLines, errorsFileSource, linesToFix, planBills, writeErrorsFile } from '../src/import/index.ts';

// The rows to fix are imported again as they are (README, "Rows to fix"): their numbers must not
// prove another decimal mark than the one the user types the fixes in.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'buildsync-errors-comma-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the errors file of a decimal-comma file', () => {
  it('writes read numbers with the decimal comma, so the fixed file reads as one', async () => {
    const file = path.join(dir, 'rechnungen.csv');
    await writeFile(file, ['bill_ref;project_id;vendor_id;invoice_date;item_name;rate;qty', 'R-1;1;55;13.02.2026;Beton;1.234,50;2,5', 'R-2;1;55;14.02.2026;Pumpe;48O,00;1,25'].join('\r\n') + '\r\n');
    const plan = await planBills(file);
    expect(plan.table!.rules.decimalSeparator).toBe(',');
    const errorsPath = path.join(dir, 'rechnungen.errors.csv');
    expect(await writeErrorsFile(errorsFileSource(plan, file, {}), linesToFix(dryRunReportLines(plan)), errorsPath)).toBe(1);
    const text = await readFile(errorsPath, 'utf8');
    expect(text.split('\r\n')[1] ?? text.split('\n')[1]).toMatch(/^R-2;1;55;2026-02-14;Pumpe;48O,00;1,25;3;/);
    await writeFile(errorsPath, text.replace('48O,00', '480,00'));
    const fixed = await planBills(errorsPath);
    expect(fixed.statics).toEqual([]);
    expect(fixed.records[0]!.payload.ITEMS[0]).toMatchObject({ RATE: '480.00', QTY: 1.25 });
  });
});
