/**
 * The import page's progress line says why an import failed in the page's words (README, The
 * import page; `GET /import/status.json`): the job keeps its failure as the CLI words it, its
 * stable code first; the page words a known code for its own controls and never shows a flag.
 * Real dashboard, worker, sandbox and Redis (a prefix of its own).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureReason, RedisUnavailableError } from '../src/errors/index.ts';
import { ImportStore, pageFailedReason } from '../src/import-service/index.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { hasChromium } from './helpers/chromium.ts';
import { pageClient, waitFor } from './helpers/page-client.ts';
import { noRedisAnswers } from '../src/redis/failures.ts';

describe('a failed import on the import page', () => {
  let rig: ImportPageRig;

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none', browser: hasChromium, worker: false });
  }, 60_000);

  afterAll(() => rig?.close());

  it('whose plan left Redis before a worker took it: status.json says so and what to do on the page, never a flag', async () => {
    const [p1, p2] = importableProjects(rig.sandbox);
    const client = pageClient(rig.dashboard.url);
    const up = await client.upload('gone.csv', `bill_ref,project_id,vendor_id,item_name,rate\nG-1,${p1},55,Gravel,10.00\nG-2,${p2},55,Sand,5.00\n`);
    expect(up.status, up.text).toBe(200);
    const check = await client.check(up.json.upload, { bill_ref: 'bill_ref', project_id: 'project_id', vendor_id: 'vendor_id', item_name: 'item_name', rate: 'rate' });
    expect(check.status, check.text).toBe(200);
    const sent = await client.send(up.json.upload);
    expect(sent.status, sent.text).toBe(200);
    const id = sent.json.importId as string;
    // Expired, or removed by hand, before any worker got to it: the record jobs and then the import fail.
    await new ImportStore(rig.t.redis, rig.t.prefix).remove(id);
    await rig.startWorker();

    let status: { state: string; done: boolean; failedReason?: string; kind: string; counts: { created: number } } | undefined;
    await waitFor('the import to fail', async () => {
      const res = await client.call(`/import/status.json?id=${id}`);
      status = res.json;
      return res.status === 200 && status!.done;
    }, 30_000);
    expect(status).toMatchObject({ state: 'failed', kind: 'bills', counts: { created: 0 } });
    expect(status!.failedReason).toBe(`import ${id} is unknown or expired: its plan and outcomes are not in Redis (never submitted, removed, or past their retention); choose the file again under "Read file", check it and Send it: the records it created before are not created twice`);
    expect(status!.failedReason).not.toMatch(/--|BUILDSYNC_|buildsync /);
    expect(rig.sandbox.bills()).toEqual([]);

    // In the browser: the page following this import says, in its status region, that it failed and why.
    if (rig.browser) {
      const page = await rig.browser.newPage();
      try {
        await page.goto(`${rig.dashboard.url}/import?id=${encodeURIComponent(id)}`);
        const region = page.getByRole('status');
        await expect.poll(() => region.innerText(), { timeout: 10_000 }).toMatch(/failed/);
        expect(await region.innerText()).toContain(`import ${id}: failed: ${status!.failedReason!}`);
      } finally {
        await page.close();
      }
    }

    // An import the queue does not know is still unknown.
    expect((await client.call('/import/status.json?id=import-never-sent')).status).toBe(404);
  }, 60_000);

  it('a reason whose code the page has no words for is shown without the flags it names', () => {
    const redis = failureReason(new RedisUnavailableError('redis://127.0.0.1:6390', { message: noRedisAnswers('redis://127.0.0.1:6390').message }));
    expect(redis).toMatch(/--dry-run/);
    expect(pageFailedReason('import-1', redis)).toBe('no Redis answers at redis://127.0.0.1:6390.');
    expect(pageFailedReason('import-1', '[BUILDSYNC_HTTP_5XX] the service failed; if it persists, run the import again with --resend-unknown')).toBe('the service failed.');
    expect(pageFailedReason('import-1', '--resend-unknown only')).toBe('the import failed; choose the file again under "Read file", check it and Send it: the records it created before are not created twice');
    // BullMQ's own reason for a job whose workers kept dying names no flag: as it is.
    expect(pageFailedReason('import-1', 'job stalled more than allowable limit')).toBe('job stalled more than allowable limit');
    expect(pageFailedReason('import-1', undefined)).toBeUndefined();
  });
});
