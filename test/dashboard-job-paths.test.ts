import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDashboard, type Dashboard } from '../src/dashboard/index.ts';
import { exportJobData, JOB, QUEUE, Queues } from '../src/queue/index.ts';
import { browserSession, hasChromium } from './helpers/chromium.ts';
import { EXPORTS, takeAndFinish } from './helpers/dashboard-fixtures.ts';
import { REDIS_URL, testRedis } from './helpers/redis.ts';

const SCHEDULED_DIR = '/srv/buildsync/exports';

describe('job data from the dashboard names only the paths the schedules use', () => {
  let t: Awaited<ReturnType<typeof testRedis>>;
  let queues: Queues;
  let dashboard: Dashboard;

  beforeEach(async () => {
    t = await testRedis();
    queues = new Queues(t.redis, t.prefix);
    dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, allowActions: true });
  });
  afterEach(async () => {
    await dashboard.close();
    await queues.close();
    await t.cleanup();
  });

  /** A nightly export as `buildsync schedule export-projects --out-dir /srv/buildsync/exports` makes it. */
  const schedule = () =>
    queues.exports.upsertJobScheduler('export-projects-default', { pattern: '0 2 * * *' }, { name: JOB.exportProjects, data: exportJobData.parse({ account: 'default', outDir: SCHEDULED_DIR }) });

  /** bull-board's own requests: JSON from the dashboard's page (its Origin). */
  const api = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${dashboard.url}/queues/api/queues/${path}`, { method, headers: { Origin: dashboard.url, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { error?: { key: string }; message?: string; job?: { id: string } } };
  };
  const add = (name: string, data: unknown) => api('POST', `${EXPORTS}/add`, { name, data, options: {} });
  const waitingData = async () => (await queues.exports.getJobs(['waiting'])).map((j) => j.data as unknown);

  it('refuses an added export whose out or outDir no schedule uses, and adds one with the schedule\'s outDir', async () => {
    await schedule();
    const elsewhere = await add(JOB.exportProjects, { account: 'default', out: '/home/ops/.bashrc' });
    expect(elsewhere.status).toBe(403);
    // bull-board's page shows its word for the key above the message.
    expect(elsewhere.body.error).toEqual({ key: 'ERRORS.FORBIDDEN' });
    expect(elsewhere.body.message).toBe(
      'export-projects job data names out "/home/ops/.bashrc", which no schedule uses; from the dashboard out may only be left out (no schedule gives one). Run other exports with buildsync export projects --out FILE',
    );
    const climbing = await add(JOB.exportProjects, { account: 'default', outDir: `${SCHEDULED_DIR}/../../../etc` });
    expect(climbing.status).toBe(403);
    expect(climbing.body.message).toBe(
      `export-projects job data names outDir "${SCHEDULED_DIR}/../../../etc", which no schedule uses; from the dashboard outDir may only be "${SCHEDULED_DIR}". Run other exports with buildsync export projects --out FILE`,
    );
    const notText = await add(JOB.exportProjects, { account: 'default', outDir: [SCHEDULED_DIR] });
    expect(notText.status).toBe(403);
    expect(await waitingData()).toEqual([]);

    const scheduled = await add(JOB.exportProjects, { account: 'default', outDir: `${SCHEDULED_DIR}/` });
    expect(scheduled.status).toBe(200);
    const noPath = await add(JOB.exportProjects, { account: 'default', format: 'jsonl' });
    expect(noPath.status).toBe(200);
    expect(await waitingData()).toEqual(expect.arrayContaining([{ account: 'default', outDir: `${SCHEDULED_DIR}/` }, { account: 'default', format: 'jsonl' }]));
    expect(await waitingData()).toHaveLength(2);
  });

  it('refuses editing a job\'s data to a path no schedule uses, so a retry cannot write there', async () => {
    await schedule();
    await queues.exports.add(JOB.exportProjects, { account: 'default' }, { jobId: 'export-broken' });
    await takeAndFinish(t.redis, t.prefix, EXPORTS, (job, token) => job.moveToFailed(new Error('service said 500'), token, false));
    const edit = (jobData: unknown) => api('PATCH', `${EXPORTS}/export-broken/update-data`, { jobData });
    const edited = await edit({ account: 'default', out: '/etc/cron.d/evil' });
    expect(edited.status).toBe(403);
    expect(edited.body.message).toMatch(/^export-projects job data names out "\/etc\/cron\.d\/evil", which no schedule uses/);
    expect((await queues.exports.getJob('export-broken'))!.data).toEqual({ account: 'default' });
    expect((await edit({ account: 'default', outDir: SCHEDULED_DIR })).status).toBe(200);
    expect((await queues.exports.getJob('export-broken'))!.data).toEqual({ account: 'default', outDir: SCHEDULED_DIR });
  });

  it('refuses an import\'s report path (no schedule writes reports) and job kinds buildsync does not run', async () => {
    const report = await api('POST', `${QUEUE.imports}/add`, { name: JOB.importBills, data: { kind: 'bills', account: 'default', importId: 'import-x', file: 'bills.csv', reportPath: '/home/ops/.ssh/authorized_keys' }, options: {} });
    expect(report.status).toBe(403);
    expect(report.body.message).toMatch(/^import-bills job data names reportPath "\/home\/ops\/\.ssh\/authorized_keys", which no schedule uses/);
    const unknown = await add('shell', { out: '/tmp/x' });
    expect(unknown.status).toBe(403);
    expect(unknown.body.message).toBe('"shell" is not a kind of job buildsync runs (export-projects, import-estimates, import-bills, send-estimate, send-bill); add jobs with the buildsync commands');
    expect(await queues.imports.getJobCounts()).toMatchObject({ waiting: 0, delayed: 0 });
    expect(await waitingData()).toEqual([]);
  });
});

describe.skipIf(!hasChromium)('bull-board\'s own page through the guard, in Chromium', () => {
  it('retries and duplicates jobs, and shows why a duplicate writing elsewhere is refused', async () => {
    const t = await testRedis();
    const queues = new Queues(t.redis, t.prefix);
    // An id of BullMQ's own: a duplicate keeps the job's options, and a fixed jobId would make it a no-op.
    const { id } = await queues.exports.add(JOB.exportProjects, { account: 'default' });
    await takeAndFinish(t.redis, t.prefix, EXPORTS, (job, token) => job.moveToFailed(new Error('service said 500'), token, false));
    const dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, allowActions: true });
    const browser = await browserSession();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      // The page's own requests carry its Origin: the guard lets them through.
      await page.goto(`${dashboard.url}/queues/queue/${EXPORTS}?status=failed`);
      await page.getByText('service said 500').first().waitFor({ timeout: 15_000 });
      await page.getByRole('button', { name: 'Retry all' }).click();
      await page.getByRole('button', { name: 'Confirm' }).click();
      await expect.poll(() => queues.exports.getJobState(id!), { timeout: 10_000 }).toBe('waiting');

      await page.goto(`${dashboard.url}/queues/queue/${EXPORTS}?status=waiting`);
      await page.locator('button:has(svg.lucide-files)').first().waitFor({ timeout: 15_000 });
      const duplicate = async (data: string | undefined) => {
        await page.locator('button:has(svg.lucide-files)').first().click();
        const dialog = page.getByRole('dialog');
        if (data !== undefined) {
          await dialog.locator('.cm-content').first().click();
          await page.keyboard.press('Control+A');
          await page.keyboard.insertText(data);
        }
        const [answer] = await Promise.all([page.waitForResponse((r) => r.url().endsWith(`/api/queues/${EXPORTS}/add`)), dialog.getByRole('button', { name: 'Duplicate' }).click()]);
        return answer.status();
      };
      expect(await duplicate('{"account":"default","out":"/home/ops/.bashrc"}')).toBe(403);
      await page.getByText('export-projects job data names out "/home/ops/.bashrc", which no schedule uses').waitFor({ timeout: 5_000 });
      await page.getByText('Forbidden', { exact: true }).waitFor({ timeout: 5_000 });
      mkdirSync(resolve(import.meta.dirname, 'artifacts'), { recursive: true });
      await page.screenshot({ path: resolve(import.meta.dirname, 'artifacts', 'dashboard-job-path-refused.png') });
      expect(await queues.exports.getJobCounts('waiting')).toEqual({ waiting: 1 });
      // bull-board's error toast is a dialog too: the next duplicate starts once it and the
      // Duplicate dialog have both gone.
      await page.getByRole('dialog', { name: 'Forbidden' }).waitFor({ state: 'hidden', timeout: 20_000 });
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      expect(await duplicate(undefined)).toBe(200);
      expect((await queues.exports.getJobs(['waiting'])).map((j) => j.data as unknown)).toEqual([{ account: 'default' }, { account: 'default' }]);
    } finally {
      await browser.close();
      await dashboard.close();
      await queues.close();
      await t.cleanup();
    }
  }, 90_000);
});
