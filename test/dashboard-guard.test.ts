import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDashboard, type Dashboard } from '../src/dashboard/index.ts';
import { JOB, Queues } from '../src/queue/index.ts';
import { browserSession, hasChromium } from './helpers/chromium.ts';
import { EXPORTS, takeAndFinish } from './helpers/dashboard-fixtures.ts';
import { rawRequest } from './helpers/raw-http.ts';
import { REDIS_URL, testRedis } from './helpers/redis.ts';

const PROXY_ADVICE = 'behind a reverse proxy, start the dashboard with --public-url naming the address the proxy serves it at';

describe('one guard before every route of the dashboard', () => {
  let t: Awaited<ReturnType<typeof testRedis>>;
  let queues: Queues;
  let dashboard: Dashboard | undefined;

  beforeEach(async () => {
    t = await testRedis();
    queues = new Queues(t.redis, t.prefix);
    await queues.exports.add(JOB.exportProjects, { account: 'default' }, { jobId: 'export-broken' });
    await takeAndFinish(t.redis, t.prefix, EXPORTS, (job, token) => job.moveToFailed(new Error('service said 500'), token, false));
  });
  afterEach(async () => {
    await dashboard?.close();
    dashboard = undefined;
    await queues.close();
    await t.cleanup();
  });

  const retry = (headers: Record<string, string>) => rawRequest(`${dashboard!.url}/queues/api/queues/${EXPORTS}/export-broken/retry`, { method: 'PUT', headers });

  it('refuses a foreign Host on bull-board\'s UI and API, /budget.json, /budget and /, and answers its own names', async () => {
    dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, allowActions: true });
    const { port, host } = new URL(dashboard.url);
    for (const path of ['/', '/queues/', '/queues/api/queues', `/queues/api/queues/${EXPORTS}/export-broken`, '/budget', '/budget.json']) {
      for (const foreign of [`evil.example:${port}`, 'evil.example']) {
        const res = await rawRequest(dashboard.url + path, { headers: { Host: foreign } });
        expect(res.status, `${path} ${foreign}`).toBe(403);
        expect(res.body).toBe(`403: this request was addressed to "${foreign}", which is not this dashboard's address. Open it at ${dashboard.url}; ${PROXY_ADVICE}\n`);
      }
    }
    // DNS rebinding with actions allowed: the page's own Origin matches its own (foreign) Host.
    expect((await retry({ Host: `evil.example:${port}`, Origin: `http://evil.example:${port}` })).status).toBe(403);
    expect(await queues.exports.getJobState('export-broken')).toBe('failed');
    // Loopback answers to each of its names.
    for (const own of [host, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      const res = await rawRequest(`${dashboard.url}/budget.json`, { headers: { Host: own } });
      expect(res.status, own).toBe(200);
      expect((JSON.parse(res.body) as { prefix: string }).prefix).toBe(t.prefix);
    }
  });

  it('lets a request that changes something through only with the dashboard\'s Origin or its CSRF token', async () => {
    dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, allowActions: true });
    const { host, port } = new URL(dashboard.url);
    const noOrigin = await retry({ Host: host });
    expect(noOrigin.status).toBe(403);
    expect(noOrigin.body).toBe(
      `403: cross-origin request refused: a PUT with no Origin needs this dashboard's own Origin (${dashboard.url}) or its X-CSRF-Token header (in every answer of the dashboard); ${PROXY_ADVICE}\n`,
    );
    const foreign = await retry({ Host: host, Origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatch(/^403: cross-origin request refused: a PUT from "http:\/\/evil\.example" needs/);
    expect((await retry({ Host: host, Origin: 'null' })).status).toBe(403);
    expect((await retry({ Host: host, 'X-CSRF-Token': 'guessed-token' })).status).toBe(403);
    expect(await queues.exports.getJobState('export-broken')).toBe('failed');

    // A script without Origin reads the token from any page of the dashboard and sends it back.
    const page = await rawRequest(`${dashboard.url}/budget.json`, { headers: { Host: host } });
    const token = page.headers['x-csrf-token'];
    expect(token).toMatch(/^[\w-]{32}$/);
    expect((await retry({ Host: host, 'X-CSRF-Token': token as string })).status).toBe(204);
    expect(await queues.exports.getJobState('export-broken')).toBe('waiting');
    // The loopback names are one origin for the guard.
    const clean = await rawRequest(`${dashboard.url}/queues/api/queues/${EXPORTS}/export-broken/clean`, { method: 'PUT', headers: { Host: `localhost:${port}`, Origin: `http://localhost:${port}` } });
    expect(clean.status).toBe(204);
    expect(await queues.exports.getJob('export-broken')).toBeUndefined();
  });

  it('refuses a GET the browser marks cross-site, and serves same-origin and typed-in ones', async () => {
    dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0 });
    const get = (site: string) => rawRequest(`${dashboard!.url}/budget.json`, { headers: { Host: new URL(dashboard!.url).host, 'Sec-Fetch-Site': site } });
    const cross = await get('cross-site');
    expect(cross.status).toBe(403);
    expect(cross.body).toBe(`403: cross-site request refused: open the dashboard at ${dashboard.url} itself, not from a link or frame of another site\n`);
    expect((await get('same-origin')).status).toBe(200);
    expect((await get('none')).status).toBe(200);
  });

  it('with --public-url answers to the proxy\'s host and origin, and still to its own address', async () => {
    dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, allowActions: true, publicUrl: 'https://buildsync.example.com' });
    for (const host of ['buildsync.example.com', 'buildsync.example.com:443', new URL(dashboard.url).host]) {
      expect((await rawRequest(`${dashboard.url}/queues/api/queues`, { headers: { Host: host } })).status, host).toBe(200);
    }
    const other = await rawRequest(`${dashboard.url}/budget.json`, { headers: { Host: 'other.example.com' } });
    expect(other.status).toBe(403);
    expect(other.body).toBe(`403: this request was addressed to "other.example.com", which is not this dashboard's address. Open it at https://buildsync.example.com; ${PROXY_ADVICE}\n`);
    // The page as the proxy serves it: https, the public origin; plain http of the same name is another origin.
    expect((await retry({ Host: 'buildsync.example.com', Origin: 'http://buildsync.example.com' })).status).toBe(403);
    expect((await retry({ Host: 'buildsync.example.com', Origin: 'https://buildsync.example.com' })).status).toBe(204);
    expect(await queues.exports.getJobState('export-broken')).toBe('waiting');
  });

  it('refuses a --public-url that is not an address the dashboard can be served at', async () => {
    const start = (publicUrl: string) => startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, publicUrl });
    await expect(start('buildsync.example.com')).rejects.toThrow('--public-url "buildsync.example.com" is not a URL; write the address the proxy serves the dashboard at, e.g. --public-url https://buildsync.example.com');
    await expect(start('https://buildsync.example.com/ops/')).rejects.toThrow('--public-url "https://buildsync.example.com/ops/": give the scheme, host and port only (the dashboard serves at the root of that address), e.g. --public-url https://buildsync.example.com');
    await expect(start('ftp://buildsync.example.com')).rejects.toThrow('--public-url "ftp://buildsync.example.com": expected an https:// (or http://) address');
  });
});

describe.skipIf(!hasChromium)('a form another site posts to the dashboard, in Chromium', () => {
  it('is refused before bull-board adds the job', async () => {
    const t = await testRedis();
    const queues = new Queues(t.redis, t.prefix);
    const dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, allowActions: true });
    const browser = await browserSession();
    // Another site on this machine (another loopback port), whose page posts itself on load: a
    // text/plain form whose one field spells bull-board's JSON body.
    const target = `${dashboard.url}/queues/api/queues/${EXPORTS}/add`;
    const site = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(
      `<!doctype html><title>another site</title><form method="post" enctype="text/plain" action="${target}">` +
        `<input type="hidden" name='{"name":"export-projects","data":{"account":"default","out":"/home/ops/.bashrc"},"x":"' value='"}'></form>` +
        '<script>document.forms[0].submit()</script>',
    ));
    site.listen(0, '127.0.0.1');
    await once(site, 'listening');
    const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    try {
      const page = await browser.newPage();
      const [refused] = await Promise.all([page.waitForResponse((r) => r.url() === target), page.goto(siteUrl)]);
      expect(refused.status()).toBe(403);
      expect(await refused.request().headerValue('origin')).toBe(siteUrl);
      expect(await refused.text()).toMatch(new RegExp(`^403: cross-origin request refused: a POST from "${siteUrl}" needs this dashboard's own Origin`));
      expect(await queues.exports.getJobCounts()).toMatchObject({ waiting: 0, delayed: 0, prioritized: 0 });
    } finally {
      site.close();
      await browser.close();
      await dashboard.close();
      await queues.close();
      await t.cleanup();
    }
  }, 60_000);
});
