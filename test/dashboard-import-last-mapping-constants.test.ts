/**
 * The last mapping sent from the import page brings back what no control shows (README, The
 * import page): its constants (and encoding), kept with the preselected choices, said in its
 * note, and sent with the next check, so that next month's file is read as this month's was.
 * Over HTTP against the real dashboard, sandbox and Redis (a prefix of its own).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { choices, pageClient } from './helpers/page-client.ts';

describe('the last mapping keeps its constants', () => {
  let rig: ImportPageRig;

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none', browser: false });
  }, 60_000);

  afterAll(() => rig?.close());

  it('sent with a constant, the next file of that header row comes back with it, says it, and is checked with it', async () => {
    const [p1] = importableProjects(rig.sandbox);
    const headers = ['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate'];
    const file = (ref: string) => `${headers.join(',')}\n${ref},${p1},55,Gravel,320.00\n`;
    const client = pageClient(rig.dashboard.url);
    const first = await client.call('/import/upload?kind=bills&account=default', { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': 'may.csv' }, body: file('LC-1') });
    expect(first.status, first.text).toBe(200);
    expect(first.json.kept).toBeNull();
    const check = await client.check(first.json.upload, choices(headers), { constants: { unit: 'ton' } });
    expect(check.status, check.text).toBe(200);
    expect(JSON.parse(check.json.records[0].payload).ITEMS[0].UNIT).toBe('ton');
    expect((await client.send(first.json.upload)).status).toBe(200);

    const next = await client.call('/import/upload?kind=bills&account=default', { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': 'june.csv' }, body: file('LC-2') });
    expect(next.status, next.text).toBe(200);
    expect(next.json.kept).toEqual({ constants: { unit: 'ton' } });
    expect(next.json.lastMapping.note).toMatch(/is preselected \(sent [^)]+\); constants unit = ton\.$/);
    // The page sends back what it kept, as it does with a saved mapping's constants.
    const again = await client.check(next.json.upload, choices(headers), { constants: next.json.kept.constants });
    expect(JSON.parse(again.json.records[0].payload).ITEMS[0].UNIT).toBe('ton');
  }, 60_000);
});
