/**
 * The import page in Chromium with the keyboard alone (Tab, Space, Enter), a reload in the middle
 * of the import (the import id is in the address), a screenshot of each step, and no secret in
 * anything the browser received (README, The import page).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium } from './helpers/chromium.ts';
import { startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { openChooserWithSpace, tabTo } from './helpers/page-checks.ts';

const ARTIFACTS = resolve(import.meta.dirname, 'artifacts');
const SAMPLE = resolve(import.meta.dirname, '..', 'samples', 'estimates.csv');
/** In the accounts' environment, where a careless page could pick it up: it must never reach the browser. */
const REDIS_URL_WITH_PASSWORD = 'redis://buildsync:redis-pw-77ad0@127.0.0.1:6379';

describe.skipIf(!hasChromium)('the import page with the keyboard alone (README, The import page)', () => {
  let rig: ImportPageRig;

  beforeAll(async () => {
    // No worker at first: the import waits, so that a reload lands in the middle of it.
    rig = await startImportPageRig({ limits: 'hour=500,day=10000', worker: false, env: { REDIS_URL: REDIS_URL_WITH_PASSWORD } });
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  afterAll(() => rig?.close());

  it('completes an estimates import with Tab, Space and Enter, keeps following it across a reload, and never shows a secret', async () => {
    const context = await rig.browser!.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    const page = await context.newPage();
    const received: string[] = [];
    page.on('response', (res) => {
      received.push(`${res.url()} ${JSON.stringify(res.headers())}`);
      void res.text().then((t) => received.push(t), () => undefined);
    });
    const shot = (step: string) => page.screenshot({ path: resolve(ARTIFACTS, `import-page-keyboard-${step}.png`), fullPage: true });
    try {
      await page.goto(`${rig.dashboard.url}/import`);
      await tabTo(page, 'input[type=radio][value=estimates]');
      await page.keyboard.press('Space');
      expect(await page.getByRole('radio', { name: 'Estimates' }).isChecked()).toBe(true);
      await shot('1-choose');

      await tabTo(page, '#file');
      await (await openChooserWithSpace(page)).setFiles(SAMPLE);
      await tabTo(page, '#read');
      await page.keyboard.press('Enter');
      await page.getByRole('combobox', { name: 'estimate_name' }).waitFor({ timeout: 10_000 });
      await shot('2-match');

      await tabTo(page, '#check');
      await page.keyboard.press('Enter');
      const summary = page.getByText(/^\d+ rows: \d+ estimates to create, 0 invalid rows\.$/);
      await summary.waitFor({ timeout: 15_000 });
      const planned = Number(/(\d+) estimates to create/.exec(await summary.innerText())![1]);
      expect(planned).toBeGreaterThan(0);
      await shot('3-check');

      await tabTo(page, '#send');
      await page.keyboard.press('Enter');
      const status = page.getByRole('status');
      await expect.poll(() => status.innerText(), { timeout: 10_000 }).toMatch(/running · created 0 .* of \d+ .*no worker is running/);
      expect(page.url()).toMatch(/\/import\?id=import-[\w-]+$/);
      const importUrl = page.url();
      await shot('4-sent');

      // A reload in the middle of the import: the page follows the same import from its address.
      await page.reload();
      expect(page.url()).toBe(importUrl);
      await expect.poll(() => page.getByRole('status').innerText(), { timeout: 10_000 }).toMatch(new RegExp(`^import ${new URL(importUrl).searchParams.get('id')}: running`));
      await rig.startWorker();
      await expect.poll(() => page.getByRole('status').innerText(), { timeout: 30_000, interval: 250 })
        .toMatch(new RegExp(`done · created ${planned} · exists 0 · skipped 0 · failed 0 · unknown 0 of ${planned}`));
      expect(rig.sandbox.estimates()).toHaveLength(planned);
      await shot('5-done');

      // The results, by keyboard too: the report downloads.
      await tabTo(page, '#report');
      const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
      const report = readFileSync((await download.path())!, 'utf8');
      expect(report).toMatch(/^line,record,status,id,message/);
      // One line per row of the file, every one of them created (an estimate spans several rows).
      const lines = report.trim().split('\n').slice(1);
      expect(lines.length).toBeGreaterThanOrEqual(planned);
      expect(lines.filter((l) => !/,created,\d+,/.test(l))).toEqual([]);

      const everything = `${received.join('\n')}\n${await page.content()}`;
      expect(received.length).toBeGreaterThan(10);
      for (const secret of [rig.env.BUILDSYNC_PASSWORD!, rig.env.BUILDSYNC_API_KEY!, REDIS_URL_WITH_PASSWORD, 'redis-pw-77ad0', 'redis://']) {
        expect(everything).not.toContain(secret);
      }
    } finally {
      await context.close();
    }
  }, 90_000);
});
