import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDashboard, type Dashboard } from '../src/dashboard/index.ts';
import { JOB, Queues } from '../src/queue/index.ts';
import { REDIS_URL, testRedis } from './helpers/redis.ts';
import { EXPORTS, takeAndFinish } from './helpers/dashboard-fixtures.ts';

describe('dashboard job actions', () => {
  let t: Awaited<ReturnType<typeof testRedis>>;
  let queues: Queues;
  let dashboard: Dashboard | undefined;
  let failedId: string;

  beforeEach(async () => {
    t = await testRedis();
    queues = new Queues(t.redis, t.prefix);
    await queues.exports.add(JOB.exportProjects, { account: 'default' }, { jobId: 'export-broken' });
    await takeAndFinish(t.redis, t.prefix, EXPORTS, (job, token) => job.moveToFailed(new Error('service said 500'), token, false));
    failedId = 'export-broken';
  });

  afterEach(async () => {
    await dashboard?.close();
    dashboard = undefined;
    await queues.close();
    await t.cleanup();
  });

  // As bull-board's page sends them: from the dashboard's own origin.
  const put = (path: string) => fetch(`${dashboard!.url}/queues/api/queues/${EXPORTS}/${path}`, { method: 'PUT', headers: { Origin: dashboard!.url } });

  it('is read-only by default: retry and remove answer 405 and leave the job as it was', async () => {
    dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0 });
    expect(dashboard.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const retry = await put(`${failedId}/retry`);
    expect(retry.status).toBe(405);
    expect(await retry.json()).toEqual({ error: { key: 'ERRORS.QUEUE_READ_ONLY' } });
    const remove = await put(`${failedId}/clean`);
    expect(remove.status).toBe(405);
    const retryAll = await put('retry/failed');
    expect(retryAll.status).toBe(405);

    expect(await queues.exports.getJobState(failedId)).toBe('failed');
    // Reading still works: the job is listed with its failure.
    const list = await fetch(`${dashboard.url}/queues/api/queues?activeQueue=${EXPORTS}&status=failed&page=1`);
    expect(list.status).toBe(200);
    const body = (await list.json()) as { queues: { name: string; readOnlyMode: boolean; jobs: { id: string; failedReason: string }[] }[] };
    const q = body.queues.find((x) => x.name === EXPORTS)!;
    expect(q.readOnlyMode).toBe(true);
    expect(q.jobs.map((j) => [j.id, j.failedReason])).toEqual([[failedId, 'service said 500']]);
  });

  it('with allowActions retries the failed job, then removes it', async () => {
    dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, allowActions: true });

    const retry = await put(`${failedId}/retry`);
    expect(retry.status).toBe(204);
    expect(await queues.exports.getJobState(failedId)).toBe('waiting');

    const remove = await put(`${failedId}/clean`);
    expect(remove.status).toBe(204);
    expect(await queues.exports.getJob(failedId)).toBeUndefined();
  });
});
