/**
 * The estimator's .xlsx on the import page, in headless Chromium by accessible name against the
 * sandbox (README, The import page): an estimate in sections under a title, with SUM subtotals
 * and a grand total, shows in the check the total the sheet shows; a bad cell of an .xlsx upload
 * is fixed in place on the page and the fixed value is what the service receives. Screenshots
 * at 1280 and 390 px (test/artifacts/import-page-xlsx-*.png, copied to docs/).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium } from './helpers/chromium.ts';
import { writeExcelXlsx, xmlEscape, STYLE } from './helpers/excel-xml.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { scrollWidth, shortControls } from './helpers/page-checks.ts';

const ARTIFACTS = resolve(import.meta.dirname, 'artifacts');

const s = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(text)}</t></is></c>`;
const n = (ref: string, v: number, style: number = STYLE.general) => `<c r="${ref}"${style ? ` s="${style}"` : ''}><v>${v}</v></c>`;
const f = (ref: string, formula: string, v: number) => `<c r="${ref}" s="${STYLE.decimal}"><f>${formula}</f><v>${v}</v></c>`;

/** Items of the estimate: [row, name, unit, qty, unit cost]; the sections are the heading rows between them. */
const SECTIONS: Array<{ heading: string; items: Array<[string, string, number, number]> }> = [
  { heading: '02 - Demolition', items: [['Remove cabinets and counters', 'ls', 1, 48250], ['Haul debris', 'load', 6, 125]] },
  { heading: '06 - Carpentry', items: [['2x4 studs', 'ea', 1200, 6.85], ['Base cabinets', 'ea', 24, 1450]] },
  { heading: '09 - Finishes', items: [['Oak flooring', 'sf', 3200, 162.5], ['Paint walls', 'sf', 2400, 7.85]] },
];

/**
 * The workbook as an estimator's Excel writes it: a title and a blank row above the header, a
 * heading row per section, an Amount column of `qty*unit_cost` formulas, a SUM subtotal under
 * each section and a grand total of the subtotals. Returns the grand total the sheet shows.
 */
function estimateWorkbook(path: string, project: number, estimate: string): number {
  let r = 1;
  let xml = `<row r="${r}">${s('A1', 'Elm Street Lofts - Kitchen remodel estimate')}</row>`;
  r = 3;
  xml += `<row r="${r}">${['project_id', 'estimate_name', 'item', 'unit', 'qty', 'unit_cost', 'Amount'].map((h, i) => s(`${'ABCDEFG'[i]}${r}`, h)).join('')}</row>`;
  const subtotals: string[] = [];
  let grand = 0;
  for (const section of SECTIONS) {
    r++;
    xml += `<row r="${r}">${s(`C${r}`, section.heading)}</row>`;
    const first = r + 1;
    let sum = 0;
    for (const [name, unit, qty, cost] of section.items) {
      r++;
      const amount = Math.round(qty * cost * 100) / 100;
      sum += amount;
      xml += `<row r="${r}">${n(`A${r}`, project)}${s(`B${r}`, estimate)}${s(`C${r}`, name)}${s(`D${r}`, unit)}${n(`E${r}`, qty)}${n(`F${r}`, cost, STYLE.decimal)}${f(`G${r}`, `E${r}*F${r}`, amount)}</row>`;
    }
    r++;
    sum = Math.round(sum * 100) / 100;
    grand += sum;
    subtotals.push(`G${r}`);
    xml += `<row r="${r}">${s(`C${r}`, `Subtotal ${section.heading.slice(5)}`)}${f(`G${r}`, `SUM(G${first}:G${r - 1})`, sum)}</row>`;
  }
  r++;
  grand = Math.round(grand * 100) / 100;
  xml += `<row r="${r}">${s(`C${r}`, 'GRAND TOTAL')}${f(`G${r}`, `SUM(${subtotals.join(',')})`, grand)}</row>`;
  writeExcelXlsx(path, { sheets: [{ name: 'Estimate', rows: xml }] });
  return grand;
}

/** A plain estimate sheet of two estimates, a qty cell of the first (row 3) typed with a letter O for a zero. */
function typoWorkbook(path: string, project: number, other: number): void {
  const header = `<row r="1">${['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'unit', 'qty', 'unit_cost'].map((h, i) => s(`${'ABCDEFGH'[i]}1`, h)).join('')}</row>`;
  const row = (r: number, item: string, qty: string, cost: number, estimate = 'Deck rebuild', at = project) =>
    `<row r="${r}">${n(`A${r}`, at)}${s(`B${r}`, estimate)}${s(`C${r}`, 'Carpentry')}${s(`D${r}`, 'Decking')}${s(`E${r}`, item)}${s(`F${r}`, 'ea')}` +
    `${/^\d+$/.test(qty) ? n(`G${r}`, Number(qty)) : s(`G${r}`, qty)}${n(`H${r}`, cost, STYLE.decimal)}</row>`;
  writeExcelXlsx(path, { sheets: [{ name: 'Deck', rows: header + row(2, 'Joist hangers', '40', 3.25) + row(3, 'Deck boards', '1O0', 18.5) + row(4, 'Fence pickets', '60', 2.75, 'Fence repair', other) }] });
}

describe.skipIf(!hasChromium)('an .xlsx estimate on the import page (README, The import page)', () => {
  let rig: ImportPageRig;
  let dir: string;
  /** The service holds one estimate per project: each test its own projects. */
  let projects: number[];

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none' });
    mkdirSync(ARTIFACTS, { recursive: true });
    dir = join(ARTIFACTS, 'xlsx-estimate');
    mkdirSync(dir, { recursive: true });
    projects = importableProjects(rig.sandbox);
  }, 60_000);

  afterAll(() => rig?.close());

  for (const [width, height] of [[1280, 900], [390, 844]] as const) {
    it(`${width} px: an estimate in sections shows the sheet's own grand total, and is created with every item`, async () => {
      const path = join(dir, `kitchen-${width}.xlsx`);
      const project = projects[width === 1280 ? 0 : 1]!;
      const estimate = `Kitchen remodel (${width} px)`;
      const grand = estimateWorkbook(path, project, estimate);
      const shown = grand.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
      const page = await rig.browser!.newPage({ viewport: { width, height } });
      const suffix = width === 1280 ? '' : `-${width}`;
      const shot = async (step: string, at: string) => {
        await page.locator(at).evaluate((el) => el.scrollIntoView({ block: 'start' }));
        await page.screenshot({ path: resolve(ARTIFACTS, `import-page-xlsx-${step}${suffix}.png`) });
      };
      const before = rig.sandbox.estimates().length;
      try {
        await page.goto(`${rig.dashboard.url}/import`);
        await page.getByRole('radio', { name: 'Estimates' }).check();
        await page.getByRole('combobox', { name: 'File layout' }).selectOption('sections');
        await page.getByLabel('Spreadsheet').setInputFiles({ name: 'kitchen.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: readFileSync(path) });
        await page.getByRole('button', { name: 'Read file' }).click();
        await page.getByRole('combobox', { name: 'unit_cost' }).waitFor({ timeout: 10_000 });
        expect(await page.getByRole('spinbutton', { name: 'Header row' }).inputValue()).toBe('3');
        // Its one sheet needs no choice (as the CLI without --sheet): Sheet's empty entry names it.
        expect(await page.getByRole('combobox', { name: 'Sheet' }).inputValue()).toBe('');
        expect(await page.getByRole('combobox', { name: 'Sheet' }).locator('option:checked').innerText()).toMatch(/^"Estimate" \(the only sheet/);
        await page.getByRole('combobox', { name: 'Amount' }).selectOption('ignore');
        await shot('1-read', '#match');

        await page.getByRole('button', { name: 'Check' }).click();
        await page.getByText(/^\d+ rows: 1 estimate to create, 0 invalid rows\.$/).waitFor({ timeout: 15_000 });
        const cells = (await page.getByRole('region', { name: 'Records' }).locator('tr').nth(1).locator('th, td').allInnerTexts()).map((t) => t.trim());
        // Project, estimate, categories, items, total, status: the total the sheet's GRAND TOTAL shows.
        expect(cells.slice(1)).toEqual([estimate, '3', '6', shown, 'to create']);
        expect(cells[0]).toContain(String(rig.sandbox.project(project)!.NAME));
        const ignored = (await page.locator('#ignored-list li').allInnerTexts()).join('\n');
        expect(ignored).toMatch(/GRAND TOTAL/);
        expect(ignored).toMatch(/Subtotal Carpentry/);
        expect(await page.locator('body').innerText()).not.toContain('--');
        expect(await scrollWidth(page)).toBeLessThanOrEqual(width);
        expect(await shortControls(page)).toEqual([]);
        await shot('2-check', '#checked');

        await page.getByRole('button', { name: 'Send' }).click();
        await expect.poll(() => page.getByRole('status').innerText(), { timeout: 30_000, interval: 250 }).toMatch(/done · created 1 · exists 0 · skipped 0 · failed 0 · unknown 0 of 1/);
        const sent = rig.sandbox.estimates().slice(before).map((e) => e.payload as { CATS: Array<{ SUBCATS: Array<{ ITEMS: Array<{ QTY: number; UNIT_COST: number }> }> }> });
        expect(sent).toHaveLength(1);
        const items = sent[0]!.CATS.flatMap((c) => c.SUBCATS.flatMap((sc) => sc.ITEMS));
        const total = items.reduce((sum, i) => sum + Math.round(i.QTY * i.UNIT_COST * 100), 0) / 100;
        expect(total).toBe(grand);
      } finally {
          await page.close();
      }
    }, 90_000);
  }

  it('a bad cell of an .xlsx upload is fixed in place on the page, and the fixed value is what the service receives', async () => {
    const path = join(dir, 'deck.xlsx');
    typoWorkbook(path, projects[2]!, projects[3]!);
    const page = await rig.browser!.newPage({ viewport: { width: 1280, height: 900 } });
    const before = rig.sandbox.estimates().length;
    try {
      await page.goto(`${rig.dashboard.url}/import`);
      await page.getByRole('radio', { name: 'Estimates' }).check();
      await page.getByLabel('Spreadsheet').setInputFiles({ name: 'deck.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: readFileSync(path) });
      await page.getByRole('button', { name: 'Read file' }).click();
      await page.getByRole('combobox', { name: 'unit_cost' }).waitFor({ timeout: 10_000 });
      await page.getByRole('button', { name: 'Check' }).click();
      await page.getByText(/^3 rows: 1 estimate to create, 2 invalid rows\.$/).waitFor({ timeout: 15_000 });
      const cell = page.getByRole('textbox', { name: 'qty line 3' });
      expect(await cell.inputValue()).toBe('1O0');
      expect(await cell.getAttribute('aria-invalid')).toBe('true');
      await page.getByRole('checkbox', { name: 'Only rows with problems' }).check();
      expect(await page.getByRole('region', { name: 'Rows of the file' }).locator('tr:not([hidden]) td').count()).toBeGreaterThan(0);
      expect(await page.getByRole('region', { name: 'Rows of the file' }).getByText('Joist hangers').isVisible()).toBe(true);
      expect(await page.getByRole('region', { name: 'Rows of the file' }).getByText('Fence pickets').isVisible()).toBe(false);
      await page.locator('#rows').evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await page.screenshot({ path: resolve(ARTIFACTS, 'import-page-xlsx-3-fix.png') });

      await cell.fill('100');
      await page.getByRole('button', { name: 'Check' }).click();
      await page.getByText(/^3 rows: 2 estimates to create, 0 invalid rows\.$/).waitFor({ timeout: 15_000 });
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => page.getByRole('status').innerText(), { timeout: 30_000, interval: 250 }).toMatch(/done · created 2 /);
      const sent = rig.sandbox.estimates().slice(before).map((e) => e.payload as { NAME: string; CATS: Array<{ SUBCATS: Array<{ ITEMS: Array<{ NAME: string; QTY: number; UNIT_COST: number }> }> }> });
      expect(sent.find((e) => e.NAME === 'Deck rebuild')!.CATS[0]!.SUBCATS[0]!.ITEMS).toEqual([
        expect.objectContaining({ NAME: 'Joist hangers', QTY: 40, UNIT_COST: 3.25 }),
        expect.objectContaining({ NAME: 'Deck boards', QTY: 100, UNIT_COST: 18.5 }),
      ]);
    } finally {
      await page.close();
    }
  }, 90_000);
});
