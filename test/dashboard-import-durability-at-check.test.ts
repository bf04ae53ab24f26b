/**
 * What would stop Send is said at Check (README, The import page): a Redis that would not keep the
 * ledger through a crash (this test's Redis writes no append-only file and has no replica) refuses
 * Send, and the check already says so in the words Send then answers with. Real Redis, the
 * sandbox, the dashboard over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { choices, pageClient } from './helpers/page-client.ts';
import { redisDurability } from '../src/import-service/index.ts';

const HEADERS = ['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate'];

describe('the durability of Redis, said at Check', () => {
  let rig: ImportPageRig;
  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none', browser: false, worker: false, env: { BUILDSYNC_ALLOW_VOLATILE_REDIS: '0' } });
  }, 60_000);
  afterAll(() => rig?.close());

  it('a Redis that would lose the ledger: the check says Send is refused and why, and Send refuses with the same words', async () => {
    const decision = await redisDurability(rig.t.redis, rig.env);
    // The test's Redis keeps nothing through a crash: the decision the check and Send both read.
    expect(decision.mode).toBe('refuse');
    const [p1] = importableProjects(rig.sandbox);
    const client = pageClient(rig.dashboard.url);
    const up = await client.upload('bills.csv', `${HEADERS.join(',')}\nD-1,${p1},55,Gravel,10.00\n`);
    expect(up.status, up.text).toBe(200);
    const checked = await client.check(up.json.upload, choices(HEADERS));
    expect(checked.status, checked.text).toBe(200);
    expect(checked.json.recordCount).toBe(1);
    expect(checked.json.durability).toEqual({ refused: (decision as { message: string }).message });
    const sent = await client.send(up.json.upload);
    expect(sent.status).toBe(409);
    expect(sent.json.error).toBe((decision as { message: string }).message);
    expect(rig.sandbox.bills()).toEqual([]);
  }, 60_000);
});
