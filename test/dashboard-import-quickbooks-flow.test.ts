/**
 * The accountant's month of QuickBooks bills on the import page, in headless Chromium by
 * accessible name against the sandbox (README, The import page): a bill report as QuickBooks
 * writes it (title block, vendor names, split lines, a Vendor Credit, a payment, a total row, a
 * footer) goes from upload to `done` without leaving the page, the vendor IDs typed once are
 * remembered, and the same file again shows every bill `already created` before Send. Then the
 * same with the keyboard alone at 390 px. Screenshots of each step at both widths
 * (test/artifacts/import-page-qb-*.png, copied to docs/ as the README shows them).
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium } from './helpers/chromium.ts';
import { startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { focusedLabel, openChooserWithSpace, scrollWidth, sharedNames, shortControls, tabTo } from './helpers/page-checks.ts';

const ARTIFACTS = resolve(import.meta.dirname, 'artifacts');
const KITCHEN = 'Elm Street Lofts Kitchen Remodel';
const ROOF = 'Riverside Warehouse Roof Replacement';
const SUMMIT = 'Summit Lumber & Millwork';
const KEYSTONE = 'Keystone Electric';
const GLASS = 'Northgate Glass';
const PLUMBING = 'Blue River Plumbing';

/** A QuickBooks "Bill Details" report: CRLF, title block, split lines, a credit, a payment, totals, a footer. */
function billReport(prefix: string, vendors: readonly [string, string] = [SUMMIT, KEYSTONE]): Buffer {
  const [first, second] = vendors;
  const lines = [
    'Bill Details',
    'ACME BUILDERS LLC',
    '"March 1 - March 31, 2026"',
    '',
    'Type,Bill No.,Vendor,Bill Date,Due Date,Memo,Account,Line Description,Line Amount,Customer',
    `Bill,${prefix}-3004,${first},03/02/2026,04/01/2026,Framing package,Job Materials,"2x6 studs, 16ft","1,250.00",${KITCHEN}`,
    ',,,,,,Job Materials,Delivery,85.00,',
    ',,,,,,Job Materials,Hangers and fasteners,112.40,',
    `Total for ${prefix}-3004,,,,,,,,"1,447.40",`,
    `Vendor Credit,VC-${prefix},${first},03/05/2026,,Returned studs,Job Materials,Returned studs,-150.00,${KITCHEN}`,
    `Bill Payment (Check),44${prefix.length},${second},03/20/2026,,,Checking,,"-3,480.00",`,
    `Bill,${prefix}-3005,${second},03/09/2026,04/08/2026,Panel upgrade,Subcontractors,200A panel and breakers,"3,480.00",${ROOF}`,
    'TOTAL,,,,,,,,"1,297.40",',
    '',
    '"Cash Basis Tuesday, March 31, 2026 10:15 AM"',
  ];
  return Buffer.from(`${lines.join('\r\n')}\r\n`);
}

/** A screenshot of the viewport with the section `at` at its top (test/artifacts, copied to docs/ for the README). */
async function showAndShoot(page: Page, at: string, name: string): Promise<void> {
  await page.locator(at).evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: resolve(ARTIFACTS, name) });
}

/** Every text the page shows, and every message in an alert, status or cell note. */
const pageText = (page: Page) => page.locator('body').innerText();

/** The rows of the `Records` table as their cells' texts. */
async function recordRows(page: Page): Promise<string[][]> {
  const rows = page.getByRole('region', { name: 'Records' }).locator('tr');
  const out: string[][] = [];
  for (let i = 1; i < (await rows.count()); i++) out.push((await rows.nth(i).locator('th, td').allInnerTexts()).map((t) => t.trim()));
  return out;
}

describe.skipIf(!hasChromium)('a QuickBooks bill report on the import page (README, The import page)', () => {
  let rig: ImportPageRig;

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'hour=500,day=10000' });
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  afterAll(() => rig?.close());

  it('goes from upload to done on the page, the vendor IDs typed once are remembered, and the same file again is all already created', async () => {
    const page = await rig.browser!.newPage({ viewport: { width: 1280, height: 900 } });
    const shot = (step: string, at: string) => showAndShoot(page, at, `import-page-qb-${step}.png`);
    const file = { name: 'bill-details-march.csv', mimeType: 'text/csv', buffer: billReport('QB') };
    const before = rig.sandbox.bills().length;
    try {
      await page.goto(`${rig.dashboard.url}/import`);
      await page.getByRole('radio', { name: 'Bills' }).check();
      await page.getByRole('combobox', { name: 'Service account' }).selectOption('default');
      expect(await page.getByRole('combobox', { name: 'File layout' }).inputValue()).toBe('detect');
      await page.getByLabel('Spreadsheet').setInputFiles(file);
      await page.getByRole('button', { name: 'Read file' }).click();

      // The header below the title block, QuickBooks detected from it, the columns as the preset reads them.
      await page.getByRole('combobox', { name: 'Line Amount' }).waitFor({ timeout: 10_000 });
      expect(await page.getByRole('spinbutton', { name: 'Header row' }).inputValue()).toBe('5');
      expect(await page.locator('#layout-note').innerText()).toMatch(/QuickBooks/);
      expect(await page.getByRole('combobox', { name: 'Line Amount' }).inputValue()).toBe('rate');
      expect(await page.getByRole('combobox', { name: 'Vendor', exact: true }).inputValue()).toBe('vendor');
      expect(await page.getByRole('combobox', { name: 'Account', exact: true }).inputValue()).toBe('ignore');
      expect(await page.getByRole('combobox', { name: 'Type', exact: true }).inputValue()).toBe('ignore');
      expect(await page.getByRole('checkbox', { name: 'Fill down bill_ref' }).isChecked()).toBe(true);
      expect(await page.getByRole('combobox', { name: 'Credits' }).inputValue()).toBe('ignore');
      await shot('1-read', '#match');

      // The first check: the vendor names have no IDs yet; the vendor table asks for them.
      await page.getByRole('button', { name: 'Check' }).click();
      const summit = page.getByRole('textbox', { name: `Vendor ID for ${SUMMIT}` });
      // The reading already shows the vendor table: the check's result is what is waited for.
      await page.getByRole('region', { name: 'Check result' }).waitFor({ timeout: 15_000 });
      await expect.poll(() => focusedLabel(page), { timeout: 15_000 }).toBe('region:Check result');
      expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
      await shot('2-vendors', '#vendors');

      await summit.fill('56');
      await page.getByRole('textbox', { name: `Vendor ID for ${KEYSTONE}` }).fill('57');
      await page.getByRole('button', { name: 'Check' }).click();
      await page.getByText(/^\d+ rows: 2 bills to create, 0 invalid rows\.$/).waitFor({ timeout: 15_000 });

      // What it will create, as a person reads it; what is not a bill, ignored with its reason.
      const records = await recordRows(page);
      expect(records).toEqual([
        ['QB-3004', expect.stringContaining(KITCHEN), expect.stringContaining(SUMMIT), '3', '1,447.40', 'to create'],
        ['QB-3005', expect.stringContaining(ROOF), expect.stringContaining(KEYSTONE), '1', '3,480.00', 'to create'],
      ]);
      const ignored = await page.getByRole('region', { name: 'Check result' }).locator('#ignored-list li').allInnerTexts();
      expect(ignored.join('\n')).toMatch(/title/);
      expect(ignored.join('\n')).toMatch(/footer/);
      expect(ignored.join('\n')).toMatch(/total row/);
      expect(ignored.join('\n')).toMatch(/Vendor Credit/);
      expect(await pageText(page)).not.toContain('--');
      await shot('3-check', '#checked');

      const named = (await recordRows(page)).map((r) => r[0]);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => focusedLabel(page), { timeout: 15_000 }).toBe('status:status');
      await expect.poll(() => page.getByRole('status').innerText(), { timeout: 30_000, interval: 250 }).toMatch(/done · created 2 · exists 0 · skipped 0 · failed 0 · unknown 0 of 2/);
      const created = rig.sandbox.bills().slice(before).map((b) => b.payload as { VENDOR_ID: string; ITEMS: Array<{ RATE: string }> });
      expect(created.map((b) => [b.VENDOR_ID, b.ITEMS.map((i) => i.RATE)]).sort()).toEqual([['56', ['1250.00', '85.00', '112.40']], ['57', ['3480.00']]]);
      // Results: the table Created, each bill as the check named it, with the ID the sandbox gave it.
      const createdTable = page.getByRole('table', { name: 'Created' });
      await createdTable.waitFor({ timeout: 10_000 });
      const trs = createdTable.locator('tr');
      const createdRows: string[][] = [];
      for (let i = 1; i < (await trs.count()); i++) createdRows.push((await trs.nth(i).locator('th, td').allInnerTexts()).map((t) => t.trim()));
      const sandboxBills = rig.sandbox.bills().slice(before);
      // Named as the check and the report name each record (its bill number first, then its project and vendor).
      expect(createdRows.map((r) => r[0]!.match(/^bill (\S+) \//)?.[1]).sort()).toEqual([...named].sort());
      expect(createdRows.map((r) => Number(r[1])).sort()).toEqual(sandboxBills.map((b) => b.id).sort());
      for (const [name, id] of createdRows) {
        const bill = sandboxBills.find((b) => b.id === Number(id))!;
        const payload = bill.payload as { VENDOR_ID: string };
        expect(name).toBe(`${name!.split(' / ')[0]} / project ${bill.projectId} / vendor ${payload.VENDOR_ID}`);
      }
      await shot('4-done', '#follow');

      // The same file again: the vendor IDs come from the account's list, every bill is already created.
      await page.goto(`${rig.dashboard.url}/import`);
      await page.getByRole('radio', { name: 'Bills' }).check();
      await page.getByLabel('Spreadsheet').setInputFiles(file);
      await page.getByRole('button', { name: 'Read file' }).click();
      await page.getByRole('combobox', { name: 'Line Amount' }).waitFor({ timeout: 10_000 });
      await page.getByRole('button', { name: 'Check' }).click();
      await page.getByText(/^\d+ rows: 0 bills to create, 0 invalid rows\.$/).waitFor({ timeout: 15_000 });
      expect(await page.getByRole('textbox', { name: `Vendor ID for ${SUMMIT}` }).inputValue()).toBe('56');
      expect(await page.getByRole('textbox', { name: `Vendor ID for ${KEYSTONE}` }).inputValue()).toBe('57');
      expect(await page.locator('#already').innerText()).toMatch(/^2 bills already created/);
      expect((await recordRows(page)).map((r) => r.at(-1))).toEqual(['already created', 'already created']);
      // Nothing is left to create: Send is disabled, and its description says why.
      const send = page.getByRole('button', { name: 'Send' });
      expect(await send.isDisabled()).toBe(true);
      const why = await page.locator(`#${(await send.getAttribute('aria-describedby'))!}`).innerText();
      expect(why).toBe('2 bills of this file are already created: nothing is left to send.');
      expect(await pageText(page)).not.toContain('--');
      await shot('5-again', '#checked');
      expect(rig.sandbox.bills().length).toBe(before + 2);
    } finally {
      await page.close();
    }
  }, 120_000);

  it('at 390 px the keyboard alone (Tab, Space, Enter and typing) completes a bills import, with no sideways scroll and no control under 44 px', async () => {
    const page = await rig.browser!.newPage({ viewport: { width: 390, height: 844 } });
    const shot = (step: string, at: string) => showAndShoot(page, at, `import-page-qb-${step}-390.png`);
    const before = rig.sandbox.bills().length;
    const fits = async () => {
      expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
      expect(await shortControls(page)).toEqual([]);
      expect(await sharedNames(page)).toEqual([]);
    };
    try {
      await page.goto(`${rig.dashboard.url}/import`);
      await fits();
      await tabTo(page, 'input[type=radio][value=estimates]');
      // Arrow keys move within a radio group; Space checks.
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('Space');
      expect(await page.getByRole('radio', { name: 'Bills' }).isChecked()).toBe(true);
      await tabTo(page, '#file');
      await (await openChooserWithSpace(page)).setFiles({ name: 'bills-390.csv', mimeType: 'text/csv', buffer: billReport('KB', [GLASS, PLUMBING]) });
      await tabTo(page, '#read');
      await page.keyboard.press('Enter');
      await page.getByRole('combobox', { name: 'Line Amount' }).waitFor({ timeout: 10_000 });
      await fits();
      await shot('1-read', '#match');

      await tabTo(page, '#check');
      await page.keyboard.press('Enter');
      await page.getByRole('region', { name: 'Check result' }).waitFor({ timeout: 15_000 });
      await expect.poll(() => focusedLabel(page), { timeout: 15_000 }).toBe('region:Check result');
      await fits();
      await shot('2-first-check', '#checked');

      // Vendor names this account has no ID for: typed into the vendor table, then checked again.
      await tabTo(page, `input[aria-label="Vendor ID for ${GLASS}"]`);
      await page.keyboard.type('59');
      await tabTo(page, `input[aria-label="Vendor ID for ${PLUMBING}"]`);
      await page.keyboard.type('58');
      await shot('2-vendors', '#vendors');
      await tabTo(page, '#check');
      await page.keyboard.press('Enter');
      await page.getByText(/^\d+ rows: 2 bills to create, 0 invalid rows\.$/).waitFor({ timeout: 15_000 });
      await shot('3-check', '#checked');
      await tabTo(page, '#send');
      await page.keyboard.press('Enter');
      await expect.poll(() => focusedLabel(page), { timeout: 15_000 }).toBe('status:status');
      await expect.poll(() => page.getByRole('status').innerText(), { timeout: 30_000, interval: 250 }).toMatch(/done · created 2 · exists 0/);
      await fits();
      await shot('4-done', '#follow');
      const created = rig.sandbox.bills().slice(before).map((b) => (b.payload as { VENDOR_ID: string }).VENDOR_ID);
      expect(created.sort()).toEqual(['58', '59']);
      expect(await pageText(page)).not.toContain('--');
    } finally {
      await page.close();
    }
  }, 120_000);
});
