/**
 * The import page in Chromium (README, The import page): a saved mapping downloaded and uploaded back
 * (next month's file read the same way, the CLI reads it too), and the budget before sending
 * with every window counted.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMappingFile } from '../src/mapping/index.ts';
import { formatEta } from '../src/throttle/index.ts';
import { hasChromium } from './helpers/chromium.ts';
import { runCli } from './helpers/cli.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { REDIS_URL } from './helpers/redis.ts';

const ARTIFACTS = resolve(import.meta.dirname, 'artifacts');
const HEADERS = ['Ref', 'Job', 'Vendor #', 'Description', 'Unit Price', 'Qty', 'UOM', 'Invoice Date', 'Internal note'];

/** The page's choice for each column, by the column's header. */
async function selections(page: Page): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const h of HEADERS) out[h] = await page.getByRole('combobox', { name: h, exact: true }).inputValue();
  out['Date format'] = await page.getByRole('combobox', { name: 'Date format' }).inputValue();
  out['Decimal separator'] = await page.getByRole('combobox', { name: 'Decimal separator' }).inputValue();
  return out;
}

async function readFile(page: Page, kind: 'Bills' | 'Estimates', name: string, csv: string, account = 'default'): Promise<void> {
  await page.goto(`${rigUrl}/import`);
  await page.getByRole('radio', { name: kind }).check();
  await page.getByRole('combobox', { name: 'Service account' }).selectOption(account);
  await page.getByLabel('Spreadsheet').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByRole('button', { name: 'Read file' }).click();
  await page.getByRole('button', { name: 'Check' }).waitFor({ timeout: 10_000 });
}

let rigUrl = '';

describe.skipIf(!hasChromium)('the import page: saved mappings and the budget of every window (README, The import page)', () => {
  let rig: ImportPageRig;
  let work: string;

  beforeAll(async () => {
    rig = await startImportPageRig({
      limits: 'none',
      worker: false,
      // A second account with a budget far smaller than the file.
      accounts: { slow: 'hour=3,day=5' },
    });
    rigUrl = rig.dashboard.url;
    work = mkdtempSync(join(tmpdir(), 'bs-mapping-'));
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('downloads the column choices as the CLI\'s mapping, and uploading it to a fresh page makes the same choices', async () => {
    const [p1, p2] = importableProjects(rig.sandbox);
    const csv = [
      HEADERS.join(','),
      `M-1,${p1},55,Ready-mix,1250.00,6,cy,03/04/2026,call first`,
      `M-1,${p1},55,Pump truck,480,1,day,03/04/2026,`,
      `M-2,${p2},56,Lumber,38.60,120,ea,13/04/2026,`,
    ].join('\n') + '\n';
    const chosen: Record<string, string> = {
      Ref: 'bill_ref', Job: 'project_id', 'Vendor #': 'vendor_id', Description: 'item_name', 'Unit Price': 'rate', Qty: 'qty', UOM: 'unit', 'Invoice Date': 'invoice_date', 'Internal note': 'ignore',
    };
    const context = await rig.browser!.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    try {
      const first = await context.newPage();
      await readFile(first, 'Bills', 'march.csv', csv);
      for (const [h, column] of Object.entries(chosen)) await first.getByRole('combobox', { name: h, exact: true }).selectOption(column);
      await first.getByRole('combobox', { name: 'Date format' }).selectOption('DMY');
      await first.getByRole('combobox', { name: 'Decimal separator' }).selectOption('.');
      const wanted = await selections(first);
      const [download] = await Promise.all([first.waitForEvent('download'), first.getByRole('link', { name: 'Download mapping' }).click()]);
      const mapFile = join(work, 'march-mapping.json');
      await download.saveAs(mapFile);
      const saved = parseMappingFile(JSON.parse(readFileSync(mapFile, 'utf8')), mapFile);
      expect(saved.columns).toMatchObject({ Ref: 'bill_ref', Job: 'project_id', 'Vendor #': 'vendor_id', Description: 'item_name', 'Unit Price': 'rate', UOM: 'unit' });
      expect(saved.ignore).toEqual(['Internal note']);
      expect(saved).toMatchObject({ dateFormat: 'DMY', decimalSeparator: '.' });

      // The CLI reads the file with it: the same two bills, nothing invalid.
      const file = join(work, 'march.csv');
      writeFileSync(file, csv);
      const cli = await runCli(['import', 'bills', file, '--mapping', mapFile, '--dry-run', '--json', '--report', join(work, 'march.report.csv')], { ...rig.env, REDIS_URL, BUILDSYNC_PREFIX: rig.t.prefix }, { cwd: work });
      expect(cli.stderr).not.toMatch(/unknown column|does not have/);
      expect(cli.code).toBe(0);

      // Next month's file on a fresh page: the page's own guesses differ; the saved mapping restores every choice.
      const second = await context.newPage();
      await readFile(second, 'Bills', 'april.csv', csv.replaceAll('M-', 'A-'));
      const guessed = await selections(second);
      expect(guessed).not.toEqual(wanted);
      await second.getByLabel('Saved mapping').setInputFiles(mapFile);
      await expect.poll(() => second.locator('#map-note').innerText(), { timeout: 10_000 }).toMatch(/^Applied march-mapping\.json: \d+ columns from the mapping/);
      expect(await selections(second)).toEqual(wanted);
      await second.getByRole('button', { name: 'Check' }).click();
      await second.getByText('3 rows: 2 bills to create, 0 invalid rows.').waitFor({ timeout: 15_000 });
      await second.screenshot({ path: resolve(ARTIFACTS, 'import-page-saved-mapping.png'), fullPage: true });

      // A saved mapping naming a header this file does not have: said plainly, nothing changed.
      writeFileSync(join(work, 'old-mapping.json'), JSON.stringify({ columns: { 'Vendor No': 'vendor_id', Ref: 'bill_ref' } }));
      const before = await selections(second);
      await second.getByLabel('Saved mapping').setInputFiles(join(work, 'old-mapping.json'));
      const alert = second.locator('#map-msg[role="alert"]');
      await expect.poll(() => alert.innerText(), { timeout: 10_000 }).toContain('"Vendor No"');
      const message = await alert.innerText();
      expect(message).toContain('april.csv does not have');
      expect(message).toContain('did you mean "Vendor #"?');
      expect(message).not.toMatch(/buildsync-uploads|\/tmp\//);
      expect(await selections(second)).toEqual(before);

      // Not a mapping at all.
      writeFileSync(join(work, 'notes.json'), 'hello');
      await second.getByLabel('Saved mapping').setInputFiles(join(work, 'notes.json'));
      await expect.poll(() => alert.innerText(), { timeout: 10_000 }).toMatch(/^notes\.json is not valid JSON .*; choose the file "Download mapping" saved$/);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('shows, before sending, every window of the budget: requests needed, left now and the ETA beyond an hour', async () => {
    const [p1] = importableProjects(rig.sandbox);
    const rows = Array.from({ length: 7 }, (_, i) => `B-${i + 1},${p1},55,Item ${i + 1},10.00`);
    const csv = `bill_ref,project_id,vendor_id,item_name,rate\n${rows.join('\n')}\n`;
    const page = await rig.browser!.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await readFile(page, 'Bills', 'seven.csv', csv, 'slow');
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/import/check')),
        page.getByRole('button', { name: 'Check' }).click(),
      ]);
      const body = (await answer.json()) as { budget: { etaMs: number; windows: Array<{ window: string; etaMs: number }> } };
      await page.getByText('7 rows: 7 bills to create, 0 invalid rows.').waitFor({ timeout: 15_000 });
      const table = page.getByRole('table', { name: "Every window of the account's budget" });
      const row = (w: string) => table.getByRole('row', { name: new RegExp(`^${w} `) });
      // window | limit | requests needed | left now | ETA under this window alone. The check's own
      // listing of the account's projects took one request from each window.
      expect((await row('hour').getByRole('cell').allInnerTexts()).slice(0, 3)).toEqual(['3', '7', '2']);
      expect((await row('day').getByRole('cell').allInnerTexts()).slice(0, 3)).toEqual(['5', '7', '4']);
      // 7 requests at 3 an hour take two hours and more; at 5 a day, more than a day; together, more than a day.
      const byWindow = Object.fromEntries(body.budget.windows.map((w) => [w.window, w.etaMs]));
      expect(byWindow.hour).toBeGreaterThan(2 * 3_600_000);
      expect(byWindow.day).toBeGreaterThan(24 * 3_600_000);
      expect(body.budget.etaMs).toBeGreaterThanOrEqual(byWindow.day!);
      expect(await row('hour').getByRole('cell').nth(3).innerText()).toBe(formatEta(byWindow.hour!));
      expect(await page.locator('#budget').innerText()).toBe(`7 requests at the budget hour=3,day=5: ETA ${formatEta(body.budget.etaMs)}, every window counted`);
      await page.screenshot({ path: resolve(ARTIFACTS, 'import-page-budget-windows.png'), fullPage: true });
    } finally {
      await page.close();
    }
  }, 60_000);
});
