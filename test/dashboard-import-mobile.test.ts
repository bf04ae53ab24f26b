/**
 * The import page on a phone (390×844) and on a desktop (1280×800), README "The import page":
 * no sideways scroll (the wide rows table scrolls inside its own labelled region), the message of
 * a bad cell in view beside the cell, every control at least 44 px tall, focus to the
 * `Check result` region after Check and to the status after Send, a tap on Send that nothing
 * covers, and no two controls with the same accessible name. Screenshots of each step at both
 * widths (test/artifacts/readme-import-page-*.png, copied to docs/ as the README shows them).
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium } from './helpers/chromium.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { focusedLabel, scrollWidth, sharedNames, shortControls } from './helpers/page-checks.ts';

const ARTIFACTS = resolve(import.meta.dirname, 'artifacts');

describe.skipIf(!hasChromium)('the import page at 390 px and 1280 px (README, "The import page")', () => {
  let rig: ImportPageRig;

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none' });
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  afterAll(() => rig?.close());

  for (const [width, height] of [[390, 844], [1280, 800]] as const) {
    it(`${width} px: a wide bills file from upload to done, every control reachable and tall enough`, async () => {
      const [p1, p2] = importableProjects(rig.sandbox);
      // Thirteen columns (the rows table is far wider than a phone) and an `Account` column, the
      // header that once shared its name with the account box.
      const header = 'bill_ref,project_id,vendor_id,title,invoice_date,due_date,notes,item_name,item_description,Account,qty,UOM,Unit Price';
      const ref = `W${width}`;
      const csv = [
        header,
        `${ref}-1,${p1},55,Concrete for the east footing,2026-03-04,2026-04-03,Deliver before noon please,Ready-mix,"4,000 psi ready-mix concrete",Materials,6,cy,1250.00`,
        `${ref}-1,${p1},55,Concrete for the east footing,2026-03-04,2026-04-03,,Pump truck,Boom pump with operator,Equipment,1,day,480`,
        `${ref}-2,${p2},56,Framing lumber,2026-03-05,2026-04-04,,Lumber,2x6 SPF #2 studs,Materials,120,ea,twelve`,
      ].join('\n') + '\n';
      const page = await rig.browser!.newPage({ viewport: { width, height } });
      const suffix = width === 1280 ? '' : `-${width}`;
      const shot = (step: string) => page.screenshot({ path: resolve(ARTIFACTS, `readme-import-page-${step}${suffix}.png`) });
      try {
        await page.goto(`${rig.dashboard.url}/import`);
        expect(await shortControls(page)).toEqual([]);
        await page.getByRole('radio', { name: 'Bills' }).check();
        await page.getByRole('combobox', { name: 'Service account' }).selectOption('default');
        await page.getByLabel('Spreadsheet').setInputFiles({ name: 'wide-bills.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
        await page.getByRole('button', { name: 'Read file' }).click();
        await page.getByRole('combobox', { name: 'Unit Price' }).waitFor({ timeout: 10_000 });
        await page.getByRole('combobox', { name: 'Account', exact: true }).selectOption('ignore');
        expect(await page.getByRole('combobox', { name: 'Unit Price' }).inputValue()).toBe('rate');
        expect(await sharedNames(page)).toEqual([]);
        await page.locator('#match legend').evaluate((el) => el.scrollIntoView({ block: 'start' }));
        await shot('match');

        await page.getByRole('button', { name: 'Check' }).click();
        const result = page.getByRole('region', { name: 'Check result' });
        await page.getByText(/^3 rows: 1 bill to create, 1 invalid row\.$/).waitFor({ timeout: 15_000 });
        // Focus moved to the result.
        await expect.poll(() => focusedLabel(page), { timeout: 15_000 }).toBe('region:Check result');
        expect(await result.getAttribute('tabindex')).toBe('-1');

        // No sideways scroll; the rows table scrolls inside its own focusable, labelled region.
        expect(await scrollWidth(page)).toBeLessThanOrEqual(width);
        const rows = page.getByRole('region', { name: 'Rows of the file' });
        expect(await rows.getAttribute('tabindex')).toBe('0');
        const table = (await page.evaluate(`(() => {
          const el = document.querySelector('[role=region][aria-label="Rows of the file"]');
          return { client: el.clientWidth, scroll: el.scrollWidth, overflow: getComputedStyle(el).overflowX };
        })()`)) as { client: number; scroll: number; overflow: string };
        expect(table.overflow).toBe('auto');
        if (width === 390) expect(table.scroll).toBeGreaterThan(table.client);

        // The bad cell's message is beside the cell and in view, inside the screen's width.
        const cell = page.getByRole('textbox', { name: 'Unit Price line 4' });
        expect(await cell.inputValue()).toBe('twelve');
        const message = page.locator('td[aria-invalid="true"] .msg').first();
        expect(await message.innerText()).toMatch(/^wide-bills\.csv:4 column Unit Price/);
        const box = (await message.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + Math.min(box.width, 100)).toBeLessThanOrEqual(width);
        expect(await cell.getAttribute('aria-describedby')).toBe(await message.getAttribute('id'));

        expect(await shortControls(page)).toEqual([]);
        expect(await sharedNames(page)).toEqual([]);
        await page.getByRole('checkbox', { name: 'Skip invalid rows' }).check();
        await page.locator('#checked h2').evaluate((el) => el.scrollIntoView({ block: 'start' }));
        await shot('check');

        // A plain click: Playwright refuses it if anything (a <summary>) would take the tap.
        await page.getByRole('button', { name: 'Send' }).click({ timeout: 5_000 });
        const status = page.getByRole('status');
        await expect.poll(() => focusedLabel(page), { timeout: 15_000 }).toBe('status:status');
        await expect.poll(() => status.innerText(), { timeout: 30_000, interval: 250 }).toMatch(/done · created 1 · exists 0 · skipped 0 · failed 0 · unknown 0 of 1/);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(width);
        expect(await shortControls(page)).toEqual([]);
        expect(await sharedNames(page)).toEqual([]);
        await page.locator('#follow').evaluate((el) => el.scrollIntoView({ block: 'end' }));
        await shot('done');
      } finally {
        await page.close();
      }
    }, 90_000);
  }
});
