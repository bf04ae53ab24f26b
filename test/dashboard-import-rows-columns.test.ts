/**
 * The import page's `Rows of the file` after a check (README, The import page): the mapped
 * columns and those with problems first, the rest behind the checkbox `All columns`; and the link
 * `First problem`, a few Tab presses from the `Check result` region at 390 px, which moves focus to
 * the first bad cell's textbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { hasChromium } from './helpers/chromium.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { focusedLabel, scrollWidth, shortControls } from './helpers/page-checks.ts';

// Xero's bill export as it writes it (every column of its layout), the user's project_id added last.
const HEADER = [
  'ContactName', 'EmailAddress', 'POAddressLine1', 'POAddressLine2', 'POAddressLine3', 'POAddressLine4', 'POCity', 'PORegion', 'POPostalCode', 'POCountry',
  'SAAddressLine1', 'SAAddressLine2', 'SAAddressLine3', 'SAAddressLine4', 'SACity', 'SARegion', 'SAPostalCode', 'SACountry',
  'InvoiceNumber', 'Reference', 'InvoiceDate', 'DueDate', 'PlannedDate', 'Total', 'TaxTotal', 'InvoiceAmountPaid', 'InvoiceAmountDue',
  'InventoryItemCode', 'Description', 'Quantity', 'UnitAmount', 'Discount', 'LineAmount', 'AccountCode', 'TaxType', 'TaxAmount',
  'TrackingName1', 'TrackingOption1', 'TrackingName2', 'TrackingOption2', 'Currency', 'Type', 'Sent', 'Status', 'project_id',
];
/** What the Xero layout reads (its Type and Status: the kind and status of each row). */
const READ = ['ContactName', 'InvoiceNumber', 'Reference', 'InvoiceDate', 'DueDate', 'Description', 'Quantity', 'UnitAmount', 'TaxAmount', 'Type', 'Status', 'project_id'];
/** The columns shown first, in the file's order: those read, and Currency, the column with the problem. */
const FIRST = ['line', ...HEADER.filter((h) => READ.includes(h) || h === 'Currency')];

function xeroRow(values: Record<string, string>): string {
  return HEADER.map((h) => values[h] ?? '').join(',');
}

function xeroFile(project: number): string {
  const line = (number: string, description: string, unit: string, currency: string) =>
    xeroRow({
      ContactName: 'Keystone Electric', EmailAddress: 'accounts@keystone-electric.example', POAddressLine1: '12 Foundry Road', POCity: 'Springfield', PORegion: 'IL', POPostalCode: '62701', POCountry: 'US',
      InvoiceNumber: number, Reference: 'PO 4471', InvoiceDate: '23/03/2026', DueDate: '22/04/2026', Total: '1020.00', TaxTotal: '0.00', InvoiceAmountPaid: '0.00', InvoiceAmountDue: '1020.00',
      Description: description, Quantity: '12', UnitAmount: unit, LineAmount: '1020.00', AccountCode: '5000', TaxType: 'Tax Exempt', TaxAmount: '0.00',
      TrackingName1: 'Job', TrackingOption1: 'Library', Currency: currency, Type: 'ACCPAY', Sent: 'Sent', Status: 'AUTHORISED', project_id: String(project),
    });
  return [HEADER.join(','), line('KE-8812', 'Temporary lighting strings', '85.00', 'USD'), line('KE-8813', 'Panel tie-in', '85.00', 'EUR')].join('\r\n') + '\r\n';
}

/** The headers of the rows table the page shows now, in their order (`line` first). */
const shownHeaders = (page: Page) =>
  page.evaluate(`[...document.querySelectorAll('#rows tr:first-of-type th')].filter((th) => th.offsetParent !== null).map((th) => th.textContent)`) as Promise<string[]>;

describe.skipIf(!hasChromium)('the rows table of the import page after a check (README, The import page)', () => {
  let rig: ImportPageRig;
  let csv: string;

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none' });
    csv = xeroFile(importableProjects(rig.sandbox)[0]!);
  }, 60_000);

  afterAll(() => rig?.close());

  async function checkXeroFile(page: Page): Promise<void> {
    await page.goto(`${rig.dashboard.url}/import`);
    await page.getByRole('radio', { name: 'Bills' }).check();
    await page.getByLabel('Spreadsheet').setInputFiles({ name: 'xero-export.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Read file' }).click();
    await page.getByRole('combobox', { name: 'UnitAmount' }).waitFor({ timeout: 10_000 });
    await page.getByRole('textbox', { name: 'Vendor ID for Keystone Electric' }).fill('55');
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText(/^2 rows: 1 bill to create, 1 invalid row\.$/).waitFor({ timeout: 15_000 });
  }

  it('shows the mapped columns and the currency column with its problem, not the 32 columns the layout ignores, until All columns is checked', async () => {
    const page = await rig.browser!.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await checkXeroFile(page);
      const cell = page.getByRole('textbox', { name: 'Currency line 3' });
      expect(await cell.inputValue()).toBe('EUR');
      // The columns read and the one with the problem, in the file's order: Currency, which the
      // file has after 26 columns that nothing reads, is the 11th column shown.
      expect(await shownHeaders(page)).toEqual(FIRST);
      expect(FIRST.indexOf('Currency')).toBe(10);
      expect(HEADER.indexOf('Currency')).toBe(40);
      const rows = page.getByRole('region', { name: 'Rows of the file' });
      // The bad cell is in view inside the table's region, after the check, with no scrolling by hand.
      const [cellBox, rowsBox] = [(await cell.boundingBox())!, (await rows.boundingBox())!];
      expect(cellBox.x).toBeGreaterThanOrEqual(rowsBox.x);
      expect(cellBox.x + cellBox.width).toBeLessThanOrEqual(rowsBox.x + rowsBox.width);

      const all = page.getByRole('checkbox', { name: 'All columns' });
      expect(await all.isChecked()).toBe(false);
      await all.check();
      expect(await shownHeaders(page)).toEqual(['line', ...HEADER]);
      expect(await page.getByRole('cell', { name: '12 Foundry Road' }).count()).toBe(2);
      await all.uncheck();
      expect(await shownHeaders(page)).toEqual(FIRST);
      expect(await page.getByRole('cell', { name: '12 Foundry Road' }).count()).toBe(0);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('at 390 px: the link First problem is at most 5 Tab presses from the Check result region and moves focus to the bad cell', async () => {
    const page = await rig.browser!.newPage({ viewport: { width: 390, height: 844 } });
    try {
      await checkXeroFile(page);
      await expect.poll(() => focusedLabel(page)).toBe('region:Check result');
      let presses = 0;
      for (; presses < 5; ) {
        await page.keyboard.press('Tab');
        presses++;
        if ((await page.locator('a:focus', { hasText: 'First problem' }).count()) > 0) break;
      }
      expect(await page.evaluate('document.activeElement.textContent')).toBe('First problem');
      expect(presses).toBeLessThanOrEqual(5);
      await page.keyboard.press('Enter');
      await expect.poll(() => focusedLabel(page)).toBe('input:Currency line 3');
      const cell = page.getByRole('textbox', { name: 'Currency line 3' });
      const box = (await cell.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
      expect(await shortControls(page)).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);
});
