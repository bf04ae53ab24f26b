/**
 * `Download rows to fix` of the import page (README, "The import page"): only the rows still to
 * fix (never a record created), kept with the import's report in Redis so that a restarted
 * dashboard (a new instance on the same Redis, its uploads gone) still gives them, even when it
 * stopped while the import ran; and a plain page, not an error, when nothing needs fixing.
 * Real dashboards, worker, sandbox and Redis; HTTP requests as the page's script makes them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type Dashboard } from '../src/dashboard/index.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { REDIS_URL } from './helpers/redis.ts';
import { choices, pageClient, uploadDirs, waitFor } from './helpers/page-client.ts';

const HEADERS = ['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate'];

describe('the import page\'s rows to fix', () => {
  let rig: ImportPageRig;
  let parent: string;
  const open: Dashboard[] = [];

  /** A dashboard with imports on the rig's Redis, as a restart would start it (its own upload directory). */
  const dashboard = async (): Promise<Dashboard> => {
    const d = await startDashboard({ redisUrl: REDIS_URL, prefix: rig.t.prefix, port: 0, env: rig.env, allowImports: true, uploadDir: parent });
    open.push(d);
    return d;
  };
  const stop = async (d: Dashboard): Promise<void> => {
    open.splice(open.indexOf(d), 1);
    await d.close();
  };

  beforeAll(async () => {
    parent = mkdtempSync(join(tmpdir(), 'bs-fix-parent-'));
    // No worker yet: the first import is still waiting when its dashboard stops.
    rig = await startImportPageRig({ limits: 'none', browser: false, worker: false });
  }, 60_000);

  afterAll(async () => {
    for (const d of open.splice(0)) await d.close().catch(() => {});
    await rig?.close();
    rmSync(parent, { recursive: true, force: true });
  });

  it('lists only the invalid rows, never the created ones, and survives restarts of the dashboard, one while the import runs', async () => {
    const [p1, p2] = importableProjects(rig.sandbox);
    const csv = [
      HEADERS.join(','),
      `FIX-1,${p1},55,Gravel,100`,
      `FIX-2,${p1},55,Sand,ten`,
      `FIX-3,${p2},55,Cement,250`,
      `FIX-4,${p2},,Rebar,30`,
    ].join('\n') + '\n';
    const first = await dashboard();
    const client = pageClient(first.url);
    const up = await client.upload('fix-me.csv', csv);
    expect(up.status, up.text).toBe(200);
    const check = await client.check(up.json.upload, choices(HEADERS));
    expect(check.status, check.text).toBe(200);
    expect(check.json.invalid.map((r: { line: number }) => r.line).sort()).toEqual([3, 5]);
    const sent = await client.send(up.json.upload);
    expect(sent.status, sent.text).toBe(200);
    const id = sent.json.importId as string;

    // The dashboard stops before the import has run (its upload goes with it); a new one takes over.
    await stop(first);
    expect(uploadDirs(parent)).toEqual([]);
    const second = await dashboard();
    const again = pageClient(second.url);
    await rig.startWorker();
    await waitFor('the import is done', async () => (await again.call(`/import/status.json?id=${id}`)).json?.done === true, 30_000);
    expect((await again.call(`/import/status.json?id=${id}`)).json.counts.created).toBe(2);

    const toFix = await again.call(`/import/errors.csv?id=${id}`);
    expect(toFix.status, toFix.text).toBe(200);
    expect(toFix.type).toMatch(/^text\/csv/);
    const lines = toFix.text.replace(/^\uFEFF/, '').trim().split('\n');
    expect(lines[0]).toBe('bill_ref,project_id,vendor_id,item_name,rate,source_line,error');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 1).concat(l.split(',')[5]!).join(' '))).toEqual(['FIX-2 3', 'FIX-4 5']);
    expect(toFix.text).not.toContain('FIX-1');
    expect(toFix.text).not.toContain('FIX-3');

    // And again after another restart, now from what was kept once the import ended.
    await stop(second);
    const third = await dashboard();
    const later = await pageClient(third.url).call(`/import/errors.csv?id=${id}`);
    expect(later.status, later.text).toBe(200);
    expect(later.text).toBe(toFix.text);
    expect(await rig.t.redis.exists(`${rig.t.prefix}:import:${id}:upload`, `${rig.t.prefix}:import:{${id}}:upload`)).toBe(0);
  }, 90_000);

  it('answers a plain page saying there is nothing to fix when every row was sent', async () => {
    await rig.startWorker();
    const [p1] = importableProjects(rig.sandbox);
    const d = await dashboard();
    const client = pageClient(d.url);
    const up = await client.upload('all-good.csv', `${HEADERS.join(',')}\nOK-1,${p1},55,Gravel,100\n`);
    expect((await client.check(up.json.upload, choices(HEADERS))).json.invalid).toEqual([]);
    const { importId } = (await client.send(up.json.upload)).json as { importId: string };
    await waitFor('the import is done', async () => (await client.call(`/import/status.json?id=${importId}`)).json?.done === true, 30_000);
    for (const dash of [d, await dashboard()]) {
      const page = await pageClient(dash.url).call(`/import/errors.csv?id=${importId}`);
      expect(page.status).toBe(200);
      expect(page.type).toMatch(/^text\/html/);
      expect(page.json).toBeUndefined();
      expect(page.text).toContain('There is nothing to fix in this import');
    }
  }, 60_000);
});
