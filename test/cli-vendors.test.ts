/**
 * `buildsync vendors import | list | remove` and the account's vendor list in bill imports,
 * through the CLI as a child process against real Redis and the sandbox (README, "Vendor lists"):
 * names compared as people read them, counts of added / changed / unchanged, `list --json`, a
 * bill file naming vendors imported without --vendors, a --vendors file winning for the names it
 * holds, and a dry run without Redis saying once that vendor names were not resolved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { csv, freeProjectIds, parseReport, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { runCli } from './helpers/cli.ts';
import { VendorStore } from '../src/vendors/vendor-store.ts';

let rig: E2eRig;
let p1: number, p2: number;

beforeAll(async () => {
  rig = await startE2eRig();
  [p1, p2] = freeProjectIds(rig.sandbox) as [number, number];
});
afterAll(async () => {
  await rig?.close();
});

const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { ...rig.env, ...env }, { cwd: rig.dir });
const vendorIdsSent = (before: number) => rig.sandbox.bills().slice(before).map((b) => (JSON.parse(b.info) as { NOTES?: string; VENDOR_ID: string }));

describe('buildsync vendors', () => {
  it('imports, lists and removes the account\'s vendors, names compared ignoring case and spaces', async () => {
    const first = rig.file('vendors-1.csv', 'vendor,vendor_id\nAcme Supply,55\n" Keystone  Electric ",57\n');
    const imported = await cli(['vendors', 'import', first, '--account', 'north']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/vendor list of account north: 2 added, 0 changed, 0 unchanged/);

    // Another spelling of a known name is that name; only the ID decides "changed".
    const second = rig.file('vendors-2.csv', 'vendor,vendor_id\nACME\u00a0 SUPPLY,56\nkeystone electric,57\nNorthwind Tile,58\n');
    const again = await cli(['vendors', 'import', second, '--account', 'north']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/vendor list of account north: 1 added, 1 changed, 1 unchanged/);
    expect(again.stdout).toMatch(/added: "Northwind Tile"/);
    expect(again.stdout).toMatch(/changed: "ACME SUPPLY"/);

    const [json, text, other] = await Promise.all([
      cli(['vendors', 'list', '--account', 'north', '--json']),
      cli(['vendors', 'list', '--account', 'north']),
      cli(['vendors', 'list', '--json']),
    ]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      { vendor: 'ACME SUPPLY', vendor_id: 56 },
      { vendor: 'keystone electric', vendor_id: 57 },
      { vendor: 'Northwind Tile', vendor_id: 58 },
    ]);
    expect(text.stdout).toBe('vendor,vendor_id\nACME SUPPLY,56\nkeystone electric,57\nNorthwind Tile,58\n');
    expect(text.stderr).toMatch(/3 vendors in the vendor list of account north/);
    // Each account has its own list.
    expect(JSON.parse(other.stdout)).toEqual([]);

    const removed = await cli(['vendors', 'remove', '  northwind   TILE', '--account', 'north']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/removed "Northwind Tile" \(vendor_id 58\) from the vendor list of account north/);
    const missing = await cli(['vendors', 'remove', 'Northwind Tile', '--account', 'north']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no vendor "Northwind Tile" in the vendor list of account north/);
    expect(await new VendorStore(rig.redis, rig.prefix).list('north')).toHaveLength(2);
  });

  it('refuses a file that gives one name two IDs, and imports nothing', async () => {
    const twice = rig.file('vendors-twice.csv', 'vendor,vendor_id\nTwice Co,60\nTWICE CO,61\nOnce Co,62\n');
    const res = await cli(['vendors', 'import', twice, '--account', 'twice']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/vendor "Twice Co" is ambiguous .*60 on line 2, 61 on line 3.*nothing was imported/);
    expect(await new VendorStore(rig.redis, rig.prefix).list('twice')).toEqual([]);
  });
});

describe('bill imports and the account\'s vendor list', () => {
  const bills = () =>
    rig.file(
      'bills-by-name.csv',
      csv(['bill_ref', 'project_id', 'vendor', 'item_name', 'rate', 'notes'], [
        ['VL-1', p1, 'acme  supply', 'Rebar', '10.00', 'from the list'],
        ['VL-2', p2, 'Summit Lumber', 'Studs', '20.00', 'from the file'],
        ['VL-3', p2, 'Keystone Electric', 'Wire', '30.00', 'file wins'],
      ]),
    );

  it('reads the list when --vendors is not given, and a --vendors file wins for the names it holds', async () => {
    await new VendorStore(rig.redis, rig.prefix).import('default', [
      { vendor: 'Acme Supply', vendor_id: 55 },
      { vendor: 'Keystone Electric', vendor_id: 57 },
    ]);
    const file = bills();
    const before = rig.sandbox.bills().length;

    // Without --vendors: Summit Lumber is in neither, its bill is invalid and named so.
    const onlyList = await cli(['import', 'bills', file, '--report', join(rig.dir, 'list.report.csv')]);
    expect(onlyList.code, onlyList.stderr).toBe(1);
    const report = parseReport(readFileSync(join(rig.dir, 'list.report.csv'), 'utf8'));
    expect(report.find((r) => r.line === '2')).toMatchObject({ status: 'created', record: 'bill VL-1 / project ' + p1 + ' / vendor 55' });
    expect(report.find((r) => r.line === '3')!.message).toMatch(/vendor "Summit Lumber" is not in the vendor list of account default/);
    expect(report.find((r) => r.line === '4')).toMatchObject({ status: 'created', record: 'bill VL-3 / project ' + p2 + ' / vendor 57' });
    expect(vendorIdsSent(before).map((b) => [b.NOTES, b.VENDOR_ID])).toEqual([['from the list', '55'], ['file wins', '57']]);

    // With --vendors: the file names Summit Lumber and gives Keystone Electric another ID; Acme comes from the list.
    const vendors = rig.file('vendors-file.csv', 'vendor,vendor_id\nSummit Lumber,56\nKEYSTONE ELECTRIC,59\n');
    const file2 = rig.file('bills-by-name-2.csv', readFileSync(file, 'utf8').replace(/VL-/g, 'VF-'));
    const before2 = rig.sandbox.bills().length;
    const both = await cli(['import', 'bills', file2, '--vendors', vendors, '--report', join(rig.dir, 'both.report.csv')]);
    expect(both.code, both.stderr).toBe(0);
    expect(vendorIdsSent(before2).map((b) => [b.NOTES, b.VENDOR_ID]).sort()).toEqual([['file wins', '59'], ['from the file', '56'], ['from the list', '55']]);
  });

  it('a dry run reads the list when Redis answers, and without Redis says once that vendor names were not resolved', async () => {
    await new VendorStore(rig.redis, rig.prefix).import('default', [
      { vendor: 'Acme Supply', vendor_id: 55 },
      { vendor: 'Summit Lumber', vendor_id: 56 },
      { vendor: 'Keystone Electric', vendor_id: 57 },
    ]);
    const file = bills();
    const withRedis = await cli(['import', 'bills', file, '--dry-run', '--print-payloads']);
    expect(withRedis.code, withRedis.stderr).toBe(0);
    expect(withRedis.stderr).not.toMatch(/not resolved/);
    expect(withRedis.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { VENDOR_ID: string }).VENDOR_ID)).toEqual(['55', '56', '57']);

    // No Redis at all (a closed port): the file's names are resolved, the others left unresolved, once.
    const vendors = rig.file('vendors-dry.csv', 'vendor,vendor_id\nKeystone Electric,59\n');
    const noRedis = await cli(['import', 'bills', file, '--dry-run', '--print-payloads', '--vendors', vendors], { REDIS_URL: 'redis://127.0.0.1:1' });
    expect(noRedis.code, noRedis.stderr).toBe(0);
    const notes = noRedis.stderr.match(/vendor names? (was|were) not resolved/g) ?? [];
    expect(notes).toHaveLength(1);
    expect(noRedis.stderr).toMatch(/dry run: 2 vendor names were not resolved: the vendor list of account default was not read/);
    expect(noRedis.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { VENDOR_ID: string | null }).VENDOR_ID)).toEqual([null, null, '59']);
    const report = parseReport(readFileSync(`${file}.report.csv`, 'utf8'));
    expect(report.map((r) => r.record.replace(/project \d+/, 'project P'))).toEqual(['bill VL-1 / project P / vendor "acme  supply"', 'bill VL-2 / project P / vendor "Summit Lumber"', 'bill VL-3 / project P / vendor 59']);
  });
});
