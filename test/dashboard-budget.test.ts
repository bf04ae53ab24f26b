import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDashboard, type BudgetReport, type Dashboard } from '../src/dashboard/index.ts';
import { RateLimitError } from '../src/errors/index.ts';
import { JOB, Queues } from '../src/queue/index.ts';
import { AccountThrottle } from '../src/throttle/index.ts';
import { REDIS_URL, testRedis } from './helpers/redis.ts';
import { EXPORTS, takeAndFinish } from './helpers/dashboard-fixtures.ts';

const ENV = { BUILDSYNC_ACME_EMAIL: 'ops@acme.test', BUILDSYNC_ACME_LIMITS: 'hour=100,day=1000' };

describe('dashboard budget page', () => {
  let t: Awaited<ReturnType<typeof testRedis>>;
  let queues: Queues;
  let dashboard: Dashboard;

  beforeEach(async () => {
    t = await testRedis();
    queues = new Queues(t.redis, t.prefix);
    // acme sent 30 requests, then a 429 asked for 10 minutes: a pause and a learned hourly limit.
    const acme = new AccountThrottle({ redis: t.redis, account: 'acme', limits: { hour: 100, day: 1000 }, prefix: t.prefix });
    for (let i = 0; i < 30; i++) await acme.acquire();
    await acme.onRateLimited(new RateLimitError({ status: 429, method: 'POST', path: '/api/Bills', body: null }, 600_000, 'hour'));

    // One scheduler with a finished run, one that has not fired, and a failed one-off export.
    await queues.exports.upsertJobScheduler('nightly-acme', { every: 24 * 3600_000 }, { name: JOB.exportProjects, data: { account: 'acme', outDir: '/srv/exports' } });
    await queues.exports.upsertJobScheduler('weekly-default', { pattern: '0 2 * * 1', tz: 'Europe/Berlin' }, { name: JOB.exportProjects, data: { account: 'default', outDir: '/srv/weekly' } });
    await takeAndFinish(t.redis, t.prefix, EXPORTS, (job, token) =>
      job.moveToCompleted({ path: '/srv/exports/projects-2026-03-01.csv', projects: 42, bytes: 9000, skippedMyDocuments: 1, ms: 800 }, token, false),
    );
    await queues.exports.add(JOB.exportProjects, { account: 'default' }, { jobId: 'export-one-off' });
    await takeAndFinish(t.redis, t.prefix, EXPORTS, (job, token) => job.moveToFailed(new Error('the service refused the credentials (401)'), token, false));

    dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, env: ENV });
  });

  afterEach(async () => {
    await dashboard.close();
    await queues.close();
    await t.cleanup();
  });

  it('/budget.json gives each account\'s windows, learned limits and pause, and each schedule\'s last runs', async () => {
    const res = await fetch(`${dashboard.url}/budget.json`);
    expect(res.status).toBe(200);
    const report = (await res.json()) as BudgetReport;

    expect(report.accounts.map((a) => a.account)).toEqual(['default', 'acme']);
    const [def, acme] = report.accounts;
    expect(def!.windows.map((w) => [w.window, w.limit, w.used, w.remaining])).toEqual([
      ['hour', 500, 0, 500], ['day', 10000, 0, 10000], ['week', 50000, 0, 50000], ['month', 200000, 0, 200000],
    ]);
    expect(def!.reason).toBeNull();

    expect(acme!.limits).toBe('hour=100,day=1000');
    const hour = acme!.windows.find((w) => w.window === 'hour')!;
    expect(hour).toMatchObject({ configured: 100, used: 30 });
    expect(hour.learned!.limit).toBeLessThan(100);
    expect(hour.limit).toBe(hour.learned!.limit);
    expect(hour.remaining).toBe(Math.max(0, hour.limit - 30));
    expect(acme!.windows.find((w) => w.window === 'day')).toMatchObject({ limit: 1000, used: 30, remaining: 970, learned: null });
    expect(acme!.reason).toMatch(/^waiting (9|10) min: /);
    expect(Date.parse(acme!.pausedUntil!) - Date.now()).toBeGreaterThan(500_000);

    const nightly = report.schedules.find((s) => s.name === 'nightly-acme')!;
    expect(nightly).toMatchObject({ every: 86_400_000, pattern: null, outDir: '/srv/exports' });
    expect(nightly.lastRuns).toHaveLength(1);
    expect(nightly.lastRuns[0]).toMatchObject({ schedule: 'nightly-acme', state: 'completed', path: '/srv/exports/projects-2026-03-01.csv', projects: 42 });
    const weekly = report.schedules.find((s) => s.name === 'weekly-default')!;
    expect(weekly).toMatchObject({ pattern: '0 2 * * 1', tz: 'Europe/Berlin', lastRuns: [] });
    expect(Date.parse(weekly.next!)).toBeGreaterThan(Date.now());

    expect(report.exports.map((r) => [r.jobId, r.state, r.schedule])).toEqual([
      ['export-one-off', 'failed', null],
      [nightly.lastRuns[0]!.jobId, 'completed', 'nightly-acme'],
    ]);
    expect(report.exports[0]!.failedReason).toBe('the service refused the credentials (401)');
  });

  it('/budget renders the same as HTML, escaping what comes from Redis', async () => {
    await queues.exports.upsertJobScheduler('<script>alert(1)</script>', { pattern: '0 3 * * *' }, { name: JOB.exportProjects, data: { account: 'default' } });
    const res = await fetch(`${dashboard.url}/budget`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('<h3 id="account-acme">Account acme</h3>');
    expect(html).toMatch(/<tr data-window="day"><td>day<\/td><td class="n">1000<\/td><td class="n">30<\/td><td class="n">970<\/td>/);
    expect(html).toContain('Schedule nightly-acme');
    expect(html).toContain('<code>/srv/exports/projects-2026-03-01.csv</code> (42 projects)');
    expect(html).toContain('the service refused the credentials (401)');
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('Schedule &#60;script&#62;alert(1)&#60;/script&#62;');
  });
});
