import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type Dashboard } from '../src/dashboard/index.ts';
import { ImportStore } from '../src/import/index.ts';
import { QUEUE, Queues, submitImport } from '../src/queue/index.ts';
import { AccountThrottle } from '../src/throttle/index.ts';
import { CHROMIUM, hasChromium, browserSession, type BrowserSession } from './helpers/chromium.ts';
import { REDIS_URL, testRedis } from './helpers/redis.ts';
import { smallPlan } from './helpers/dashboard-fixtures.ts';

const ARTIFACTS = resolve(import.meta.dirname, 'artifacts');
if (!hasChromium) {
  console.warn(`dashboard browser test skipped: ${CHROMIUM} is missing (install it with apt-get install -y chromium)`);
}

describe.skipIf(!hasChromium)('dashboard in a browser', () => {
  let t: Awaited<ReturnType<typeof testRedis>>;
  let queues: Queues;
  let dashboard: Dashboard;
  let browser: BrowserSession;
  let importId: string;

  beforeAll(async () => {
    t = await testRedis();
    queues = new Queues(t.redis, t.prefix);
    // No worker runs: the import's parent job waits in buildsync-imports, its records in buildsync-records.
    ({ importId } = await submitImport(queues, new ImportStore(t.redis, t.prefix), smallPlan(), { account: 'default', resendUnknown: false }));
    const budget = new AccountThrottle({ redis: t.redis, account: 'default', limits: { hour: 500, day: 10_000 }, prefix: t.prefix });
    for (let i = 0; i < 3; i++) await budget.acquire();
    dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, env: { BUILDSYNC_LIMITS: 'hour=500,day=10000' } });
    browser = await browserSession();
  });

  afterAll(async () => {
    await browser?.close();
    await dashboard?.close();
    await queues?.close();
    await t?.cleanup();
  });

  it('shows the waiting import job on the buildsync-imports queue page', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(`${dashboard.url}/queues/queue/${QUEUE.imports}?status=waiting`);
      // The job card carries the id; bull-board renders it from its API after the page loads.
      const jobId = page.getByText(importId).first();
      await jobId.waitFor({ state: 'visible', timeout: 15_000 });
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: resolve(ARTIFACTS, 'dashboard.png'), fullPage: true });
      const text = await page.locator('body').innerText();
      expect(text).toContain(importId);
      expect(text).toContain('import-estimates');
      // The link to the budget page sits in bull-board's header menu (uiConfig.miscLinks), the last button.
      await page.locator('header button').last().click();
      const link = page.getByRole('menuitem', { name: 'Budgets and schedules' }).or(page.getByRole('link', { name: 'Budgets and schedules' })).first();
      await link.waitFor({ state: 'visible', timeout: 5_000 });
      await link.click();
      await page.waitForURL(`${dashboard.url}/budget`);
    } finally {
      await page.close();
    }
  });

  it('shows each account and window on /budget', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(`${dashboard.url}/budget`);
      await expect(page.locator('h3#account-default').innerText()).resolves.toBe('Account default');
      const rows = page.locator('table[data-account="default"] tr[data-window]');
      expect(await rows.count()).toBe(2);
      expect(await rows.nth(0).locator('td').allInnerTexts()).toEqual(expect.arrayContaining(['hour', '500', '3', '497']));
      expect(await rows.nth(1).locator('td').allInnerTexts()).toEqual(expect.arrayContaining(['day', '10000', '3', '9997']));
      await page.screenshot({ path: resolve(ARTIFACTS, 'budget.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });
});
