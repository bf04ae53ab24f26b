/**
 * The import page's state as the CLI's mapping and options (README, The import page): one function
 * for the check, `Download mapping` and the CLI; the layouts; and a column left at Ignore that
 * decides nothing about discounts and tax (README, "Amounts the service cannot hold").
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planBills } from '../src/import/index.ts';
import { importPlanOptions, pageImportOptions, parsePageState, type PageState } from '../src/import-service/index.ts';
import { detectPreset, parseMappingFile } from '../src/mapping/index.ts';
import { messageFor, pageControlOf, type Wording } from '../src/errors/index.ts';
import { tempCsvFiles } from './helpers/temp-csv.ts';

const files = tempCsvFiles('bs-page-options-');

const QB_HEADERS = ['Type', 'Date', 'Num', 'Vendor', 'Memo', 'Account', 'Amount', 'Customer'];
const XERO_HEADERS = ['*ContactName', '*InvoiceNumber', 'Reference', '*InvoiceDate', '*Description', '*Quantity', '*UnitAmount', 'Discount', 'TaxAmount', 'Currency', 'Type', 'Status', 'project_id'];

describe('detectPreset: which export a header row is', () => {
  it('QuickBooks by its kind column beside its number, vendor and amount columns, in either spelling', () => {
    expect(detectPreset(QB_HEADERS)).toBe('quickbooks');
    expect(detectPreset(['Transaction Type', 'Bill Date', 'Bill No', 'Supplier', 'Line Description', 'Line Amount'])).toBe('quickbooks');
    // No kind column: a plain file that happens to say Vendor and Amount.
    expect(detectPreset(['Date', 'Num', 'Vendor', 'Amount'])).toBeUndefined();
  });

  it('Xero by ContactName and InvoiceNumber, with or without the leading *', () => {
    expect(detectPreset(XERO_HEADERS)).toBe('xero');
    expect(detectPreset(['ContactName', 'InvoiceNumber', 'UnitAmount'])).toBe('xero');
    expect(detectPreset(['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate'])).toBeUndefined();
  });
});

describe('pageImportOptions: the page state as the CLI reads it', () => {
  const qbState: PageState = {
    kind: 'bills',
    layout: 'detect',
    columns: { Type: 'ignore', Date: 'invoice_date', Num: 'bill_ref', Vendor: 'vendor', Memo: 'notes', Account: 'item_name', Amount: 'rate', Customer: 'project_name' },
    credits: 'negative',
    dateFormat: 'MDY',
  };

  it('a QuickBooks header (Detect): the preset\'s kind rules on the file\'s own kind column, its fill-down, the page\'s column choices', () => {
    const { mapping, planOptions, layout } = pageImportOptions(qbState, 'bills');
    expect(layout).toBe('quickbooks');
    expect(mapping.kinds).toMatchObject({ column: 'Type', bill: ['Bill'], credit: ['Vendor Credit', 'Credit Card Credit'] });
    // The kind column is read by the rules, never a field and never in `ignore`.
    expect(mapping.columns).toEqual({ Date: 'invoice_date', Num: 'bill_ref', Memo: 'notes', Account: 'item_name', Amount: 'rate', Customer: 'project_name' });
    expect(mapping.ignore).toEqual([]);
    // The preset's fill-down, only the columns this file has (no due_date, project_id, project_number).
    expect(mapping.fillDown).toEqual(['bill_ref', 'vendor', 'invoice_date', 'notes', 'project_name']);
    expect(mapping).toMatchObject({ credits: 'negative', discounts: false, ignoreTax: false, dateFormat: 'MDY' });
    // The flags say what the mapping says.
    expect(planOptions).toMatchObject({ mapping, credits: 'negative', fillDown: mapping.fillDown, dateFormat: 'MDY' });
    expect(planOptions.discounts).toBeUndefined();
    // The JSON as `Download mapping` gives it parses as the CLI's mapping file, unchanged.
    expect(parseMappingFile(JSON.parse(JSON.stringify(mapping)), 'mapping.json')).toEqual(mapping);
  });

  it('Transaction Type read as the kind column; the Fill down boxes win over the preset\'s list', () => {
    const columns = { ...qbState.columns };
    delete columns.Type;
    const { mapping } = pageImportOptions({ ...qbState, layout: 'quickbooks', columns: { ...columns, 'Transaction Type': 'ignore' }, fillDown: ['bill_ref', 'due_date'] }, 'bills');
    expect(mapping.kinds?.column).toBe('Transaction Type');
    // due_date: no header gives it, so no box fills it.
    expect(mapping.fillDown).toEqual(['bill_ref']);
  });

  it('Plain: every column left at Ignore is in `ignore`, a blank header never is, and the choices a layout does not take are refused in the page\'s words', () => {
    const { mapping } = pageImportOptions({ kind: 'bills', layout: 'plain', columns: { Type: 'bill_type', Ref: 'bill_ref', '': 'ignore', ' ': 'ignore', Note: 'ignore' }, discounts: true, ignoreTax: true }, 'bills');
    expect(mapping.ignore).toEqual(['Note']);
    expect(mapping.kinds).toBeUndefined();
    expect(mapping).toMatchObject({ columns: { Type: 'bill_type', Ref: 'bill_ref' }, discounts: 'apply', ignoreTax: true });
    expect(() => pageImportOptions({ kind: 'estimates', layout: 'xero', columns: {} }, 'estimates')).toThrow(/QuickBooks and Xero layouts read bill exports/);
    expect(() => pageImportOptions({ kind: 'bills', columns: { Ref: 'bill_number' } }, 'bills')).toThrow(/"Ref": "bill_number" is not a column of a bill import/);
    for (const fn of [() => pageImportOptions({ kind: 'estimates', layout: 'quickbooks', columns: {} }, 'estimates'), () => pageImportOptions({ kind: 'bills', columns: { Ref: 'x' } }, 'bills')]) {
      expect(() => fn()).not.toThrow(/--/);
    }
  });

  it('Sections for estimates; estimates carry no bill options, but Ignore tax as --ignore-tax does', () => {
    const state: PageState = { kind: 'estimates', layout: 'sections', columns: { Job: 'project_id', Estimate: 'estimate_name', Item: 'item' }, fillDown: ['project_id', 'estimate_name'], hidden: 'skip', headerRow: 4, sheet: 'Bid', credits: 'negative', discounts: true, summaryRows: 'none' };
    const { mapping, planOptions } = pageImportOptions(state, 'estimates');
    expect(mapping).toMatchObject({ layout: 'sections', fillDown: ['project_id', 'estimate_name'], hidden: 'skip', headerRow: 4 });
    for (const key of ['discounts', 'credits', 'ignoreTax', 'summaryRows']) expect(mapping).not.toHaveProperty(key);
    expect(planOptions).toMatchObject({ layout: 'sections', hidden: 'skip', headerRow: 4, sheet: 'Bid', fillDown: ['project_id', 'estimate_name'] });
    expect(planOptions.ignoreTax).toBeUndefined();
    const taxed = pageImportOptions({ ...state, ignoreTax: true }, 'estimates');
    expect(taxed.mapping.ignoreTax).toBe(true);
    expect(taxed.planOptions.ignoreTax).toBe(true);
  });

  it('Sections for bills, as --layout sections reads a vendor-grouped report', () => {
    const { mapping, planOptions, layout } = pageImportOptions({ kind: 'bills', layout: 'sections', columns: { Ref: 'bill_ref', Job: 'project_id', Item: 'item_name', Amount: 'rate' } }, 'bills');
    expect(layout).toBe('sections');
    expect(mapping.layout).toBe('sections');
    expect(planOptions.layout).toBe('sections');
  });
});

describe('a Discount or tax column left at Ignore on the page decides nothing', () => {
  const header = 'bill_ref,project_id,vendor_id,item_name,rate,qty,Discount,Tax Amount';
  const lines = [header, 'D-1,1042,55,Ready-mix,100.00,2,10,', 'D-2,1042,55,Pump truck,480.00,1,,', 'D-3,1042,56,Lumber,50.00,3,,4.50'];
  const columns = Object.fromEntries(header.split(',').map((h) => [h, h === 'Discount' || h === 'Tax Amount' ? 'ignore' : h]));

  it('Apply discounts and Ignore tax unchecked: the discounted and taxed rows are marked, never sent at the full price', async () => {
    const file = await files.csv('discount.csv', lines);
    const { planOptions } = pageImportOptions({ kind: 'bills', layout: 'detect', columns }, 'bills');
    const plan = await planBills(file, planOptions);
    expect(plan.records.map((r) => r.label)).toEqual([expect.stringContaining('D-2')]);
    const invalid = plan.statics.filter((s) => s.status === 'invalid');
    expect(invalid.map((s) => s.line)).toEqual([2, 4]);
    expect(invalid[0]!.message).toMatch(/Discount "10": the service's bills hold no discount/);
    expect(invalid[1]!.message).toMatch(/Tax Amount "4.50": the service's bills hold no tax amount/);
  });

  it('Apply discounts and Ignore tax checked: 100.00 less 10 % is sent as 90.00, the tax left out', async () => {
    const file = await files.csv('discount-applied.csv', lines);
    const { planOptions } = pageImportOptions({ kind: 'bills', layout: 'detect', columns, discounts: true, ignoreTax: true }, 'bills');
    const plan = await planBills(file, planOptions);
    expect(plan.statics.filter((s) => s.status === 'invalid')).toEqual([]);
    const rates = plan.records.flatMap((r) => (r.payload as { ITEMS: Array<{ RATE: string }> }).ITEMS.map((i) => i.RATE));
    expect(rates).toEqual(['90.00', '480.00', '50.00']);
  });

  it('the CLI\'s own mapping file that ignores the Discount column, without the key, has still decided (unchanged)', async () => {
    const file = await files.csv('discount-cli.csv', lines.map((l) => l.split(',').slice(0, 7).join(',')));
    const plan = await planBills(file, { mapping: parseMappingFile({ ignore: ['Discount'] }, 'map.json') });
    expect(plan.statics.filter((s) => s.status === 'invalid')).toEqual([]);
    const sent = plan.records.flatMap((r) => (r.payload as { ITEMS: Array<{ RATE: string }> }).ITEMS.map((i) => i.RATE));
    expect(sent).toEqual(['100.00', '480.00', '50.00']);
    // Said outright in the mapping file, as the page writes it: the discount stops its row.
    const stopped = await planBills(file, { mapping: parseMappingFile({ ignore: ['Discount'], discounts: false }, 'map.json') });
    expect(stopped.statics.filter((s) => s.status === 'invalid').map((s) => s.line)).toEqual([2]);
  });
});

describe('pageImportOptions: the file encoding and delimiter the page passes (docs/reading-rules.md, "Files")', () => {
  it('carries any encoding label and the delimiter into the mapping and the plan options, and the plan reads by them', async () => {
    const state: PageState = { kind: 'bills', layout: 'plain', columns: { bill_ref: 'bill_ref', project_id: 'project_id', vendor_id: 'vendor_id', item_name: 'item_name', rate: 'rate' }, encoding: 'macintosh', delimiter: 'pipe' };
    const { mapping, planOptions } = pageImportOptions(state, 'bills');
    expect([mapping.encoding, mapping.delimiter]).toEqual(['macintosh', 'pipe']);
    expect([planOptions.encoding, planOptions.delimiter]).toEqual(['macintosh', 'pipe']);
    // "Caf\x8e" is Café in Mac Roman; "|" delimits.
    const dir = mkdtempSync(join(tmpdir(), 'bs-page-enc-'));
    const file = join(dir, 'page-mac-pipe.csv');
    writeFileSync(file, Buffer.from('bill_ref|project_id|vendor_id|item_name|rate\rB-1|1042|55|Caf\x8e|12.50\r', 'latin1'));
    const plan = await planBills(file, planOptions).finally(() => rmSync(dir, { recursive: true, force: true }));
    expect(plan.records.map((r) => r.payload.ITEMS)).toEqual([[{ NAME: 'Café', RATE: '12.50' }]]);
  });

  it('refuses an encoding that names none and a delimiter the page has no choice for', () => {
    expect(() => pageImportOptions({ kind: 'bills', layout: 'plain', encoding: 'iso-2022-kr' }, 'bills')).toThrow('encoding "iso-2022-kr" is no encoding buildsync reads');
    expect(() => parsePageState({ kind: 'bills', delimiter: '#' })).toThrow('"Delimiter" must be auto, ",", ";", tab or pipe (delimiter)');
  });
});

describe('one options builder: the page\'s state and the CLI\'s flags become plan options in one place', () => {
  const account = { dateFormat: 'DMY' as const, dateFormatVariable: 'BUILDSYNC_DATE_FORMAT', currency: 'EUR', currencyVariable: 'BUILDSYNC_CURRENCY' };

  it('the page\'s options are the CLI\'s flags (`choices`) built by importPlanOptions, the account\'s date order and currency included', () => {
    const state: PageState = { kind: 'bills', layout: 'plain', columns: { Ref: 'bill_ref', Job: 'project_id', Vendor: 'vendor_id', Item: 'item_name', Rate: 'rate' }, sheet: 'Bills', hidden: 'skip', credits: 'negative', edits: [{ line: 3, header: 'Rate', value: '12.50' }] };
    const page = pageImportOptions(state, 'bills', undefined, account);
    expect(page.planOptions).toEqual(importPlanOptions(page.choices, account));
    expect(page.planOptions).toMatchObject({ sheet: 'Bills', hidden: 'skip', credits: 'negative', accountDateFormat: 'DMY', accountCurrency: 'EUR', currencyVariable: 'BUILDSYNC_CURRENCY', cellEdits: state.edits });
    // Without an account (Download mapping, a reading): the defaults, no account's reading.
    expect(pageImportOptions(state, 'bills').planOptions.accountDateFormat).toBeUndefined();
  });

  it('a plan read with the page\'s options and one read with the CLI\'s flags (the downloaded mapping as --mapping) are the same plan', async () => {
    const file = await files.csv('bills.csv', ['Ref,Job,Vendor,Item,Rate', 'B-1,10008,55,Gravel,"1.234,50"', 'B-1,10008,55,Sand,"2,00"']);
    const page = pageImportOptions({ kind: 'bills', layout: 'plain', columns: { Ref: 'bill_ref', Job: 'project_id', Vendor: 'vendor_id', Item: 'item_name', Rate: 'rate' }, decimalSeparator: ',' }, 'bills', undefined, account);
    const cli = importPlanOptions({ mapping: parseMappingFile(JSON.parse(JSON.stringify(page.mapping)), 'mapping.json'), decimalSeparator: ',' }, account);
    const [a, b] = [await planBills(file, page.planOptions), await planBills(file, cli)];
    expect(a.records.map((r) => r.payload)).toEqual(b.records.map((r) => r.payload));
    expect(a.records.map((r) => (r.payload as { ITEMS: Array<{ RATE: unknown }> }).ITEMS.map((i) => i.RATE))).toEqual([['1234.50', '2.00']]);
  });
});

describe('pageImportOptions: Summary rows, Amounts already in the account\'s currency and Same for every row reach the mapping as the CLI reads it', () => {
  const columns = { bill_ref: 'bill_ref', project_id: 'project_id', vendor_id: 'vendor_id', item_name: 'item_name', rate: 'rate', 'Main Line': 'ignore' };
  // Each bill's first row repeats its total: NetSuite's Main Line rows.
  const lines = ['bill_ref,project_id,vendor_id,item_name,rate,Main Line', 'S-1,1042,55,Bill S-1,150.00,*', 'S-1,1042,55,Concrete,100.00,', 'S-1,1042,55,Pump,50.00,', 'S-2,1042,55,Bill S-2,30.00,*', 'S-2,1042,55,Rebar,10.00,', 'S-2,1042,55,Ties,20.00,'];

  it('Stop when found writes nothing and the file stops naming "Summary rows"; a column reads every row with a value in it as a summary row; None reads them as lines', async () => {
    const file = await files.csv('main-line.csv', lines);
    const stop = pageImportOptions({ kind: 'bills', layout: 'plain', columns, summaryRows: 'stop' }, 'bills');
    expect(stop.mapping).not.toHaveProperty('summaryRows');
    const stopped = await planBills(file, stop.planOptions).catch((e: unknown) => e);
    expect(messageFor(stopped, 'page')).toMatch(/"Summary rows" above/);
    expect(pageControlOf((stopped as { wording?: Wording }).wording)).toBe('Summary rows');

    const byColumn = pageImportOptions({ kind: 'bills', layout: 'plain', columns, summaryRows: { column: 'Main Line' } }, 'bills');
    expect(byColumn.mapping.summaryRows).toEqual({ column: 'Main Line' });
    const plan = await planBills(file, byColumn.planOptions);
    expect(plan.records.map((r) => r.payload.ITEMS.map((i) => i.RATE))).toEqual([['100.00', '50.00'], ['10.00', '20.00']]);
    expect(plan.statics.filter((s) => s.reason === 'total').map((s) => s.line)).toEqual([2, 5]);
    // The CLI given the downloaded mapping reads the file the same way.
    const cli = await planBills(file, { mapping: parseMappingFile(JSON.parse(JSON.stringify(byColumn.mapping)), 'mapping.json') });
    expect(cli.records.map((r) => r.payload)).toEqual(plan.records.map((r) => r.payload));

    const none = pageImportOptions({ kind: 'bills', layout: 'plain', columns, summaryRows: 'none' }, 'bills');
    expect(none.mapping.summaryRows).toBe('none');
    expect((await planBills(file, none.planOptions)).records.map((r) => r.payload.ITEMS.length)).toEqual([3, 3]);
  });

  it('Amounts already in the account\'s currency is "amountCurrency": "account"; a saved mapping\'s notCurrency is carried; Same for every row are constants', async () => {
    const state: PageState = { kind: 'bills', layout: 'plain', columns: { bill_ref: 'bill_ref', item_name: 'item_name', rate: 'rate', Currency: 'currency' }, amountCurrency: true, notCurrency: ['Area'], constants: { project_id: 1042, vendor: 'Acme Supply' } };
    const { mapping, planOptions } = pageImportOptions(state, 'bills');
    expect(mapping).toMatchObject({ amountCurrency: 'account', notCurrency: ['Area'], constants: { project_id: 1042, vendor: 'Acme Supply' } });
    expect(planOptions.mapping).toBe(mapping);
    expect(pageImportOptions({ ...state, amountCurrency: false }, 'bills').mapping).not.toHaveProperty('amountCurrency');
    // A bill in euros to a dollar account: stopped unless its amounts are already dollars.
    const file = await files.csv('eur.csv', ['bill_ref,project_id,vendor_id,item_name,rate,Currency', 'E-1,1042,55,Steel,100.00,EUR']);
    const base: PageState = { kind: 'bills', layout: 'plain', columns: { bill_ref: 'bill_ref', project_id: 'project_id', vendor_id: 'vendor_id', item_name: 'item_name', rate: 'rate', Currency: 'currency' } };
    const account = { accountCurrency: 'USD', currencyVariable: 'BUILDSYNC_CURRENCY' };
    const stopped = await planBills(file, { ...pageImportOptions(base, 'bills').planOptions, ...account });
    expect(stopped.records).toEqual([]);
    const sent = await planBills(file, { ...pageImportOptions({ ...base, amountCurrency: true }, 'bills').planOptions, ...account });
    expect(sent.records.map((r) => r.payload.ITEMS)).toEqual([[{ NAME: 'Steel', RATE: '100.00' }]]);
  });

  it('refuses a Summary rows choice the control cannot have', () => {
    expect(() => parsePageState({ kind: 'bills', summaryRows: 'sometimes' })).toThrow(/"Summary rows" must be Stop when found, None in this file, or a column of the file/);
  });
});
