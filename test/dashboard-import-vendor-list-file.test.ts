/**
 * The import page's `Vendor list` (README, The import page): a `vendor,vendor_id` CSV chosen in
 * the browser fills the vendor table, its names matched to the file's as record keys are (case
 * and spaces aside); a name the list gives two IDs is said, not guessed; a list that is no vendor
 * list is refused with what it needs. Headless Chromium, by accessible name, against the sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium } from './helpers/chromium.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';

describe.skipIf(!hasChromium)('the vendor table filled from a vendor list file (README, The import page)', () => {
  let rig: ImportPageRig;

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none' });
  }, 60_000);

  afterAll(() => rig?.close());

  it('fills each vendor ID from the list by name, says what it found, and the bills then check clean', async () => {
    const [p1] = importableProjects(rig.sandbox);
    const csv = [
      'bill_ref,project_id,Supplier,item_name,rate',
      `VL-1,${p1},Cascade Drywall,Board,410.00`,
      `VL-2,${p1},Harbor Steel Supply,Beams,"2,300.00"`,
      `VL-3,${p1},Pioneer Rentals,Lift rental,180.00`,
    ].join('\n') + '\n';
    // As an accounting program exports a supplier list: other spellings, a name given twice.
    const list = ['vendor,vendor_id', '"CASCADE  drywall",71', 'Harbor Steel Supply,72', 'Pioneer Rentals,73', 'pioneer rentals ,74', ''].join('\r\n');
    const page = await rig.browser!.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await page.goto(`${rig.dashboard.url}/import`);
      await page.getByRole('radio', { name: 'Bills' }).check();
      await page.getByLabel('Spreadsheet').setInputFiles({ name: 'supplies.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await page.getByRole('button', { name: 'Read file' }).click();
      await page.getByRole('combobox', { name: 'Supplier' }).waitFor({ timeout: 10_000 });
      expect(await page.getByRole('combobox', { name: 'Supplier' }).inputValue()).toBe('vendor');
      await page.getByRole('button', { name: 'Check' }).click();
      const cascade = page.getByRole('textbox', { name: 'Vendor ID for Cascade Drywall' });
      await cascade.waitFor({ timeout: 15_000 });

      await page.getByLabel('Vendor list').setInputFiles({ name: 'suppliers.csv', mimeType: 'text/csv', buffer: Buffer.from(list) });
      await expect.poll(() => cascade.inputValue(), { timeout: 10_000 }).toBe('71');
      expect(await page.getByRole('textbox', { name: 'Vendor ID for Harbor Steel Supply' }).inputValue()).toBe('72');
      expect(await page.getByRole('textbox', { name: 'Vendor ID for Pioneer Rentals' }).inputValue()).toBe('');
      const said = await page.locator('#vendor-msg').innerText();
      expect(said).toMatch(/^suppliers\.csv: 3 vendors read; 2 of the file's 3 names found/);
      expect(said).toContain('"Pioneer Rentals" is ambiguous');
      expect(said).not.toContain('--');

      await page.getByRole('textbox', { name: 'Vendor ID for Pioneer Rentals' }).fill('73');
      await page.getByRole('button', { name: 'Check' }).click();
      await page.getByText(/^3 rows: 3 bills to create, 0 invalid rows\.$/).waitFor({ timeout: 15_000 });

      // Not a vendor list: said, nothing changed.
      await page.getByLabel('Vendor list').setInputFiles({ name: 'notes.csv', mimeType: 'text/csv', buffer: Buffer.from('name,phone\nCascade Drywall,555-0101\n') });
      await expect.poll(() => page.locator('#vendor-msg').innerText(), { timeout: 10_000 }).toContain('needs the columns vendor and vendor_id');
      expect(await page.locator('#vendor-msg').innerText()).not.toContain('Match columns');
      expect(await page.locator('#vendor-msg').innerText()).toMatch(/^notes\.csv:1: unknown columns "name", "phone"\. A vendor list needs the columns vendor and vendor_id/);
      expect(await cascade.inputValue()).toBe('71');
    } finally {
      await page.close();
    }
  }, 90_000);
});
