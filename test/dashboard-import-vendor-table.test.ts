/**
 * The import page's vendor table (README, "The import page" and "Vendor lists"): a bill file that
 * names its vendors is never stopped for want of a vendor list; each distinct name is listed with
 * its ID from the account's list or the one typed, an unknown name is a row error on its rows (the
 * vendor column marked), and a send saves the typed IDs into the account's list, so the next file
 * naming those vendors needs none typed. The first reading of an upload lists the names already,
 * as the check reads the file (the rows that are no bill's name no vendor), from the head of a big
 * file. Real dashboard, worker, sandbox and Redis (a prefix of its own).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READING_VENDOR_ROWS } from '../src/import-service/page-vendors.ts';
import { VendorStore } from '../src/vendors/vendor-store.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { pageClient, waitFor } from './helpers/page-client.ts';

const COLUMNS = { Ref: 'bill_ref', Job: 'project_id', Supplier: 'vendor', Item: 'item_name', Rate: 'rate' };

/** A QuickBooks "Bill Details" report: title block, split lines, a bill's total, a vendor credit, a payment, the grand total, a footer. */
function billDetails(kitchen: string, roof: string): string {
  return [
    'Bill Details',
    'ACME BUILDERS LLC',
    '"March 1 - March 31, 2026"',
    '',
    'Type,Bill No.,Vendor,Bill Date,Due Date,Memo,Account,Line Description,Line Amount,Customer',
    `Bill,RD-3004,Summit Lumber & Millwork,03/02/2026,04/01/2026,Framing package,Job Materials,"2x6 studs, 16ft","1,250.00","${kitchen}"`,
    ',,,,,,Job Materials,Delivery,85.00,',
    'Total for RD-3004,,,,,,,,"1,335.00",',
    `Vendor Credit,VC-77,Northgate Glass,03/05/2026,,Returned panes,Job Materials,Returned panes,-150.00,"${kitchen}"`,
    'Bill Payment (Check),4410,Blue River Plumbing,03/20/2026,,,Checking,,"-3,480.00",',
    `Bill,RD-3005,Cedar Roofing Co,03/09/2026,04/08/2026,Shingles,Subcontractors,Tear-off and shingles,"3,480.00","${roof}"`,
    'TOTAL,,,,,,,,"1,185.00",',
    '',
    '"Cash Basis Tuesday, March 31, 2026 10:15 AM"',
  ].join('\r\n') + '\r\n';
}

type Reading = { upload: string; vendors: Array<{ name: string; vendorId: string }>; messages: string[]; columns: Array<{ header: string; column: string }>; fillDown: Array<{ column: string; checked: boolean }> };

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
      { name: 'Acme Supply', vendorId: '', listed: '' },
      { name: 'Keystone Electric', vendorId: '', listed: '' },
      { name: 'Summit Lumber', vendorId: '61', listed: '61' },
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
    // The typed IDs beside the list's (none for them): the page sends them again with every check until Send saves them.
    expect(typed.json.vendors).toEqual([
      { name: 'Acme Supply', vendorId: '55', listed: '' },
      { name: 'Keystone Electric', vendorId: '57', listed: '' },
      { name: 'Summit Lumber', vendorId: '61', listed: '61' },
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
    expect(again.json.vendors).toEqual([{ name: 'acme supply', vendorId: '55', listed: '55' }, { name: 'Keystone Electric', vendorId: '57', listed: '57' }]);
    expect(again.json.recordCount).toBe(2);
  }, 90_000);

  it('the first reading of a QuickBooks bill report lists its bills\' vendor names (not a payment\'s, nor a credit left out) with IDs from the account\'s list, as its check does', async () => {
    const [kitchen, roof] = importableProjects(rig.sandbox).map((id) => String(rig.sandbox.project(id)!.NAME));
    await vendors.import('default', [{ vendor: 'Summit Lumber & Millwork', vendor_id: 71 }]);
    const client = pageClient(rig.dashboard.url);
    const up = await client.call('/import/upload?kind=bills&account=default&sheet=', { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': 'bill-details.csv' }, body: billDetails(kitchen!, roof!) });
    expect(up.status, up.text).toBe(200);
    const reading = up.json as Reading;
    // Before any check: the bills' vendors, the known one with its ID; the payment's vendor and the credit's (credits left out) are not listed.
    expect(reading.vendors).toEqual([
      { name: 'Summit Lumber & Millwork', vendorId: '71', listed: '71' },
      { name: 'Cedar Roofing Co', vendorId: '', listed: '' },
    ]);
    expect(reading.messages.join('\n')).not.toContain('vendor table');

    // The check of these choices lists the same names.
    const choices = Object.fromEntries(reading.columns.map((c) => [c.header, c.column]));
    const fillDown = reading.fillDown.filter((f) => f.checked).map((f) => f.column);
    const check = await client.check(reading.upload, choices, { fillDown });
    expect(check.status, check.text).toBe(200);
    expect(check.json.vendors).toEqual(reading.vendors);
    expect(check.json.records.map((r: { bill: { ref: string } }) => r.bill.ref)).toEqual(['RD-3004']);
    expect(check.json.invalid.map((x: { line: number; column: string }) => [x.line, x.column])).toEqual([[11, 'Vendor']]);

    // Credits sent as negative bills: the credit's vendor is a bill's vendor too; the payment's never is.
    const state = { upload: reading.upload, kind: 'bills', account: 'default', sheet: '', columns: choices, fillDown };
    const negative = await client.post('/import/read', { ...state, credits: 'negative' });
    expect(negative.status, negative.text).toBe(200);
    expect(negative.json.vendors).toEqual([
      { name: 'Summit Lumber & Millwork', vendorId: '71', listed: '71' },
      { name: 'Northgate Glass', vendorId: '', listed: '' },
      { name: 'Cedar Roofing Co', vendorId: '', listed: '' },
    ]);
    expect((await client.check(reading.upload, choices, { fillDown, credits: 'negative' })).json.vendors).toEqual(negative.json.vendors);

    // Without an account chosen, no ID is known.
    const bare = await client.upload('bill-details.csv', billDetails(kitchen!, roof!));
    expect(bare.json.vendors).toEqual([{ name: 'Summit Lumber & Millwork', vendorId: '', listed: '' }, { name: 'Cedar Roofing Co', vendorId: '', listed: '' }]);
  }, 60_000);

  it(`a big upload's first reading lists the vendor names of its first ${READING_VENDOR_ROWS} rows and says so; the check lists every one`, async () => {
    const [p1] = importableProjects(rig.sandbox);
    const rows = Array.from({ length: READING_VENDOR_ROWS }, (_, i) => `H-${Math.floor(i / 50)},${p1},${i % 2 === 0 ? 'Harbor Steel' : 'Ridge Masonry'},Item ${i},1.00`);
    const csv = ['bill_ref,project_id,vendor,item_name,rate', ...rows, `H-LAST,${p1},Late Vendor Inc,Last item,2.00`].join('\n') + '\n';
    const client = pageClient(rig.dashboard.url);
    const up = await client.call('/import/upload?kind=bills&account=default&sheet=', { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': 'long.csv' }, body: csv });
    expect(up.status, up.text).toBe(200);
    const reading = up.json as Reading;
    expect(reading.vendors.map((v) => v.name)).toEqual(['Harbor Steel', 'Ridge Masonry']);
    expect(reading.messages).toContain(`The vendor table lists the vendor names of the first ${READING_VENDOR_ROWS.toLocaleString('en-US')} rows; "Check" lists those of every row.`);
    const check = await client.check(reading.upload, Object.fromEntries(reading.columns.map((c) => [c.header, c.column])));
    expect(check.status, check.text).toBe(200);
    expect(check.json.vendors.map((v: { name: string }) => v.name)).toEqual(['Harbor Steel', 'Ridge Masonry', 'Late Vendor Inc']);
  }, 60_000);

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
