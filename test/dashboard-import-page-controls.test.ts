/**
 * The import page's match-column controls over HTTP (README, The import page): each reaches the
 * import service's options exactly as the CLI's flag or mapping key does. The reading offers every
 * field in words with the mapping's name, and `Same for every row` for each required field no
 * column gives; `/import/projects.json` lists the account's projects for it; `Download mapping`
 * (`/import/mapping.json`) writes `File encoding`, `Delimiter`, `Summary rows`, `Amounts already
 * in the account's currency`, `Ignore tax` (estimates too), `Sections` (bills too) and the constants
 * as the CLI's keys; the check reads by them; a stop about the whole file names its control.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { pageClient } from './helpers/page-client.ts';

const XERO_UK = resolve(import.meta.dirname, 'fixtures', 'reading', 'xero-uk-bills.csv');

describe('the import page\'s match-column controls reach the options as the CLI\'s flags do', () => {
  let rig: ImportPageRig;
  let client: ReturnType<typeof pageClient>;
  let p1: number;

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none', worker: false, browser: false });
    client = pageClient(rig.dashboard.url);
    [p1] = importableProjects(rig.sandbox) as [number];
  }, 60_000);

  afterAll(() => rig?.close());

  it('the reading words every field beside its mapping name and offers Same for every row; projects.json lists the account\'s projects by number and name', async () => {
    const up = await client.upload('no-project.csv', 'Subcategory,Item,Qty,Unit Cost\nFootings,Ready-mix,10,150.00\n', 'estimates');
    expect(up.status).toBe(200);
    const known = new Map((up.json.known as Array<{ name: string; words: string }>).map((k) => [k.name, k.words]));
    expect(known.get('unit_cost')).toBe('Unit cost');
    expect(up.json.same.map((s: { label: string }) => s.label)).toEqual(['project', 'estimate name', 'category']);
    const bills = await client.upload('bills.csv', 'bill_ref,item_name,rate\nB-1,Gravel,10\n');
    expect(new Map((bills.json.known as Array<{ name: string; words: string }>).map((k) => [k.name, k.words])).get('bill_ref')).toBe('Bill number');
    expect(bills.json.same.map((s: { field: string }) => s.field)).toEqual(['project', 'vendor']);

    const projects = await client.call('/import/projects.json?account=default');
    expect(projects.status).toBe(200);
    const listed = projects.json.projects as Array<{ id: number; number: string; name: string }>;
    const own = rig.sandbox.project(p1) as { NAME: string; PROJECT_NUMBER?: string };
    expect(listed).toContainEqual({ id: p1, number: own.PROJECT_NUMBER ?? '', name: own.NAME });
    expect(listed.some((p) => p.name === 'My Documents')).toBe(false);
    expect((await client.call('/import/projects.json?account=nobody')).status).toBe(400);
  }, 60_000);

  it('Download mapping writes each control as the CLI\'s key: encoding, delimiter, summary rows, amounts in the account\'s currency, constants, ignore tax for estimates, sections for bills', async () => {
    const up = await client.upload('controls.csv', 'bill_ref,item_name,rate,Main Line\nB-1,Gravel,10,\n');
    const base = { upload: up.json.upload, kind: 'bills', account: 'default', layout: 'plain', columns: { bill_ref: 'bill_ref', item_name: 'item_name', rate: 'rate', 'Main Line': 'ignore' } };
    const bills = await client.post('/import/mapping.json', {
      ...base, encoding: 'windows-1250', delimiter: 'pipe', summaryRows: { column: 'Main Line' }, amountCurrency: true, constants: { project_id: p1, vendor: 'Acme Supply' },
    });
    expect(bills.status).toBe(200);
    expect(bills.json).toMatchObject({ encoding: 'windows-1250', delimiter: 'pipe', summaryRows: { column: 'Main Line' }, amountCurrency: 'account', constants: { project_id: p1, vendor: 'Acme Supply' } });
    expect((await client.post('/import/mapping.json', { ...base, summaryRows: 'none' })).json.summaryRows).toBe('none');
    // Stop when found, Detect and unchecked: the keys are left out, as the CLI's defaults.
    const plain = await client.post('/import/mapping.json', { ...base, encoding: 'auto', delimiter: 'auto', summaryRows: 'stop', amountCurrency: false });
    for (const key of ['encoding', 'delimiter', 'summaryRows', 'amountCurrency']) expect(plain.json).not.toHaveProperty(key);
    expect((await client.post('/import/mapping.json', { ...base, layout: 'sections' })).json.layout).toBe('sections');
    const estimates = await client.post('/import/mapping.json', { ...base, kind: 'estimates', columns: { Item: 'item' }, ignoreTax: true });
    expect(estimates.json.ignoreTax).toBe(true);
    const bad = await client.post('/import/mapping.json', { ...base, summaryRows: 'sometimes' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/"Summary rows" must be/);
  }, 60_000);

  it('the check reads by them: Same for every row gives each row its project and vendor; a Summary rows column leaves its rows out; Stop when found stops, naming "Summary rows"', async () => {
    const csv = ['bill_ref,item_name,rate,Main Line', 'S-1,Bill S-1,150.00,*', 'S-1,Concrete,100.00,', 'S-1,Pump,50.00,', 'S-2,Bill S-2,30.00,*', 'S-2,Rebar,10.00,', 'S-2,Ties,20.00,'].join('\n') + '\n';
    const up = await client.upload('main-line.csv', csv);
    const columns = { bill_ref: 'bill_ref', item_name: 'item_name', rate: 'rate', 'Main Line': 'ignore' };
    const constants = { project_id: p1, vendor_id: '55' };
    const stopped = await client.check(up.json.upload, columns, { layout: 'plain', constants });
    expect(stopped.status).toBe(400);
    expect(stopped.json).toMatchObject({ control: 'Summary rows' });
    expect(stopped.json.error).toMatch(/"Summary rows" above/);
    const checked = await client.check(up.json.upload, columns, { layout: 'plain', constants, summaryRows: { column: 'Main Line' } });
    expect(checked.status).toBe(200);
    expect(checked.json.invalid).toEqual([]);
    const payloads = (checked.json.records as Array<{ payload: string }>).map((r) => JSON.parse(r.payload) as { PRJ_ID: string; VENDOR_ID: string; ITEMS: Array<{ RATE: string }> });
    expect(payloads.map((p) => [p.PRJ_ID, p.VENDOR_ID, p.ITEMS.map((i) => i.RATE)])).toEqual([[String(p1), '55', ['100.00', '50.00']], [String(p1), '55', ['10.00', '20.00']]]);
  }, 60_000);

  it('Amounts already in the account\'s currency: a EUR row for a USD account is sent at its amounts; without it the row is invalid, saying to tick the box', async () => {
    const csv = `bill_ref,project_id,vendor_id,item_name,rate,Currency\nE-1,${p1},55,Steel,100.00,EUR\n`;
    const up = await client.upload('eur.csv', csv);
    const columns = { bill_ref: 'bill_ref', project_id: 'project_id', vendor_id: 'vendor_id', item_name: 'item_name', rate: 'rate', Currency: 'currency' };
    // A currency column other than the account's (USD by default) stops its row unless the box says the amounts are the account's.
    const without = await client.check(up.json.upload, columns, { layout: 'plain' });
    const withBox = await client.check(up.json.upload, columns, { layout: 'plain', amountCurrency: true });
    expect(withBox.status).toBe(200);
    expect(withBox.json.invalid).toEqual([]);
    expect(withBox.json.recordCount).toBe(1);
    expect(without.json.recordCount).toBe(0);
    expect(without.json.invalid).toMatchObject([{ line: 2, column: 'Currency' }]);
    expect(without.json.invalid[0].message).toMatch(/tick "Amounts already in the account's currency" above$/);
  }, 60_000);

  it('a Xero UK export whose dates read either way stops at Check, naming "Date format" as the control that settles it; with DMY chosen it checks', async () => {
    const csv = readFileSync(XERO_UK, 'utf8').replaceAll(',1042\n', `,${p1}\n`);
    const up = await client.upload('xero-uk-bills.csv', csv);
    expect(up.json.layout.applied).toBe('xero');
    // As the page sends them: every column's choice (the kind and status columns at Ignore, read by the layout).
    const columns = Object.fromEntries((up.json.columns as Array<{ header: string; column: string }>).map((c) => [c.header, c.column]));
    const vendorIds = { 'Acme Supply': '55', 'Best Electric': '56' };
    const stopped = await client.check(up.json.upload, columns, { layout: 'detect', vendorIds, amountCurrency: true });
    expect(stopped.status).toBe(400);
    expect(stopped.json, JSON.stringify(stopped.json)).toMatchObject({ control: 'Date format' });
    expect(stopped.json.error).toMatch(/Choose the order in "Date format" above/);
    const checked = await client.check(up.json.upload, columns, { layout: 'detect', vendorIds, amountCurrency: true, dateFormat: 'DMY' });
    expect(checked.status).toBe(200);
    expect(checked.json).not.toHaveProperty('control');
  }, 60_000);
});
