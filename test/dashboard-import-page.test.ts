import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dashboard } from '../src/dashboard/index.ts';
import type { Sandbox } from '../src/sandbox/index.ts';
import { hasChromium, type BrowserSession } from './helpers/chromium.ts';
import { runCli } from './helpers/cli.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { REDIS_URL } from './helpers/redis.ts';

const ARTIFACTS = resolve(import.meta.dirname, 'artifacts');

/** A POST to the dashboard with a Host header of the caller's choosing (fetch will not forge one). */
function postWithHost(url: string, host: string, body: string): Promise<number> {
  const u = new URL(url);
  return new Promise((done, fail) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: 'POST', headers: { Host: host, Origin: `http://${host}`, 'Content-Type': 'application/octet-stream', 'X-Filename': 'bills.csv' } }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
    });
    req.on('error', fail);
    req.end(body);
  });
}

describe.skipIf(!hasChromium)('the import page in a browser (README, The import page)', () => {
  let sandbox: Sandbox;
  let dashboard: Dashboard;
  let browser: BrowserSession;

  let rig: ImportPageRig | undefined;

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'hour=500,day=10000', maxUploadMb: 1 });
    ({ sandbox, dashboard } = rig);
    browser = rig.browser!;
  }, 60_000);

  afterAll(() => rig?.close());

  it('imports a bills CSV: Read file, Check, Send, follow until created', async () => {
    const projects = sandbox.visibleProjectIds(sandbox.credentials.email, false).filter((id) => sandbox.project(id)?.NAME !== 'My Documents');
    const [p1, p2] = projects;
    // Headers the CLI would not know: "Unit Price" and "UOM" are matched by the page's suggestions.
    const csv = [
      'bill_ref,project_id,vendor_id,item_name,Unit Price,qty,UOM',
      `WEB-1,${p1},55,Ready-mix,1250.00,6,cy`,
      `WEB-1,${p1},55,Pump truck,480,1,day`,
      `WEB-2,${p2},56,Lumber,38.60,120,ea`,
      `WEB-3,${p2},57,Nails,twelve,1,box`,
    ].join('\n') + '\n';

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(`${dashboard.url}/import`);
      await page.getByRole('radio', { name: 'Bills' }).check();
      await page.getByRole('combobox', { name: 'Service account' }).selectOption('default');
      await page.getByLabel('Spreadsheet').setInputFiles({ name: 'bills.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await page.getByRole('button', { name: 'Read file' }).click();
      const unitPrice = page.getByRole('combobox', { name: 'Unit Price' });
      await unitPrice.waitFor({ timeout: 10_000 });
      expect(await unitPrice.inputValue()).toBe('rate');
      expect(await page.getByRole('combobox', { name: 'UOM' }).inputValue()).toBe('unit');
      expect(await page.getByRole('combobox', { name: 'bill_ref' }).inputValue()).toBe('bill_ref');
      await expect.poll(() => page.getByRole('link', { name: 'Download mapping' }).getAttribute('href')).toMatch(/^blob:/);
      await page.getByRole('combobox', { name: 'Date format' }).selectOption('YMD');
      await page.getByRole('combobox', { name: 'Decimal separator' }).selectOption('.');

      await page.getByRole('button', { name: 'Check' }).click();
      const bad = page.locator('td[aria-invalid="true"]');
      await bad.first().waitFor({ timeout: 15_000 });
      // The bad cell is marked, and its message names the file as uploaded, not where the server keeps it.
      expect(await page.getByRole('textbox', { name: 'Unit Price line 5' }).inputValue()).toBe('twelve');
      expect(await bad.first().getAttribute('title')).toMatch(/^bills\.csv:5 column Unit Price/);
      expect(await page.getByText(/2 bills to create, 1 invalid row\./).count()).toBe(1);
      expect(await page.getByText(/ETA/).count()).toBeGreaterThan(0);
      const send = page.getByRole('button', { name: 'Send' });
      expect(await send.isDisabled()).toBe(true);
      await page.getByRole('checkbox', { name: 'Skip invalid rows' }).check();
      expect(await send.isDisabled()).toBe(false);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: resolve(ARTIFACTS, 'import-page-check-full.png'), fullPage: true });
      // The check at 1280×800 (the README's pictures come from dashboard-import-mobile.test.ts).
      await page.locator('#checked h2').evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: resolve(ARTIFACTS, 'import-page-check.png') });

      await send.click();
      const status = page.getByRole('status');
      await expect.poll(async () => await status.innerText(), { timeout: 30_000, interval: 250 }).toMatch(/done · created 2 · exists 0 · skipped 0 · failed 0 · unknown 0 of 2/);
      expect(page.url()).toMatch(/\/import\?id=import-/);
      await page.screenshot({ path: resolve(ARTIFACTS, 'import-page-done-full.png'), fullPage: true });
      // The results: the check above, the counts and the downloads.
      await page.locator('#follow').evaluate((el) => el.scrollIntoView({ block: 'end' }));
      await page.screenshot({ path: resolve(ARTIFACTS, 'import-page-done.png') });

      // Each bill stored once.
      const stored = sandbox.bills().map((b) => JSON.parse(b.info) as { TITLE?: string; PRJ_ID: string; VENDOR_ID: string; ITEMS: unknown[] });
      expect(stored).toHaveLength(2);
      expect(stored.map((b) => `${b.PRJ_ID}/${b.VENDOR_ID}/${b.ITEMS.length}`).sort()).toEqual([`${p1}/55/2`, `${p2}/56/1`].sort());

      // A reload keeps following; the report downloads.
      await page.reload();
      await expect.poll(async () => await page.getByRole('status').innerText(), { timeout: 10_000 }).toMatch(/created 2/);
      const reportHref = await page.getByRole('link', { name: 'Download report' }).getAttribute('href');
      const report = await page.evaluate(async (href) => (await fetch(href!)).text(), reportHref);
      expect(report).toMatch(/^line,record,status,id,message/);
      expect(report).toContain('created');
      const fixHref = await page.getByRole('link', { name: 'Download rows to fix' }).getAttribute('href');
      const toFix = await page.evaluate(async (href) => (await fetch(href!)).text(), fixHref);
      expect(toFix).toContain('Nails');
      expect(toFix).toContain('source_line');

      // The same file again, on a fresh page: nothing is created twice.
      await page.goto(`${dashboard.url}/import`);
      await page.getByRole('radio', { name: 'Bills' }).check();
      await page.getByLabel('Spreadsheet').setInputFiles({ name: 'bills.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await page.getByRole('button', { name: 'Read file' }).click();
      await page.getByRole('combobox', { name: 'Unit Price' }).waitFor({ timeout: 10_000 });
      await page.getByRole('button', { name: 'Check' }).click();
      await page.getByRole('checkbox', { name: 'Skip invalid rows' }).check();
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(async () => await page.getByRole('status').innerText(), { timeout: 30_000, interval: 250 }).toMatch(/done · created 0 · exists 0 · skipped 2/);
      expect(sandbox.bills()).toHaveLength(2);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('imports an estimates .xlsx: the Sheet combobox lists its sheets, one of its two tables chosen there, each estimate stored once', async () => {
    const before = sandbox.estimates().length;
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(`${dashboard.url}/import`);
      await page.getByRole('radio', { name: 'Estimates' }).check();
      await page.getByLabel('Spreadsheet').setInputFiles(resolve(import.meta.dirname, '..', 'samples', 'estimates.xlsx'));
      await page.getByRole('button', { name: 'Read file' }).click();
      await page.getByRole('combobox', { name: 'estimate_name' }).waitFor({ timeout: 10_000 });
      // Both sheets hold a table: the active one is shown, none is chosen until Sheet says which (as the CLI's --sheet).
      const sheet = page.getByRole('combobox', { name: 'Sheet' });
      expect(await sheet.inputValue()).toBe('');
      expect(await sheet.locator('option').allInnerTexts()).toEqual(['None chosen ("Estimates" is shown)', 'Estimates', 'Alternates', 'All sheets']);
      await sheet.selectOption('Estimates');
      await page.getByRole('button', { name: 'Check' }).click();
      await page.getByText(/estimates to create, 0 invalid rows/).waitFor({ timeout: 15_000 });
      await page.screenshot({ path: resolve(ARTIFACTS, 'import-page-estimates-check.png'), fullPage: true });
      await page.getByRole('button', { name: 'Send' }).click();
      const status = page.getByRole('status');
      await expect.poll(async () => await status.innerText(), { timeout: 30_000, interval: 250 }).toMatch(/done · created [1-9]\d* · exists 0 · skipped 0 · failed 0 · unknown 0/);
      const created = Number(/created (\d+)/.exec(await status.innerText())![1]);
      const stored = sandbox.estimates().slice(before);
      expect(stored).toHaveLength(created);
      expect(new Set(stored.map((e) => e.projectId)).size).toBe(created);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('refuses a POST from a foreign Origin, or to a foreign Host (403), and an upload over the cap (413)', async () => {
    const foreign = await fetch(`${dashboard.url}/import/upload?kind=bills`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': 'bills.csv', Origin: 'http://evil.example' },
      body: 'bill_ref\n',
    });
    expect(foreign.status).toBe(403);
    const send = await fetch(`${dashboard.url}/import/send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: 'http://evil.example' },
      body: '{}',
    });
    expect(send.status).toBe(403);
    const big = await fetch(`${dashboard.url}/import/upload?kind=bills`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': 'bills.csv', Origin: dashboard.url },
      body: Buffer.alloc(2 * 1024 * 1024, 'a'),
    });
    expect(big.status).toBe(413);
    expect(JSON.stringify(await big.json())).toContain('upload limit of 1 MB');
    // The same from a real page of another site, as a CSRF attack sends it (a form posted across
    // sites): Chromium sends that site's Origin, the dashboard refuses and the browser shows why.
    const target = `${dashboard.url}/import/upload?kind=bills`;
    const site = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(
      `<!doctype html><title>another site</title><form method="post" enctype="text/plain" action="${target}"><input name="bill_ref" value="X-1"><button>Win a prize</button></form>`,
    ));
    site.listen(0, '127.0.0.1');
    await once(site, 'listening');
    const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const other = await browser.newPage();
    try {
      await other.goto(siteUrl);
      const [refused] = await Promise.all([
        other.waitForResponse((r) => r.url() === target),
        other.getByRole('button', { name: 'Win a prize' }).click(),
      ]);
      expect(refused.status()).toBe(403);
      expect(await refused.request().headerValue('origin')).toBe(siteUrl);
      expect(await refused.text()).toBe(
        `403: cross-origin request refused: a POST from "${siteUrl}" needs this dashboard's own Origin (${dashboard.url}) or its X-CSRF-Token header (in every answer of the dashboard); behind a reverse proxy, start the dashboard with --public-url naming the address the proxy serves it at\n`,
      );
    } finally {
      await other.close();
      site.close();
    }
    // DNS rebinding: a page of another site whose name now points here sends its own Host.
    expect(await postWithHost(`${dashboard.url}/import/upload?kind=bills`, 'evil.example:80', 'bill_ref\n')).toBe(403);
    expect(await postWithHost(`${dashboard.url}/import/upload?kind=bills`, new URL(dashboard.url).host, '')).toBe(400);
  });

  it('says clearly when the file is not a table, and when it is over the cap, on the page', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(`${dashboard.url}/import`);
      await page.getByRole('radio', { name: 'Bills' }).check();
      const message = page.locator('#read-msg[role="alert"]');
      await page.getByLabel('Spreadsheet').setInputFiles({ name: 'bills.xlsx', mimeType: 'application/octet-stream', buffer: Buffer.from('%PDF-1.4 not a workbook') });
      await page.getByRole('button', { name: 'Read file' }).click();
      await expect.poll(() => message.innerText(), { timeout: 10_000 }).toMatch(/bills\.xlsx/);
      const notTable = await message.innerText();
      expect(notTable).toMatch(/not|cannot|unreadable/i);
      expect(notTable).not.toMatch(/buildsync-uploads|\/tmp\/|at .*\.ts:\d+/);
      await page.getByLabel('Spreadsheet').setInputFiles({ name: 'report.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4') });
      await page.getByRole('button', { name: 'Read file' }).click();
      await expect.poll(() => message.innerText(), { timeout: 10_000 }).toBe('report.pdf: not a spreadsheet; choose a .csv or .xlsx file');
      await page.getByLabel('Spreadsheet').setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: Buffer.alloc(1024 * 1024 + 10, 'a') });
      await page.getByRole('button', { name: 'Read file' }).click();
      await expect.poll(() => message.innerText(), { timeout: 10_000 }).toBe('the file is larger than the upload limit of 1 MB');
      expect(await page.locator('#match').isHidden()).toBe(true);
    } finally {
      await page.close();
    }
  });
});

describe('buildsync dashboard --allow-imports', () => {
  it('refuses to serve imports on a non-loopback address without basic auth (exit 2)', async () => {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, REDIS_URL, BUILDSYNC_PREFIX: 'test-never-used' };
    const r = await runCli(['dashboard', '--port', '0', '--host', '0.0.0.0', '--allow-imports'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--allow-imports on 0.0.0.0 needs --auth-user');
  });
});

describe.skipIf(!hasChromium)('the import page: a bad cell fixed in place (README, The import page)', () => {
  let sandbox: Sandbox;
  let dashboard: Dashboard;
  let browser: BrowserSession;

  let rig: ImportPageRig | undefined;

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none' });
    ({ sandbox, dashboard } = rig);
    browser = rig.browser!;
  }, 60_000);

  afterAll(() => rig?.close());

  it('edits the bad cell (a textbox "rate line 3"), checks again and sends every bill', async () => {
    const [p1] = sandbox.visibleProjectIds(sandbox.credentials.email, false).filter((id) => sandbox.project(id)?.NAME !== 'My Documents');
    const csv = `project_id,vendor_id,item_name,rate\n${p1},55,Gravel,100\n${p1},55,Sand,ten\n`;
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      await page.goto(`${dashboard.url}/import`);
      await page.getByRole('radio', { name: 'Bills' }).check();
      await page.getByLabel('Spreadsheet').setInputFiles({ name: 'no-refs.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await page.getByRole('button', { name: 'Read file' }).click();
      await page.getByRole('combobox', { name: 'rate' }).waitFor({ timeout: 10_000 });
      await page.getByRole('button', { name: 'Check' }).click();
      const cell = page.getByRole('textbox', { name: 'rate line 3' });
      await cell.waitFor({ timeout: 15_000 });
      expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
      await cell.fill('10.00');
      await page.getByRole('button', { name: 'Check' }).click();
      await expect.poll(async () => page.getByText(/2 bills to create, 0 invalid rows/).count(), { timeout: 15_000 }).toBe(1);
      expect(await page.locator('[aria-invalid="true"]').count()).toBe(0);
      // 390 px wide: nothing wider than the screen (wide tables scroll inside themselves).
      expect(await page.locator('html').evaluate((el) => el.scrollWidth)).toBeLessThanOrEqual(390);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: resolve(ARTIFACTS, 'import-page-fixed-390.png'), fullPage: true });
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(async () => await page.getByRole('status').innerText(), { timeout: 30_000, interval: 250 }).toMatch(/done · created 2 /);
      const rates = sandbox.bills().map((b) => (JSON.parse(b.info) as { ITEMS: Array<{ RATE: string }> }).ITEMS[0]!.RATE).sort();
      expect(rates).toEqual(['10.00', '100.00']);
    } finally {
      await page.close();
    }
  }, 90_000);
});

describe('the import page: the check lists the rows that are no part of any bill (README, "The import page")', () => {
  let rig: ImportPageRig | undefined;

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none', browser: false });
  }, 60_000);

  afterAll(() => rig?.close());

  it('a title block above the bills and a footer below: listed as ignored with their reasons, sent as no record and no row to fix', async () => {
    const base = rig!.dashboard.url;
    const call = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, { ...init, headers: { Origin: base, ...(init.headers as Record<string, string>) } });
    const post = async (path: string, body: unknown) => {
      const res = await call(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
      return res.json() as Promise<any>;
    };
    const [p1] = importableProjects(rig!.sandbox);
    const csv = [
      'Bills to enter',
      'ACME BUILDERS LLC',
      '"January 1 - March 20, 2026"',
      '',
      'bill_ref,project_id,vendor_id,item_name,rate',
      `FOOT-1,${p1},55,Gravel,100`,
      `FOOT-2,${p1},55,Sand,40`,
      '',
      '"Cash Basis Tuesday, March 3, 2026 10:15 AM"',
      'Printed by the office',
    ].join('\n') + '\n';
    const upload = await call('/import/upload?kind=bills&sheet=', { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': 'footer.csv' }, body: csv });
    expect(upload.status, await upload.clone().text()).toBe(200);
    const { upload: id, columns } = await upload.json() as { upload: string; columns: Array<{ header: string; column: string }> };
    const check = await post('/import/check', { upload: id, kind: 'bills', account: 'default', sheet: '', columns: Object.fromEntries(columns.map((c) => [c.header, c.column])), dateFormat: 'auto', decimalSeparator: 'auto' });
    expect(check.invalid).toEqual([]);
    expect(check.recordCount).toBe(2);
    expect(check.ignored).toEqual({
      text: '5 rows ignored: title 3, footer 2',
      counts: { title: 3, footer: 2 },
      count: 5,
      lines: [
        ...[1, 2, 3].map((line) => ({ line, reason: 'title', message: 'title above the header row (line 5): not part of the table' })),
        { line: 9, reason: 'footer', message: 'footer below the last row: not part of the table' },
        { line: 10, reason: 'footer', message: 'footer below the last row: not part of the table' },
      ],
    });
    // The rows shown for fixing are the table's own: no title, no footer.
    expect(check.headers).toEqual(['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate']);
    expect(check.shown.map((r: { line: number }) => r.line)).toEqual([6, 7]);

    // The page renders them in a list of their own, under a heading that names it.
    const html = await (await call('/import')).text();
    expect(html).toContain('<section id="ignored" aria-labelledby="ignored-h" hidden><h3 id="ignored-h">Ignored rows</h3><p id="ignored-text"></p><ul id="ignored-list"></ul></section>');
    expect(html).toContain('make("li", {}, "Line " + l.line + ": "');

    // Sent: the footer is in the report as ignored, and not among the rows to fix.
    const { importId } = await post('/import/send', { upload: id, skipInvalid: false }) as { importId: string };
    for (let until = Date.now() + 30_000; ; ) {
      const status = await (await call(`/import/status.json?id=${importId}`)).json() as { done: boolean; counts: { created: number } };
      if (status.done) {
        expect(status.counts.created).toBe(2);
        break;
      }
      if (Date.now() > until) throw new Error(`import ${importId} not done`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const report = await (await call(`/import/report.csv?id=${importId}`)).text();
    expect(report.trim().split('\n').slice(1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual([
      '1,,ignored',
      '2,,ignored',
      '3,,ignored',
      `6,bill FOOT-1 / project ${p1} / vendor 55,created`,
      `7,bill FOOT-2 / project ${p1} / vendor 55,created`,
      '9,,ignored',
      '10,,ignored',
    ]);
    const toFix = await call(`/import/errors.csv?id=${importId}`);
    expect(toFix.status).toBe(200);
    expect(toFix.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await toFix.text()).toContain('nothing to fix in this import');
  }, 60_000);
});
