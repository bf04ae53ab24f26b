import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csv, freeProjectIds, parseReport, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { runCli } from './helpers/cli.ts';
import { ledgerKeyOf, ledgerKeysMarkerOf } from '../src/redis/layout.ts';
import { LEDGER_KEYS_VERSION } from '../src/ledger/record-key.ts';

// Keys compared as a person reads them, end to end: the spawned CLI, the queue, workers, the
// sandbox over HTTP and the ledger in Redis. A re-run spelling a bill_ref or a vendor otherwise
// creates nothing twice, an estimate's categories spelled three ways are one, an E-notation
// bill_ref is a row error, and a ledger entry written before the rule (its field as first
// written) is found by a re-run spelling it otherwise.
let rig: E2eRig;
let p1: number, p2: number, p3: number;
let vendors: string;

const single = { isCluster: false };
const billPosts = () => rig.sandbox.requests().filter((r) => r.method === 'POST' && /^\/api\/Bills/i.test(r.path));
const estimatePosts = () => rig.sandbox.requests().filter((r) => r.method === 'POST' && r.path.startsWith('/api/v2/estimates'));

async function importCli(kind: 'bills' | 'estimates', name: string, text: string, extra: string[] = []) {
  const file = rig.file(name, text);
  const reportPath = join(rig.dir, `${name}.report.csv`);
  const res = await runCli(['import', kind, file, '--report', reportPath, ...extra], rig.env, { cwd: rig.dir });
  expect(res.stderr).not.toMatch(/unexpected error|at .*\.ts:\d+/);
  return { res, report: parseReport(readFileSync(reportPath, 'utf8')) };
}

beforeAll(async () => {
  rig = await startE2eRig();
  [p1, p2, p3] = freeProjectIds(rig.sandbox) as [number, number, number];
  vendors = rig.file('vendors.csv', 'vendor,vendor_id\nAcme Supply,55\n');
});
afterAll(() => rig?.close());

describe('record keys compared as a person reads them, through the queue', () => {
  it('skips a re-run that spells the bill_ref and the vendor otherwise, with the first id, sending nothing twice', async () => {
    const header = ['bill_ref', 'project_id', 'vendor', 'item_name', 'rate'];
    const first = await importCli('bills', 'first.csv', csv(header, [['INV-7', p1, 'Acme Supply', 'Ready-mix', '100.00'], ['INV-7', p1, 'Acme Supply', 'Pump truck', '50.00']]), ['--vendors', vendors]);
    expect(first.res.code).toBe(0);
    expect(billPosts()).toHaveLength(1);
    const id = first.report[0]!.id;
    expect(first.report.map((r) => [r.line, r.record, r.status])).toEqual([
      ['2', `bill INV-7 / project ${p1} / vendor 55`, 'created'],
      ['3', `bill INV-7 / project ${p1} / vendor 55`, 'created'],
    ]);

    // The same bill, its ref and vendor spelled otherwise (trailing space, no-break space, case).
    const second = await importCli('bills', 'second.csv', csv(header, [['inv-7 ', p1, 'ACME  SUPPLY', 'Ready-mix', '100.00'], ['Inv-7\u00a0', p1, 'acme\u00a0supply', 'Pump truck', '50.00']]), ['--vendors', vendors]);
    expect(second.res.code).toBe(0);
    expect(second.res.stdout).toMatch(/created 0, exists 0, skipped 1/);
    expect(billPosts()).toHaveLength(1);
    expect(rig.sandbox.bills()).toHaveLength(1);
    expect(second.report).toEqual([
      { line: '2', record: `bill inv-7 / project ${p1} / vendor 55`, status: 'skipped', id, message: `already created by this tool (ID ${id})` },
      { line: '3', record: `bill inv-7 / project ${p1} / vendor 55`, status: 'skipped', id, message: `already created by this tool (ID ${id}); "Inv-7" is sent as "inv-7", as first written on line 2` },
    ]);
  });

  it('makes a bill_ref Excel wrote in E-notation a row error, and sends nothing of its bill', async () => {
    const posts = billPosts().length;
    const { res, report } = await importCli('bills', 'e-notation.csv', csv(['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate'], [['1.23457E+11', p2, 55, 'Ready-mix', '100.00']]));
    expect(res.code).toBe(1);
    expect(billPosts()).toHaveLength(posts);
    expect(report).toHaveLength(1);
    expect(report[0]).toMatchObject({ line: '2', status: 'invalid' });
    expect(report[0]!.message).toMatch(/e-notation\.csv:2 column bill_ref: "1\.23457E\+11" is a number in E-notation, as Excel shows a long number in a General cell/);
  });

  it('sends "Framing", "framing" and "FRAMING " as one category, as first written, and notes the other spellings', async () => {
    const { res, report } = await importCli('estimates', 'estimate.csv', csv(['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost'], [
      [p3, 'Kitchen remodel', 'Framing', 'Walls', 'Studs', 10, '3.50'],
      [p3, 'kitchen remodel', 'framing', 'Walls', 'Nails', 1, 9],
      [p3, 'Kitchen remodel', 'FRAMING ', 'Roof', 'Rafters', 4, 20],
    ]));
    expect(res.code).toBe(0);
    expect(estimatePosts()).toHaveLength(1);
    const stored = rig.sandbox.estimates().find((e) => e.projectId === p3)!;
    expect(stored.payload).toEqual({
      NAME: 'Kitchen remodel',
      PROJECT_ID: p3,
      CATS: [
        {
          NAME: 'Framing',
          SUBCATS: [
            { NAME: 'Walls', ITEMS: [{ NAME: 'Studs', QTY: 10, UNIT_COST: 3.5 }, { NAME: 'Nails', QTY: 1, UNIT_COST: 9 }] },
            { NAME: 'Roof', ITEMS: [{ NAME: 'Rafters', QTY: 4, UNIT_COST: 20 }] },
          ],
        },
      ],
    });
    expect(report.map((r) => [r.line, r.status, r.id, r.message])).toEqual([
      ['2', 'created', String(stored.id), ''],
      ['3', 'created', String(stored.id), '"kitchen remodel" is sent as "Kitchen remodel", as first written on line 2; "framing" is sent as "Framing", as first written on line 2'],
      ['4', 'created', String(stored.id), '"FRAMING" is sent as "Framing", as first written on line 2'],
    ]);
  });

  it('finds a ledger entry written before the rule (its field as first written) from a file spelling it otherwise', async () => {
    // The previous code's field: `bill:ref:<ref as written>|<project>|<vendor>`, and no keys marker.
    const ledgerKey = ledgerKeyOf(single, rig.prefix, 'default');
    const marker = ledgerKeysMarkerOf(single, rig.prefix, 'default');
    await rig.redis.del(marker);
    const old = { state: 'created', id: 90417, contentHash: '0123456789abcdef', importId: 'before-the-rule', at: Date.now() - 86_400_000 };
    await rig.redis.hset(ledgerKey, `bill:ref:QB-100|${p2}|55`, JSON.stringify(old));
    const posts = billPosts().length;

    const { res, report } = await importCli('bills', 'old-ledger.csv', csv(['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate'], [[' qb-100', p2, 55, 'Steel', '10.00']]));
    expect(res.code).toBe(0);
    expect(billPosts()).toHaveLength(posts);
    expect(report).toEqual([
      { line: '2', record: `bill qb-100 / project ${p2} / vendor 55`, status: 'skipped', id: '90417', message: 'already created by this tool as ID 90417 from different content; the service offers no update, so the change was not sent' },
    ]);
    // Migrated: the entry has its field of today, the old one stays, and the ledger says so.
    expect(JSON.parse((await rig.redis.hget(ledgerKey, `bill:ref:qb-100|${p2}|55`))!)).toEqual(old);
    expect(await rig.redis.hexists(ledgerKey, `bill:ref:QB-100|${p2}|55`)).toBe(1);
    expect(await rig.redis.get(marker)).toBe(LEDGER_KEYS_VERSION);
  });
});
