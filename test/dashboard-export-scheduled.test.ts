/**
 * The export page's `Last scheduled export` (README, "The export page"): a schedule fires (as
 * `buildsync schedule export-projects` makes it), a real worker writes the workbook, and the page
 * offers that file by a link named `Last scheduled export`, described by its date and time; once
 * the file is not on the dashboard's disk the page gives its time and path as text instead, and
 * a file a schedule does not write is never served. Real sandbox, Redis, worker and Chromium.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_FIELDS } from '../src/api/project-fields.ts';
import { readExportSuccesses, recordExportSuccess } from '../src/export/index.ts';
import { exportJobData, JOB, Queues } from '../src/queue/index.ts';
import { hasChromium } from './helpers/chromium.ts';
import { startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { waitFor } from './helpers/page-client.ts';
import { sheetRows, zipParts } from './helpers/xlsx-parts.ts';

describe('the last scheduled export on the export page', () => {
  let rig: ImportPageRig;
  let queues: Queues;
  let dir: string;
  let written: string;
  let at: number;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'buildsync-scheduled-'));
    rig = await startImportPageRig({ limits: 'none', worker: true, browser: hasChromium });
    queues = new Queues(rig.t.redis, rig.t.prefix);
    const schedule = (pattern: string) =>
      queues.exports.upsertJobScheduler('nightly', { pattern }, { name: JOB.exportProjects, data: exportJobData.parse({ account: 'default', outDir: dir, format: 'xlsx' }) });
    // Fires every second until the first export is recorded, then only at 02:00 (the schedule stays).
    await schedule('*/1 * * * * *');
    await waitFor('the scheduled export is recorded', async () => (await readExportSuccesses(rig.t.redis, rig.t.prefix)).some((s) => s.schedule === 'nightly'), 20_000);
    await schedule('0 0 2 * * *');
    await waitFor('no export running', async () => (await queues.exports.getActiveCount()) === 0, 20_000);
    const last = (await readExportSuccesses(rig.t.redis, rig.t.prefix)).find((s) => s.schedule === 'nightly')!;
    written = last.path!;
    at = last.at;
  }, 90_000);
  afterAll(async () => {
    await queues?.close();
    await rig?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const when = () => `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

  it.skipIf(!hasChromium)('offers the file the schedule wrote: link Last scheduled export, described by its date and time, downloads the workbook', async () => {
    expect(path.dirname(written)).toBe(dir);
    const page = await rig.browser!.newPage({ acceptDownloads: true });
    try {
      await page.goto(`${rig.dashboard.url}/export`);
      // Before any export of this page, no Download projects link is there to press.
      await expect(page.getByRole('link', { name: 'Download projects' }).count()).resolves.toBe(0);
      const link = page.getByRole('link', { name: 'Last scheduled export', exact: true });
      await expect(link.getAttribute('aria-describedby').then((id) => page.locator(`#${id!}`).innerText())).resolves.toContain(when());
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      expect(download.suggestedFilename()).toBe(path.basename(written));
      const got = await readFile((await download.path())!);
      expect(got.equals(await readFile(written))).toBe(true);
      const rows = sheetRows(zipParts(got).get('xl/worksheets/sheet1.xml')!.data.toString('utf8'));
      expect(rows[0]!.map((c) => c.text)).toEqual([...PROJECT_FIELDS]);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('gives its time and path as text when the file is not on the dashboard\'s disk, and never serves a path no schedule writes', async () => {
    const elsewhere = path.join(await mkdtemp(path.join(tmpdir(), 'buildsync-other-')), 'projects.xlsx');
    try {
      // A success naming a file outside the schedule's folder (a value in Redis) is shown, not served.
      await writeFile(elsewhere, await readFile(written));
      const result = { projects: 3, bytes: 1, skippedMyDocuments: 0, ms: 1, path: elsewhere, to: 'file' as const };
      await recordExportSuccess(rig.t.redis, rig.t.prefix, { account: 'default', schedule: 'nightly', result, at: at + 1000 });
      let html = await (await fetch(`${rig.dashboard.url}/export`)).text();
      expect(html).not.toContain('>Last scheduled export</a>');
      expect(html).toContain(`Last scheduled export: ${new Date(at + 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC, 3 projects, schedule nightly; written to ${elsewhere}, which this dashboard cannot read`);
      expect((await fetch(`${rig.dashboard.url}/export/scheduled?account=default`)).status).toBe(404);

      // The schedule's own file, gone from this disk (written on another machine's): text, no link.
      await recordExportSuccess(rig.t.redis, rig.t.prefix, { account: 'default', schedule: 'nightly', result: { ...result, path: written }, at: at + 2000 });
      expect((await fetch(`${rig.dashboard.url}/export/scheduled?account=default`)).status).toBe(200);
      await rm(written);
      html = await (await fetch(`${rig.dashboard.url}/export`)).text();
      expect(html).not.toContain('>Last scheduled export</a>');
      expect(html).toContain(`schedule nightly; written to ${written}, which this dashboard cannot read`);
      const gone = await fetch(`${rig.dashboard.url}/export/scheduled?account=default`);
      expect(gone.status).toBe(404);
      expect(await gone.json()).toEqual({ error: "no scheduled export of this account is on the dashboard's disk; its time and path are shown on the export page" });
    } finally {
      await rm(path.dirname(elsewhere), { recursive: true, force: true });
    }
  });
});
