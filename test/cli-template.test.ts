import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planBills, planEstimates } from '../src/import/index.ts';
import { templateColumns, templateCsv, writeTemplate, type TemplateKind } from '../src/import/template.ts';
import { BILL_COLUMNS, ESTIMATE_COLUMNS } from '../src/mapping/index.ts';
import { encodeBillInfo } from '../src/payloads/index.ts';
import { runCli } from './helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'buildsync-template-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `buildsync template ARGS` in the test's folder, with only PATH set. */
const template = (args: string[]) => runCli(['template', ...args], {}, { cwd: dir });

/** Planned as by --dry-run without credentials: no resolver, project_id is taken as written. */
const plan = (kind: TemplateKind, file: string) => (kind === 'estimates' ? planEstimates(file) : planBills(file));

describe('buildsync template: every column and one example row that imports cleanly', () => {
  it('has every column of the contract in order, with one project and one vendor column', () => {
    // currency only checks the account's currency; a row gives tax_percent or tax_amount.
    expect(templateColumns('estimates')).toEqual(ESTIMATE_COLUMNS.filter((c) => !['project_number', 'project_name', 'currency'].includes(c)));
    expect(templateColumns('bills')).toEqual(BILL_COLUMNS.filter((c) => !['project_number', 'project_name', 'vendor', 'tax_amount', 'currency'].includes(c)));
    expect(templateColumns('estimates')[0]).toBe('project_id');
    expect(templateColumns('bills').slice(0, 3)).toEqual(['bill_ref', 'project_id', 'vendor_id']);
  });

  for (const kind of ['estimates', 'bills'] as const) {
    for (const ext of ['csv', 'xlsx'] as const) {
      it(`${kind} .${ext} reads back as exactly one valid record`, async () => {
        const file = join(dir, `${kind}-template.${ext}`);
        expect(await writeTemplate(kind, file)).toBe(ext);
        const planned = await plan(kind, file);
        expect(planned.statics).toEqual([]);
        expect(planned.rows).toBe(1);
        expect(planned.records).toHaveLength(1);
        expect(planned.records[0]!.lines).toEqual([2]);
      });
    }
  }

  it('the .csv and .xlsx templates send the same record', async () => {
    const [csvEstimate, xlsxEstimate] = await Promise.all([planEstimates(join(dir, 'estimates-template.csv')), planEstimates(join(dir, 'estimates-template.xlsx'))]);
    expect(xlsxEstimate.records[0]!.payload).toEqual(csvEstimate.records[0]!.payload);
    // A number cell keeps the rate as 1250, the CSV as 1250.00: the same on the wire.
    const [csvBill, xlsxBill] = await Promise.all([planBills(join(dir, 'bills-template.csv')), planBills(join(dir, 'bills-template.xlsx'))]);
    expect(encodeBillInfo(xlsxBill.records[0]!.payload)).toBe(encodeBillInfo(csvBill.records[0]!.payload));
    const bill = (await planBills(join(dir, 'bills-template.xlsx'))).records[0]!.payload;
    expect(bill).toMatchObject({ PRJ_ID: 10039, VENDOR_ID: 55, INVOICE_DATE: '2026-03-02T00:00:00', READY_FOR_PAYMENT: false, ITEMS: [{ NAME: 'Ready-mix 4000 psi', QTY: 6 }] });
    expect(encodeBillInfo(bill)).toContain('"RATE":"1250.00"');
  });

  it('writes CSV to standard output by default and for --out -', async () => {
    const [plain, dash] = await Promise.all([template(['estimates']), template(['bills', '--out', '-'])]);
    expect(plain.stderr).toBe('');
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe(templateCsv('estimates'));
    expect(plain.stdout.split('\n')[0]).toBe(templateColumns('estimates').join(','));
    expect(dash.code).toBe(0);
    expect(dash.stdout).toBe(templateCsv('bills'));
    const piped = join(dir, 'piped-bills.csv');
    writeFileSync(piped, dash.stdout);
    expect((await planBills(piped)).records).toHaveLength(1);
  });

  it('writes --out PATH (.xlsx by the name) and refuses to overwrite an existing file (exit 2)', async () => {
    const first = await template(['bills', '--out', 'new-bills.xlsx']);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/wrote the bills template \(\.xlsx\) to .*new-bills\.xlsx/);
    expect(readFileSync(join(dir, 'new-bills.xlsx')).subarray(0, 2).toString()).toBe('PK');
    const again = await template(['bills', '--out', 'new-bills.xlsx']);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/new-bills\.xlsx already exists; the template never overwrites a file\. Remove it, or choose another name with --out\./);
    expect(again.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses an unknown kind (exit 2)', async () => {
    const res = await template(['invoices']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/invoices/);
  });
});
