import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type Dashboard } from '../src/dashboard/index.ts';
import type { ImportPlan } from '../src/import/plan-types.ts';
import { ImportStore } from '../src/import/index.ts';
import { QUEUE, Queues, startWorkers, submitImport, type WorkerHost } from '../src/queue/index.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { hasChromium, browserSession, type BrowserSession } from './helpers/chromium.ts';
import { REDIS_URL, testRedis } from './helpers/redis.ts';

const ARTIFACTS = resolve(import.meta.dirname, 'artifacts');

describe.skipIf(!hasChromium)('dashboard in a browser, while an import runs', () => {
  let t: Awaited<ReturnType<typeof testRedis>>;
  let sandbox: Sandbox;
  let worker: WorkerHost;
  let queues: Queues;
  let dashboard: Dashboard;
  let browser: BrowserSession;
  let importId: string;

  beforeAll(async () => {
    t = await testRedis();
    // Slow answers and one request at a time: the import runs for several seconds.
    sandbox = await startSandbox({ limits: 'none', latencyMs: 400 });
    const taken = new Set(sandbox.projectIdsWithEstimate());
    const free = sandbox.visibleProjectIds(sandbox.credentials.email, false).filter((id) => !taken.has(id) && sandbox.project(id)?.NAME !== 'My Documents');
    const plan: ImportPlan = {
      kind: 'estimates',
      file: 'estimates.csv',
      rows: 16,
      records: free.slice(0, 16).map((id, i) => ({
        key: `estimate:project:${id}`,
        label: `project ${id} / Estimate ${i + 1}`,
        lines: [i + 2],
        contentHash: `h${id}`,
        payload: { PROJECT_ID: id, NAME: `Estimate ${i + 1}` },
      })),
      statics: [],
    };
    queues = new Queues(t.redis, t.prefix);
    worker = await startWorkers({
      redisUrl: REDIS_URL,
      prefix: t.prefix,
      concurrency: 1,
      log: pino({ level: 'silent' }),
      env: {
        BUILDSYNC_BASE_URL: sandbox.url,
        BUILDSYNC_EMAIL: sandbox.credentials.email,
        BUILDSYNC_PASSWORD: sandbox.credentials.password,
        BUILDSYNC_API_KEY: sandbox.credentials.apiKey,
        BUILDSYNC_LIMITS: 'none',
        BUILDSYNC_ALLOW_VOLATILE_REDIS: '1',
      },
    });
    ({ importId } = await submitImport(queues, new ImportStore(t.redis, t.prefix), plan, { account: 'default', resendUnknown: false }));
    dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, env: { BUILDSYNC_LIMITS: 'none' } });
    browser = await browserSession();
  });

  afterAll(async () => {
    await browser?.close();
    await dashboard?.close();
    await worker?.close();
    await queues?.close();
    await sandbox?.close();
    await t?.cleanup();
  });

  it('shows the import job waiting for its records, with the share of records done', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      // Wait until some records are done, so the progress is neither 0 nor 100.
      await expect
        .poll(async () => (await queues.imports.getJob(importId))?.progress, { timeout: 10_000, interval: 100 })
        .toBeGreaterThan(0);
      await page.goto(`${dashboard.url}/queues/queue/${QUEUE.imports}?status=waiting-children`);
      await page.getByText(importId).first().waitFor({ state: 'visible', timeout: 15_000 });
      // bull-board draws a numeric progress as a bar labelled with its percentage.
      const card = page.locator('body');
      await expect.poll(async () => /\b\d{1,2}%/.test(await card.innerText()), { timeout: 10_000 }).toBe(true);
      const percent = Number(/\b(\d{1,2})%/.exec(await card.innerText())![1]);
      expect(percent).toBeGreaterThan(0);
      expect(percent).toBeLessThan(100);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: resolve(ARTIFACTS, 'dashboard-running-import.png'), fullPage: true });
      expect(await card.innerText()).toContain('import-estimates');
    } finally {
      await page.close();
    }
  });
});
