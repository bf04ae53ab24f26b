/**
 * The import page's reading controls in headless Chromium, by accessible name (README, The
 * import page): `File layout` and `Header row` read the file again and keep the other choices;
 * a workbook's `Sheet` lists its sheets and `All sheets`, and `Hidden rows` appears for a sheet
 * with hidden rows and decides them (`Skip`: listed as ignored, never sent).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium } from './helpers/chromium.ts';
import { writeExcelXlsx, xmlEscape } from './helpers/excel-xml.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';

const ARTIFACTS = resolve(import.meta.dirname, 'artifacts');
const s = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(text)}</t></is></c>`;
const n = (ref: string, v: number) => `<c r="${ref}"><v>${v}</v></c>`;

describe.skipIf(!hasChromium)('the import page reads the file again as its controls say (README, The import page)', () => {
  let rig: ImportPageRig;

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none' });
    mkdirSync(join(ARTIFACTS, 'reading-controls'), { recursive: true });
  }, 60_000);

  afterAll(() => rig?.close());

  it('File layout and Header row read the file again and keep the date format and the column choices', async () => {
    const [p1] = importableProjects(rig.sandbox);
    const csv = [
      'Purchases to enter',
      'Prepared by the office, 03/2026',
      '',
      'bill_ref,project_id,vendor_id,Bill Date,item_name,rate,Internal note',
      `RC-1,${p1},55,03/04/2026,Ready-mix,"1,250.00",call first`,
      `RC-2,${p1},56,05/04/2026,Rebar,480.00,`,
    ].join('\n') + '\n';
    const page = await rig.browser!.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await page.goto(`${rig.dashboard.url}/import`);
      await page.getByRole('radio', { name: 'Bills' }).check();
      await page.getByLabel('Spreadsheet').setInputFiles({ name: 'purchases.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await page.getByRole('button', { name: 'Read file' }).click();
      const note = page.getByRole('combobox', { name: 'Internal note' });
      await note.waitFor({ timeout: 10_000 });
      expect(await page.getByRole('spinbutton', { name: 'Header row' }).inputValue()).toBe('4');
      await page.getByRole('combobox', { name: 'Bill Date' }).selectOption('invoice_date');
      await note.selectOption('ignore');
      await page.getByRole('combobox', { name: 'Date format' }).selectOption('DMY');

      // Another layout: read again, the other choices kept.
      await page.getByRole('combobox', { name: 'File layout' }).selectOption('plain');
      await expect.poll(() => page.locator('#layout-note').innerText()).toBe('');
      expect(await note.inputValue()).toBe('ignore');
      expect(await page.getByRole('combobox', { name: 'Bill Date' }).inputValue()).toBe('invoice_date');
      expect(await page.getByRole('combobox', { name: 'Date format' }).inputValue()).toBe('DMY');

      // Another header row: the title's line has no such columns; back to line 4, the file reads as before.
      const headerRow = page.getByRole('spinbutton', { name: 'Header row' });
      await headerRow.fill('1');
      await headerRow.press('Enter');
      await page.getByRole('combobox', { name: 'Purchases to enter' }).waitFor({ timeout: 10_000 });
      expect(await page.getByRole('combobox', { name: 'Date format' }).inputValue()).toBe('DMY');
      await headerRow.fill('4');
      await headerRow.press('Enter');
      await note.waitFor({ timeout: 10_000 });
      await note.selectOption('ignore');
      await page.getByRole('combobox', { name: 'Bill Date' }).selectOption('invoice_date');
      await page.getByRole('button', { name: 'Check' }).click();
      await page.getByText(/^2 rows: 2 bills to create, 0 invalid rows\.$/).waitFor({ timeout: 15_000 });
      // Day first, as chosen: 05/04/2026 is the 5th of April.
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => page.getByRole('status').innerText(), { timeout: 30_000, interval: 250 }).toMatch(/done · created 2 /);
      const dates = rig.sandbox.bills().slice(-2).map((b) => (b.payload as { INVOICE_DATE: string }).INVOICE_DATE).sort();
      expect(dates).toEqual(['2026-04-03T00:00:00', '2026-04-05T00:00:00']);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('a workbook: Sheet lists its sheets and All sheets; Hidden rows appears for a hidden row, and Skip leaves it out', async () => {
    const [p1, p2] = importableProjects(rig.sandbox);
    const header = (r: number) => `<row r="${r}">${['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate'].map((h, i) => s(`${'ABCDE'[i]}${r}`, h)).join('')}</row>`;
    const line = (r: number, ref: string, project: number, item: string, rate: number, hidden = false) =>
      `<row r="${r}"${hidden ? ' hidden="1"' : ''}>${s(`A${r}`, ref)}${n(`B${r}`, project)}${n(`C${r}`, 55)}${s(`D${r}`, item)}${n(`E${r}`, rate)}</row>`;
    const path = join(ARTIFACTS, 'reading-controls', 'bills-by-month.xlsx');
    writeExcelXlsx(path, {
      sheets: [
        { name: 'March', rows: header(1) + line(2, 'HM-1', p1!, 'Gravel', 320) + line(3, 'HM-2', p1!, 'Sand (entered twice)', 120, true) + line(4, 'HM-3', p1!, 'Sand', 120) },
        { name: 'April', rows: header(1) + line(2, 'HA-1', p2!, 'Cement', 95) },
      ],
    });
    const page = await rig.browser!.newPage({ viewport: { width: 1280, height: 900 } });
    const before = rig.sandbox.bills().length;
    try {
      await page.goto(`${rig.dashboard.url}/import`);
      await page.getByRole('radio', { name: 'Bills' }).check();
      await page.getByLabel('Spreadsheet').setInputFiles({ name: 'bills-by-month.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: readFileSync(path) });
      await page.getByRole('button', { name: 'Read file' }).click();
      const sheet = page.getByRole('combobox', { name: 'Sheet' });
      await page.getByRole('combobox', { name: 'item_name' }).waitFor({ timeout: 10_000 });
      expect(await sheet.locator('option').allInnerTexts()).toEqual(['None chosen ("March" is shown)', 'March', 'April', 'All sheets']);
      await sheet.selectOption('March');
      const hidden = page.getByRole('combobox', { name: 'Hidden rows' });
      await hidden.waitFor({ timeout: 10_000 });
      expect(await hidden.inputValue()).toBe('stop');
      await hidden.selectOption('skip');
      await page.getByRole('combobox', { name: 'item_name' }).waitFor({ timeout: 10_000 });
      await sheet.selectOption('all');
      await page.getByRole('combobox', { name: 'item_name' }).waitFor({ timeout: 10_000 });
      expect(await sheet.inputValue()).toBe('all');
      await page.getByRole('button', { name: 'Check' }).click();
      await page.getByText(/bills to create, 0 invalid rows\.$/).waitFor({ timeout: 15_000 });
      expect(await page.locator('#summary').innerText()).toMatch(/: 3 bills to create, 0 invalid rows\.$/);
      expect((await page.locator('#ignored-list li').allInnerTexts()).join('\n')).toMatch(/March!3/);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => page.getByRole('status').innerText(), { timeout: 30_000, interval: 250 }).toMatch(/done · created 3 /);
      const items = rig.sandbox.bills().slice(before).map((b) => (b.payload as { ITEMS: Array<{ NAME: string }> }).ITEMS[0]!.NAME).sort();
      expect(items).toEqual(['Cement', 'Gravel', 'Sand']);
    } finally {
      await page.close();
    }
  }, 90_000);
});
