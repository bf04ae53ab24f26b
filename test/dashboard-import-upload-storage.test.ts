/**
 * The import page's uploads (README, The import page): "kept in a private directory until sent or for an
 * hour", and no secret in anything the page answers. Real dashboard, sandbox and Redis; plain
 * HTTP requests as the page's own script makes them (Host and Origin of the dashboard).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type Dashboard } from '../src/dashboard/index.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { REDIS_URL } from './helpers/redis.ts';
import { choices, pageClient, uploadDirs, waitFor } from './helpers/page-client.ts';

/** A Redis URL with a password, in the accounts' environment: it must never reach an answer. */
const REDIS_URL_WITH_PASSWORD = 'redis://buildsync:redis-pw-8c1f2@127.0.0.1:6379';

describe('import page uploads: a private directory, removed once sent or when their time is up (README, The import page)', () => {
  let rig: ImportPageRig;
  let parent: string;
  const seen: string[] = [];

  beforeAll(async () => {
    parent = mkdtempSync(join(tmpdir(), 'bs-upload-parent-'));
    rig = await startImportPageRig({ limits: 'hour=500,day=10000', browser: false, uploadDir: parent, env: { REDIS_URL: REDIS_URL_WITH_PASSWORD } });
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
    rmSync(parent, { recursive: true, force: true });
  });

  it('keeps the upload private (0700, files 0600), removes it once the import has sent its records, and still gives the rows to fix', async () => {
    const [p1] = importableProjects(rig.sandbox);
    const client = pageClient(rig.dashboard.url, seen);
    const csv = `bill_ref,project_id,vendor_id,item_name,rate\nKEEP-1,${p1},55,Gravel,100\nKEEP-2,${p1},55,Sand,ten\n`;
    const up = await client.upload('kept.csv', csv);
    expect(up.status).toBe(200);
    const [dir] = uploadDirs(parent);
    expect(uploadDirs(parent)).toHaveLength(1);
    expect(statSync(join(dir!, '..')).mode & 0o777).toBe(0o700);
    expect(statSync(dir!).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir!, 'kept.csv')).mode & 0o777).toBe(0o600);

    const check = await client.check(up.json.upload, choices(['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate']));
    expect(check.status).toBe(200);
    expect(check.json.invalid).toHaveLength(1);
    // Checked but not sent: still kept (a fix in place needs it).
    expect(uploadDirs(parent)).toEqual([dir]);

    const sent = await client.send(up.json.upload);
    expect(sent.status).toBe(200);
    const id = sent.json.importId as string;
    await waitFor('the import is done', async () => (await client.call(`/import/status.json?id=${id}`)).json.done === true);
    await waitFor('the upload is removed', () => uploadDirs(parent).length === 0);

    // The upload is gone, its rows to fix are not: the invalid row, as typed, with its line and message.
    const toFix = await client.call(`/import/errors.csv?id=${id}`);
    expect(toFix.status).toBe(200);
    expect(toFix.text).toContain('KEEP-2');
    expect(toFix.text).toContain('ten');
    expect(toFix.text).not.toContain('KEEP-1');
    const report = await client.call(`/import/report.csv?id=${id}`);
    expect(report.text).toMatch(/created/);
    expect(rig.sandbox.bills().filter((b) => b.info.includes('Gravel'))).toHaveLength(1);
    // A second Send of the removed upload is refused with what to do.
    const again = await client.send(up.json.upload);
    expect(again.status).toBe(404);
    expect(again.json.error).toBe('this upload is no longer kept; read the file again');
  }, 60_000);

  it('removes an upload never sent once BUILDSYNC_UPLOAD_KEEP_MS is up', async () => {
    const shortParent = mkdtempSync(join(tmpdir(), 'bs-upload-short-'));
    const short: Dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: rig.t.prefix, port: 0, env: { ...rig.env, BUILDSYNC_UPLOAD_KEEP_MS: '1500' }, allowImports: true, uploadDir: shortParent });
    try {
      const client = pageClient(short.url, seen);
      const up = await client.upload('forgotten.csv', 'bill_ref,project_id,vendor_id,item_name,rate\nF-1,1,55,Gravel,100\n');
      expect(up.status).toBe(200);
      expect(uploadDirs(shortParent)).toHaveLength(1);
      await waitFor('the upload is removed', () => uploadDirs(shortParent).length === 0, 10_000);
      const late = await client.check(up.json.upload, choices(['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate']));
      expect(late.status).toBe(404);
      expect(late.json.error).toBe('this upload is no longer kept; read the file again');
    } finally {
      await short.close();
      rmSync(shortParent, { recursive: true, force: true });
    }
    // Closing removes the private directory itself.
  }, 30_000);

  it('refuses to start with a BUILDSYNC_UPLOAD_KEEP_MS that is not a number of milliseconds, naming it', async () => {
    await expect(startDashboard({ redisUrl: REDIS_URL, prefix: rig.t.prefix, port: 0, env: { ...rig.env, BUILDSYNC_UPLOAD_KEEP_MS: 'an hour' }, allowImports: true }))
      .rejects.toMatchObject({ code: 'BUILDSYNC_CONFIG_INVALID', message: expect.stringContaining('BUILDSYNC_UPLOAD_KEEP_MS="an hour"') });
  });

  it('puts no password, API key or Redis URL in any page or answer, errors included', async () => {
    const client = pageClient(rig.dashboard.url, seen);
    const [p1] = importableProjects(rig.sandbox);
    await client.call('/import');
    const up = await client.upload('secrets.csv', `bill_ref,project_id,vendor_id,item_name,rate\nS-1,${p1},55,Gravel,100\n`);
    const columns = choices(['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate']);
    // Error paths: an account that is not configured, a saved mapping that is not JSON, one naming a missing header, a Send before a Check.
    expect((await client.check(up.json.upload, columns, { account: 'nobody' })).status).toBe(400);
    expect((await client.mapping(up.json.upload, '{not json')).status).toBe(400);
    expect((await client.mapping(up.json.upload, '{"columns":{"Cost":"rate"}}')).status).toBe(400);
    expect((await client.send(up.json.upload)).status).toBe(409);
    expect((await client.check(up.json.upload, columns)).status).toBe(200);
    const sent = await client.send(up.json.upload);
    await waitFor('the import is done', async () => (await client.call(`/import/status.json?id=${sent.json.importId}`)).json.done === true);
    await client.call(`/import/report.csv?id=${sent.json.importId}`);
    await client.call(`/import/errors.csv?id=${sent.json.importId}`);
    await client.call('/import/status.json?id=import-unknown');

    const everything = seen.join('\n');
    expect(seen.length).toBeGreaterThan(15);
    for (const secret of [rig.env.BUILDSYNC_PASSWORD!, rig.env.BUILDSYNC_API_KEY!, REDIS_URL_WITH_PASSWORD, 'redis-pw-8c1f2', 'redis://']) {
      expect(everything).not.toContain(secret);
    }
    // Nor where the server keeps the uploads.
    expect(everything).not.toContain(parent);
  }, 60_000);
});
