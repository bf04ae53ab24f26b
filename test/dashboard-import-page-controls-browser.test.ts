/**
 * The import page's match-column controls in headless Chromium, by accessible name (README, The
 * import page): an estimate sheet whose project is only in its title block is sent with `Same for
 * every row: project`; an estimator's sheet with `Amount`, `Unit Cost` and `Description` columns is
 * preselected so that its unit costs are sent as unit costs (the sandbox's estimate holds them), each
 * field offered by its words with the mapping's name; a Xero UK export's date-order stop is tied to
 * `Date format` (its accessible description, and a link that moves focus to it).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium } from './helpers/chromium.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';

const XERO_UK = resolve(import.meta.dirname, 'fixtures', 'reading', 'xero-uk-bills.csv');

/** A CSV cell. */
const quoted = (v: string) => `"${v.replaceAll('"', '""')}"`;

interface EstimateLine {
  NAME: string;
  UNIT_COST?: number;
  RATE?: number;
  QTY?: number;
  DESCRIPTION?: string;
  SUBCATS?: EstimateLine[];
  ITEMS?: EstimateLine[];
}

describe.skipIf(!hasChromium)('the import page\'s match-column controls, by accessible name', () => {
  let rig: ImportPageRig;
  let page: Page;
  let projects: number[];

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none' });
    projects = importableProjects(rig.sandbox);
    page = await rig.browser!.newPage({ viewport: { width: 1280, height: 900 } });
  }, 60_000);

  afterAll(async () => {
    await page?.close();
    await rig?.close();
  });

  async function read(kind: 'Estimates' | 'Bills', name: string, csv: string): Promise<void> {
    await page.goto(`${rig.dashboard.url}/import`);
    await page.getByRole('radio', { name: kind }).check();
    await page.getByLabel('Spreadsheet').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Read file' }).click();
    await page.getByRole('button', { name: 'Check' }).waitFor({ timeout: 15_000 }).catch(async (e: unknown) => {
      throw new Error(`${String(e)}; the page said: ${await page.locator('#read-msg').innerText()}`);
    });
  }

  async function checkAndSend(summary: RegExp): Promise<void> {
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText(summary).waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.getByRole('status').innerText(), { timeout: 30_000, interval: 250 }).toMatch(/done · created 1 /);
  }

  it('an estimate sheet whose project is only in its title block is sent with "Same for every row: project"', async () => {
    const project = projects[0]!;
    const own = rig.sandbox.project(project) as { NAME: string };
    const csv = [quoted(`Project: ${own.NAME}`), 'Prepared by the estimator, March 2026', '', 'Estimate,Category,Subcategory,Item,Qty,Unit,Unit Cost', 'Base bid,Concrete,Footings,Ready-mix,10,cy,150.00', 'Base bid,Concrete,Footings,Rebar,200,lb,1.25'].join('\n') + '\n';
    await read('Estimates', 'title-block.csv', csv);
    const same = page.getByRole('combobox', { name: 'Same for every row: project' });
    await same.waitFor({ timeout: 10_000 });
    // The account's projects by number and name.
    await expect.poll(() => same.locator('option').count(), { timeout: 10_000 }).toBeGreaterThan(1);
    await same.selectOption(String(project));
    const before = rig.sandbox.estimates().length;
    await checkAndSend(/^2 rows: 1 estimate to create, 0 invalid rows\.$/);
    const created = rig.sandbox.estimates().slice(before);
    expect(created.map((e) => e.projectId)).toEqual([project]);
    // Download mapping writes it as the mapping's constant.
    const mapping = (await page.evaluate('fetch(document.getElementById("dlmap").href).then((r) => r.json())')) as { constants: Record<string, unknown> };
    expect(mapping.constants).toEqual({ project_id: project });
  }, 120_000);

  it("an estimator's sheet with Amount, Unit Cost and Description: preselected so that the unit costs are sent as unit costs, each field offered in words", async () => {
    const project = projects[1]!;
    const own = rig.sandbox.project(project) as { NAME: string };
    const csv = ['Project,Estimate,Category,Subcategory,Item,Description,Qty,Unit,Amount,Unit Cost', `${quoted(own.NAME)},Base bid,Concrete,Footings,Ready-mix,4000 psi delivered,10,cy,1500.00,150.00`].join('\n') + '\n';
    await read('Estimates', 'estimator.csv', csv);
    const unitCost = page.getByRole('combobox', { name: 'Unit Cost' });
    expect(await unitCost.inputValue()).toBe('unit_cost');
    expect(await page.getByRole('combobox', { name: 'Amount' }).inputValue()).toBe('ignore');
    expect(await page.getByRole('combobox', { name: 'Description' }).inputValue()).toBe('description');
    expect(await unitCost.locator('option:checked').innerText()).toBe('Unit cost (unit_cost)');
    const before = rig.sandbox.estimates().length;
    await checkAndSend(/^1 row: 1 estimate to create, 0 invalid rows\.$/);
    const [created] = rig.sandbox.estimates().slice(before);
    const payload = created!.payload as { CATS: EstimateLine[] };
    const item = payload.CATS[0]!.SUBCATS![0]!.ITEMS![0]!;
    expect(item).toMatchObject({ NAME: 'Ready-mix', UNIT_COST: 150, QTY: 10, DESCRIPTION: '4000 psi delivered' });
    // The line total is never sent as the rate.
    expect(item.RATE).toBeUndefined();
  }, 120_000);

  it('a Xero UK export\'s date-order stop is described on "Date format", and its link moves focus there', async () => {
    const csv = readFileSync(XERO_UK, 'utf8').replaceAll(',1042\n', `,${projects[2]}\n`);
    await read('Bills', 'xero-uk-bills.csv', csv);
    await page.getByRole('button', { name: 'Check' }).click();
    const msg = page.locator('#check-msg');
    await expect.poll(() => msg.innerText(), { timeout: 20_000 }).toMatch(/can be read day first or month first/);
    const dateFormat = page.getByRole('combobox', { name: 'Date format' });
    expect(await dateFormat.getAttribute('aria-describedby')).toContain('check-msg');
    const link = page.getByRole('link', { name: 'Go to "Date format"' });
    await link.click();
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe(await dateFormat.getAttribute('id'));
    // Settled: the message goes, and with it the description.
    await dateFormat.selectOption('DMY');
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByRole('region', { name: 'Check result' }).waitFor({ timeout: 20_000 });
    expect(await msg.innerText()).toBe('');
    expect(await dateFormat.getAttribute('aria-describedby')).toBeNull();
  }, 120_000);
});
