/**
 * The export page (issue 27): `/export` with `--allow-imports`, run by the dashboard itself under
 * the account's budget; in Chromium by accessible name (`Export projects (.xlsx)`, the status
 * region, `Download projects`), the downloaded workbook read back with the independent reader;
 * the Host/Origin checks, basic auth and the `--allow-imports` gate over plain HTTP.
 */
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_FIELDS } from '../src/api/project-fields.ts';
import { startDashboard } from '../src/dashboard/index.ts';
import { Secret } from '../src/secret.ts';
import { AccountThrottle } from '../src/throttle/index.ts';
import { hasChromium } from './helpers/chromium.ts';
import { startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { REDIS_URL } from './helpers/redis.ts';
import { sheetRows, zipParts } from './helpers/xlsx-parts.ts';

const ARTIFACTS = resolve(import.meta.dirname, 'artifacts');

/** A request with the Host and Origin of the caller's choosing (fetch will not forge a Host). */
function send(url: string, opts: { method?: string; host?: string; origin?: string; body?: string; auth?: string }): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  const headers: Record<string, string> = { Host: opts.host ?? u.host, 'Content-Type': 'application/json' };
  if (opts.origin !== undefined) headers.Origin = opts.origin;
  if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  return new Promise((done, fail) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: opts.method ?? 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end(opts.body);
  });
}

describe('the export page', () => {
  let rig: ImportPageRig;
  let special: number;

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'hour=500,day=10000', worker: false, browser: hasChromium });
    special = rig.sandbox.addProject({ NAME: '=cmd|calc Ünïcode 東京', PROJECT_NUMBER: '02134', ZIP: '00501', IS_ARCHIVED: true });
  }, 60_000);
  afterAll(() => rig?.close());

  const visible = () => rig.sandbox.visibleProjectIds(rig.sandbox.credentials.email, true).filter((id) => rig.sandbox.project(id)?.NAME !== 'My Documents').length;

  it.skipIf(!hasChromium)('exports a workbook in the browser: Export projects (.xlsx), follow to done, Download projects', async () => {
    const page = await rig.browser!.newPage({ viewport: { width: 390, height: 800 }, acceptDownloads: true });
    try {
      await page.goto(`${rig.dashboard.url}/export`);
      await page.getByRole('combobox', { name: 'Service account' }).selectOption('default');
      await page.getByRole('button', { name: 'Export projects (.xlsx)' }).click();
      const status = page.getByRole('status');
      await expect.poll(() => status.innerText(), { timeout: 30_000 }).toMatch(/done/);
      expect(await status.innerText()).toContain(`${visible()} projects`);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: resolve(ARTIFACTS, 'export-page.png'), fullPage: true });
      // At 390 px the page does not scroll sideways, and the controls are at least 44 px tall.
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      const link = page.getByRole('link', { name: 'Download projects' });
      for (const control of [page.getByRole('button', { name: 'Export projects (.xlsx)' }), page.getByRole('button', { name: 'Export projects (.csv)' }), link]) {
        expect((await control.boundingBox())!.height).toBeGreaterThanOrEqual(44);
      }
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      expect(download.suggestedFilename()).toMatch(/^projects-\d{4}-\d{2}-\d{2}\.xlsx$/);
      const parts = zipParts(await readFile((await download.path())!));
      for (const [name, part] of parts) expect(part.method, name).toBe(8);
      const xml = parts.get('xl/worksheets/sheet1.xml')!.data.toString('utf8');
      expect(xml).not.toMatch(/<f[\s>]/);
      const rows = sheetRows(xml);
      expect(rows).toHaveLength(visible() + 1);
      expect(rows[0]!.map((c) => c.text)).toEqual([...PROJECT_FIELDS]);
      const row = rows.find((r) => r[0]!.v === String(special))!;
      const at = (name: string) => row[PROJECT_FIELDS.indexOf(name)]!;
      expect(at('NAME')).toMatchObject({ t: 'inlineStr', text: '=cmd|calc Ünïcode 東京' });
      expect(at('PROJECT_NUMBER')).toMatchObject({ t: 'inlineStr', text: '02134' });
      expect(at('ZIP')).toMatchObject({ t: 'inlineStr', text: '00501' });
      expect(at('IS_ARCHIVED')).toMatchObject({ t: 'b', v: '1' });
      expect(at('LMOD').s).toBeGreaterThan(0);
      expect(Number(at('LMOD').v)).toBeGreaterThan(40_000);

      // The same page makes a CSV too.
      await page.getByRole('button', { name: 'Export projects (.csv)' }).click();
      await expect.poll(async () => (await status.innerText()).includes('.csv'), { timeout: 30_000 }).toBe(true);
      const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download projects' }).click()]);
      expect(csv.suggestedFilename()).toMatch(/\.csv$/);
      expect((await readFile((await csv.path())!, 'utf8')).split('\r\n')[0]).toBe(PROJECT_FIELDS.join(','));
    } finally {
      await page.close();
    }
  }, 90_000);

  it('runs under the account budget, and refuses other hosts, other origins and unknown accounts', async () => {
    const url = rig.dashboard.url;
    const own = new URL(url).host;
    const throttle = new AccountThrottle({ redis: rig.t.redis, account: 'default', limits: { hour: 500, day: 10_000 }, prefix: rig.t.prefix });
    const before = (await throttle.status()).tightest!.remaining;

    expect((await send(`${url}/export`, { host: 'evil.example:80' })).status).toBe(403);
    expect((await send(`${url}/export/run`, { method: 'POST', origin: 'http://evil.example', body: '{"format":"xlsx","account":"default"}' })).status).toBe(403);
    expect((await send(`${url}/export/run`, { method: 'POST', body: '{"format":"xlsx","account":"default"}' })).status).toBe(403);
    const unknown = await send(`${url}/export/run`, { method: 'POST', origin: `http://${own}`, body: '{"format":"xlsx","account":"nobody"}' });
    expect(unknown).toMatchObject({ status: 400 });
    expect(JSON.parse(unknown.body)).toEqual({ error: 'choose one of the configured accounts' });
    const badFormat = await send(`${url}/export/run`, { method: 'POST', origin: `http://${own}`, body: '{"format":"ods","account":"default"}' });
    expect(badFormat.status).toBe(400);

    const started = await send(`${url}/export/run`, { method: 'POST', origin: `http://${own}`, body: '{"format":"xlsx","account":"default"}' });
    expect(started.status).toBe(202);
    const { id } = JSON.parse(started.body) as { id: string };
    let state = 'running';
    for (let i = 0; i < 200 && state === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      state = (JSON.parse((await send(`${url}/export/status.json?id=${id}`, {})).body) as { state: string }).state;
    }
    expect(state).toBe('done');
    // The listing took its token from the account's budget in Redis, as the CLI's would.
    expect((await throttle.status()).tightest!.remaining).toBeLessThan(before);
    expect((await send(`${url}/export/download?id=${id}`, { host: 'evil.example:80' })).status).toBe(403);
    expect((await send(`${url}/export/download?id=export-0000`, {})).status).toBe(404);
  });

  it('is served only with --allow-imports, and behind basic auth', async () => {
    const readOnly = await startDashboard({ redisUrl: REDIS_URL, prefix: rig.t.prefix, port: 0, env: rig.env });
    try {
      expect((await send(`${readOnly.url}/export`, {})).status).toBe(404);
    } finally {
      await readOnly.close();
    }
    const guarded = await startDashboard({ redisUrl: REDIS_URL, prefix: rig.t.prefix, port: 0, env: rig.env, allowImports: true, auth: { user: 'ops', password: new Secret('export-page-pw-41') } });
    try {
      expect((await send(`${guarded.url}/export`, {})).status).toBe(401);
      const page = await send(`${guarded.url}/export`, { auth: 'ops:export-page-pw-41' });
      expect(page.status).toBe(200);
      expect(page.body).toContain('Export projects (.xlsx)');
      expect((await send(`${guarded.url}/export/run`, { method: 'POST', origin: `http://${new URL(guarded.url).host}`, body: '{"format":"csv","account":"default"}' })).status).toBe(401);
    } finally {
      await guarded.close();
    }
  });
});
