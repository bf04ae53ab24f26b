/**
 * The import page's vendor table (README, "The import page" and "Vendor lists"): a bill file that
 * names its vendors is never stopped for want of a vendor list; each distinct name is listed with
 * its ID from the account's list or the one typed, an unknown name is a row error on its rows (the
 * vendor column marked), and a send saves the typed IDs into the account's list, so the next file
 * naming those vendors needs none typed. Real dashboard, worker, sandbox and Redis (a prefix of its own).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VendorStore } from '../src/vendors/vendor-store.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { pageClient, waitFor } from './helpers/page-client.ts';

const COLUMNS = { Ref: 'bill_ref', Job: 'project_id', Supplier: 'vendor', Item: 'item_name', Rate: 'rate' };

describe('the import page\'s vendor table', () => {
  let rig: ImportPageRig;
  let vendors: VendorStore;

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none', browser: false });
    vendors = new VendorStore(rig.t.redis, rig.t.prefix);
  }, 60_000);

  afterAll(() => rig?.close());

  it('lists the file\'s vendor names, makes unknown ones row errors, takes typed IDs, and a send saves them for the next file', async () => {
    const [p1, p2] = importableProjects(rig.sandbox);
    const csv = [
      'Ref,Job,Supplier,Item,Rate',
      `V-1,${p1},Acme Supply,Gravel,100.00`,
      `V-1,${p1},ACME  supply ,Sand,50.00`,
      `V-2,${p2},Keystone Electric,Wire,20.00`,
      `V-3,${p2},Summit Lumber,Joists,80.00`,
    ].join('\n') + '\n';
    // The account's list knows one of them.
    await vendors.import('default', [{ vendor: 'Summit Lumber', vendor_id: 61 }]);
    const client = pageClient(rig.dashboard.url);
    const up = await client.upload('suppliers.csv', csv);
    expect(up.status, up.text).toBe(200);

    // No IDs typed: no file-level stop; the names the list lacks are row errors on their rows.
    const bare = await client.check(up.json.upload, COLUMNS);
    expect(bare.status, bare.text).toBe(200);
    expect(bare.json.vendors).toEqual([
      { name: 'Acme Supply', vendorId: '' },
      { name: 'Keystone Electric', vendorId: '' },
      { name: 'Summit Lumber', vendorId: '61' },
    ]);
    expect(bare.json.invalid.map((x: { line: number; column: string | null }) => [x.line, x.column])).toEqual([[2, 'Supplier'], [3, 'Supplier'], [4, 'Supplier']]);
    expect(bare.json.invalid[2].message).toBe('suppliers.csv:4 column Supplier: vendor "Keystone Electric" is not in the vendor list of account default; type its vendor ID in the vendor table, or fill vendor_id in the file');
    expect(bare.json.invalid.map((x: { message: string }) => x.message).join('\n')).not.toMatch(/--|buildsync /);
    expect(bare.json.recordCount).toBe(1);
    expect(bare.json.records[0].bill).toMatchObject({ ref: 'V-3', vendor: 'Summit Lumber (61)' });

    // A typed ID that is no ID is refused, naming the vendor.
    const wrong = await client.check(up.json.upload, COLUMNS, { vendorIds: { 'Acme Supply': 'ACME-55' } });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error).toMatch(/"Acme Supply".*"ACME-55"/);

    // The IDs typed in the table: every row reads.
    const typed = await client.check(up.json.upload, COLUMNS, { vendorIds: { 'Acme Supply': '55', 'Keystone Electric': ' 57 ', 'Summit Lumber': '' } });
    expect(typed.status, typed.text).toBe(200);
    expect(typed.json.invalid).toEqual([]);
    expect(typed.json.vendors).toEqual([
      { name: 'Acme Supply', vendorId: '55' },
      { name: 'Keystone Electric', vendorId: '57' },
      { name: 'Summit Lumber', vendorId: '61' },
    ]);
    expect(typed.json.records.map((r: { bill: { ref: string; vendor: string } }) => [r.bill.ref, r.bill.vendor])).toEqual([
      ['V-1', 'Acme Supply (55)'],
      ['V-2', 'Keystone Electric (57)'],
      ['V-3', 'Summit Lumber (61)'],
    ]);
    // A check saves nothing.
    expect(await vendors.list('default')).toEqual([{ vendor: 'Summit Lumber', vendor_id: 61 }]);

    const sent = await client.send(up.json.upload);
    expect(sent.status, sent.text).toBe(200);
    await waitFor('the import is done', async () => (await client.call(`/import/status.json?id=${sent.json.importId}`)).json?.done === true, 30_000);
    expect(await vendors.list('default')).toEqual([
      { vendor: 'Acme Supply', vendor_id: 55 },
      { vendor: 'Keystone Electric', vendor_id: 57 },
      { vendor: 'Summit Lumber', vendor_id: 61 },
    ]);
    const infos = rig.sandbox.bills().map((b) => JSON.parse(b.info) as { VENDOR_ID: string });
    expect(infos.map((b) => b.VENDOR_ID).sort()).toEqual(['55', '57', '61']);

    // Next month's file, the names spelled otherwise: nothing to type.
    const next = await client.upload('suppliers-march.csv', `Ref,Job,Supplier,Item,Rate\nM-1,${p1},acme supply,Gravel,10.00\nM-2,${p2}, Keystone  Electric,Wire,5.00\n`);
    const again = await client.check(next.json.upload, COLUMNS);
    expect(again.status, again.text).toBe(200);
    expect(again.json.invalid).toEqual([]);
    expect(again.json.vendors).toEqual([{ name: 'acme supply', vendorId: '55' }, { name: 'Keystone Electric', vendorId: '57' }]);
    expect(again.json.recordCount).toBe(2);
  }, 90_000);

  it('an estimate file has no vendor table', async () => {
    const [p1] = importableProjects(rig.sandbox);
    const client = pageClient(rig.dashboard.url);
    const up = await client.upload('est.csv', `project_id,estimate_name,category,subcategory,item,qty,unit_cost\n${p1},Deck,Framing,Posts,Post,4,25\n`, 'estimates');
    const cols = { project_id: 'project_id', estimate_name: 'estimate_name', category: 'category', subcategory: 'subcategory', item: 'item', qty: 'qty', unit_cost: 'unit_cost' };
    const check = await client.check(up.json.upload, cols, { kind: 'estimates', vendorIds: { Acme: '55' } });
    expect(check.status, check.text).toBe(200);
    expect(check.json.vendors).toEqual([]);
    expect(check.json.records[0].estimate).toMatchObject({ name: 'Deck', categories: 1, items: 1, total: '100.00' });
  }, 60_000);
});
