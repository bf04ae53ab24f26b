/**
 * The import page's reading of an upload (README, The import page): the header row below a title
 * block, the layout detected and applied, the preselected choices (never a field of another
 * type), the sheets and hidden rows of a workbook, and messages in the page's words.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readPage, type PageReading } from '../src/import-service/index.ts';
import { writeExcelXlsx, xmlEscape } from './helpers/excel-xml.ts';
import { tempCsvFiles } from './helpers/temp-csv.ts';

const files = tempCsvFiles('bs-page-reading-');
const dir = mkdtempSync(join(tmpdir(), 'bs-page-reading-xlsx-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A QuickBooks "Transaction List by Vendor" as QuickBooks writes it: title block, split lines, a credit, the total, the footer. */
export const QB_REPORT = [
  'ACME BUILDERS LLC',
  'Transaction List by Vendor',
  '"January 1 - March 20, 2026"',
  '',
  'Type,Date,Num,Vendor,Memo,Account,Amount',
  'Bill,03/02/2026,QB-3004,Summit Lumber & Millwork,Framing package,Job Materials,"1,250.00"',
  ',,,,,Job Materials,85.00',
  'Vendor Credit,03/05/2026,VC-118,Summit Lumber & Millwork,Returned studs,Job Materials,-150.00',
  'Bill,03/09/2026,QB-3005,Keystone Electric,Panel upgrade,Subcontractors,"3,480.00"',
  'TOTAL,,,,,,"4,665.00"',
  '',
  '"Cash Basis Tuesday, March 3, 2026 10:15 AM"',
];

const byHeader = (r: PageReading) => Object.fromEntries(r.columns.map((c) => [c.header, c.column]));
const noFlags = (r: PageReading) => expect(r.messages.filter((m) => m.includes('--'))).toEqual([]);

describe('readPage: a QuickBooks report below its title block', () => {
  it('shows the real header row (line 5), detects QuickBooks, reads Type as the kind of each row and leaves Account at Ignore', async () => {
    const r = await readPage(await files.csv('qb.csv', QB_REPORT), 'qb.csv', { kind: 'bills', account: 'default' });
    expect(r).toMatchObject({ table: 'csv', sheets: [], sheet: null, headerRow: 5, headerFound: true, hidden: null, layout: { chosen: 'detect', detected: 'quickbooks', applied: 'quickbooks' } });
    expect(r.columns.map((c) => c.header)).toEqual(['Type', 'Date', 'Num', 'Vendor', 'Memo', 'Account', 'Amount']);
    expect(r.columns[0]).toMatchObject({ header: 'Type', column: 'ignore', role: 'kind', samples: ['Bill', 'Vendor Credit', 'Bill'] });
    expect(byHeader(r)).toEqual({ Type: 'ignore', Date: 'invoice_date', Num: 'bill_ref', Vendor: 'vendor', Memo: 'notes', Account: 'ignore', Amount: 'rate' });
    // The preset's fill-down, one box per key column the file has.
    expect(r.fillDown).toEqual(['bill_ref', 'vendor', 'invoice_date', 'notes'].map((column) => ({ column, checked: true })));
    expect(r.known).toContainEqual({ name: 'rate', words: 'Unit price', type: 'number' });
    expect(r.known).toContainEqual({ name: 'invoice_date', words: 'Invoice date', type: 'date' });
    expect(r.known).toContainEqual({ name: 'bill_ref', words: 'Bill number', type: 'text' });
    expect(r.options).toEqual({ dateFormat: 'auto', decimalSeparator: 'auto', encoding: 'auto', delimiter: 'auto', credits: 'ignore', discounts: false, ignoreTax: false, summaryRows: 'stop', amountCurrency: false });
    // No column gives the project: offered as one value for every row (the vendor has its column).
    expect(r.same).toEqual([{ field: 'project', label: 'project', value: '' }]);
    // No item or project column: said in the page's words.
    expect(r.messages.join('\n')).toMatch(/Still to match: project_id \(or project_number \/ project_name\); item_name; choose the column each header holds/);
    noFlags(r);
  });

  it('Plain chosen: Type is still never a bill_type, the text column Account never a rate, and the amount is one', async () => {
    const r = await readPage(await files.csv('qb-plain.csv', QB_REPORT), 'qb.csv', { kind: 'bills', layout: 'plain' });
    expect(r.layout).toEqual({ chosen: 'plain', detected: 'quickbooks', applied: 'plain' });
    expect(r.columns.every((c) => c.role === undefined)).toBe(true);
    expect(byHeader(r)).toMatchObject({ Type: 'ignore', Account: 'ignore', Amount: 'rate', Date: 'invoice_date', Memo: 'notes' });
    expect(r.fillDown.every((f) => !f.checked)).toBe(true);
  });

  it('the choices sent win for the headers still present; another header row keeps the options', async () => {
    const file = await files.csv('qb-again.csv', QB_REPORT);
    const again = await readPage(file, 'qb.csv', { kind: 'bills', headerRow: 5, columns: { Account: 'item_name', Memo: 'ignore', Gone: 'qty' }, credits: 'negative', dateFormat: 'MDY', fillDown: ['bill_ref'] });
    expect(byHeader(again)).toMatchObject({ Account: 'item_name', Memo: 'ignore', Num: 'bill_ref', Type: 'ignore' });
    expect(again.options).toMatchObject({ credits: 'negative', dateFormat: 'MDY' });
    expect(again.fillDown.filter((f) => f.checked).map((f) => f.column)).toEqual(['bill_ref']);
    const title = await readPage(file, 'qb.csv', { kind: 'bills', headerRow: 2, columns: byHeader(again), credits: 'negative', dateFormat: 'MDY' });
    expect(title).toMatchObject({ headerRow: 2, headerFound: true, options: { credits: 'negative', dateFormat: 'MDY' } });
    expect(title.columns.map((c) => c.header)).toEqual(['Transaction List by Vendor']);
    // Rows wider than that header: said, naming the file as uploaded, never where it is kept.
    expect(title.messages).toContainEqual(expect.stringMatching(/^qb\.csv:5: this row has 7 fields but the header has 1/));
    expect(title.messages.join('\n')).not.toContain(file);
    const past = await readPage(file, 'qb.csv', { kind: 'bills', headerRow: 40 });
    expect(past.headerRow).toBe(5);
    expect(past.messages[0]).toMatch(/^Line 40 of qb\.csv holds no row .*: choose another in "Header row" above/);
    noFlags(past);
  });

  it('Xero detected by its starred headers: Type and Status are the kind and status of each row; TaxAmount is tax_amount; Discount and Currency left at Ignore', async () => {
    const file = await files.csv('xero.csv', [
      '*ContactName,*InvoiceNumber,Reference,*InvoiceDate,*DueDate,*Description,*Quantity,*UnitAmount,Discount,*AccountCode,TaxAmount,Currency,Type,Status,project_id',
      'Keystone Electric,KE-9001,PO 4471,13/03/2026,12/04/2026,Temporary lighting strings,12,85.00,10,5000,0.00,USD,ACCPAY,AUTHORISED,1042',
    ]);
    const r = await readPage(file, 'xero.csv', { kind: 'bills' });
    expect(r.layout).toEqual({ chosen: 'detect', detected: 'xero', applied: 'xero' });
    expect(r.headerRow).toBe(1);
    expect(r.columns.filter((c) => c.role !== undefined).map((c) => [c.header, c.role])).toEqual([['Type', 'kind'], ['Status', 'status']]);
    expect(byHeader(r)).toMatchObject({ '*ContactName': 'vendor', '*InvoiceNumber': 'bill_ref', '*UnitAmount': 'rate', '*Quantity': 'qty', Discount: 'ignore', TaxAmount: 'tax_amount', Currency: 'ignore', project_id: 'project_id' });
    expect(r.messages).toEqual([]);
  });
});

describe('readPage: guesses judged by the values', () => {
  it('close spellings as before (UOM, Unit Price), never a field of another type, never one column twice, never a blank header', async () => {
    const file = await files.csv('guess.csv', [
      'Ref,Job,,Date,Account,Description,UOM,Unit Price,Qty,Amount',
      'G-1,1042,,Site A,Job Materials,Ready-mix,cy,1250.00,6,7500.00',
      'G-1,1042,,Site A,Job Materials,Pump,day,480,1,480.00',
      'G-2,1043,,Site B,Subcontractors,Nails,box,twelve,1,12.00',
    ]);
    const r = await readPage(file, 'guess.csv', { kind: 'bills' });
    expect(r.columns.map((c) => c.header)).not.toContain('');
    const chosen = byHeader(r);
    // Unit Price reads as a rate though one cell is a word (the check marks it); Amount may not take it again.
    expect(chosen).toMatchObject({ Ref: 'bill_ref', UOM: 'unit', 'Unit Price': 'rate', Qty: 'qty', Date: 'ignore', Account: 'ignore', Amount: 'ignore', Description: 'item_description' });
    const estimates = await readPage(file, 'guess.csv', { kind: 'estimates' });
    expect(byHeader(estimates)).toMatchObject({ UOM: 'unit', 'Unit Price': 'unit_cost', Qty: 'qty', Account: 'ignore' });
  });

  it('a title block above a header that lacks a required column: the real header, never "(column 2)"; a file of numbers only: its first row, said so', async () => {
    const titled = await readPage(await files.csv('titled.csv', ['Bills to enter', 'ACME BUILDERS LLC', '', 'Ref,Vendor #,Description,Unit Price', 'T-1,55,Gravel,100']), 'titled.csv', { kind: 'bills' });
    expect(titled).toMatchObject({ headerRow: 4, headerFound: true });
    expect(byHeader(titled)).toEqual({ Ref: 'bill_ref', 'Vendor #': 'vendor_id', Description: 'item_description', 'Unit Price': 'rate' });
    const numbers = await readPage(await files.csv('numbers.csv', ['1,2,3', '4,5,6']), 'numbers.csv', { kind: 'bills' });
    expect(numbers).toMatchObject({ headerRow: 1, headerFound: false });
    expect(numbers.messages[0]).toMatch(/^numbers\.csv:1: missing columns: .*choose it in "Header row" above\.$/);
    noFlags(numbers);
  });

  it('the last mapping preselects the headers the page sent no choice for, and says so', async () => {
    const file = await files.csv('saved.csv', ['Ref,Job,Vendor #,Description,Unit Price', 'S-1,1042,55,Gravel,100']);
    const mapping = { columns: { Job: 'project_id', Description: 'item_name' }, ignore: ['Unit Price'], constants: {}, dateFormat: 'DMY' as const, discounts: 'apply' as const, fillDown: ['bill_ref'] };
    const r = await readPage(file, 'saved.csv', { kind: 'bills', account: 'default', columns: { Description: 'title' } }, { lastMapping: async () => ({ mapping, layout: 'plain', sentAt: '2026-03-20T14:05:09.000Z' }) });
    expect(byHeader(r)).toEqual({ Ref: 'bill_ref', Job: 'project_id', 'Vendor #': 'vendor_id', Description: 'title', 'Unit Price': 'ignore' });
    expect(r.options).toMatchObject({ dateFormat: 'DMY', discounts: true });
    expect(r.fillDown).toContainEqual({ column: 'bill_ref', checked: true });
    expect(r.lastMapping).toEqual({ note: 'The mapping last used for default, bills and these headers is preselected (sent 2026-03-20 14:05 UTC).' });
  });
});

describe('readPage: a workbook', () => {
  const cell = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(text)}</t></is></c>`;
  const row = (r: number, cells: string[], hidden = false) => `<row r="${r}"${hidden ? ' hidden="1"' : ''}>${cells.map((t, i) => cell(`${String.fromCharCode(65 + i)}${r}`, t)).join('')}</row>`;
  const table = (title: string) => row(1, [title]) + row(3, ['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate']) + row(4, ['R-1', '1042', '55', 'Gravel', '100']) + row(5, ['R-2', '1042', '55', 'Sand', '40'], true);

  it('the active sheet of two with a table shown but not chosen, its header row below the title, its hidden row and column counted and said in the page\'s words', async () => {
    const file = join(dir, 'revisions.xlsx');
    writeExcelXlsx(file, { activeTab: 1, sheets: [{ name: 'Rev A', rows: table('Rev A (superseded)') }, { name: 'Rev B', rows: table('Rev B'), hiddenColumns: [6] }, { name: 'Notes', rows: row(1, ['call Bob']) }] });
    const r = await readPage(file, 'revisions.xlsx', { kind: 'bills' });
    expect(r).toMatchObject({ table: 'xlsx', sheets: ['Rev A', 'Rev B', 'Notes'], sheet: 'Rev B', headerRow: 3, headerFound: true, hidden: { rows: 1, columns: 1 } });
    // Shown is not chosen: Sheet stays empty, its empty entry saying so, and Check reads no sheet until one is chosen.
    expect(r).toMatchObject({ chosenSheet: null, noSheetChosen: 'None chosen ("Rev B" is shown)' });
    expect(r.messages).toEqual([
      '2 sheets hold a table: "Rev A", "Rev B". "Rev B" is shown (the active sheet when the workbook was saved), but none is chosen: Check and Send read the sheet chosen in "Sheet" above, or All sheets.',
      expect.stringMatching(/^Sheet "Rev B" holds what its reader does not see: 1 hidden row and 1 hidden column\. Show them in the workbook and check them, or choose Include in "Hidden rows" above/),
    ]);
    const skip = await readPage(file, 'revisions.xlsx', { kind: 'bills', sheet: 'Rev A', hidden: 'skip' });
    expect(skip).toMatchObject({ sheet: 'Rev A', chosenSheet: 'Rev A', noSheetChosen: null, hidden: { rows: 1, columns: 0 }, messages: [] });
    expect(skip.columns.find((c) => c.header === 'item_name')?.samples).toEqual(['Gravel']);
    const all = await readPage(file, 'revisions.xlsx', { kind: 'bills', sheet: 'all', hidden: 'include' });
    expect(all).toMatchObject({ sheet: 'all', chosenSheet: 'all', noSheetChosen: null, headerRow: 3, hidden: { rows: 2, columns: 1 }, messages: [] });
  });

  it('one sheet with a table beside a notes sheet needs no choice: Sheet\'s empty entry names it, as the CLI reads it without --sheet', async () => {
    const file = join(dir, 'one-table.xlsx');
    writeExcelXlsx(file, { activeTab: 1, sheets: [{ name: 'Bills', rows: table('March') }, { name: 'Notes', rows: row(1, ['call Bob']) }] });
    const r = await readPage(file, 'one-table.xlsx', { kind: 'bills', hidden: 'include' });
    expect(r).toMatchObject({ sheets: ['Bills', 'Notes'], sheet: 'Bills', chosenSheet: null, noSheetChosen: '"Bills" (the only sheet with a table)', headerRow: 3, messages: [] });
  });
});

describe('readPage: the better match wins a field; a mere guess never takes it', () => {
  it("an estimator's sheet: Unit Cost is the unit cost, its Amount (the line total) is left at Ignore, Item the item and Description its description", async () => {
    const r = await readPage(await files.csv('estimator.csv', [
      'Project,Estimate,Category,Subcategory,Item,Description,Qty,Unit,Amount,Unit Cost',
      'P-100,Base bid,Concrete,Footings,Ready-mix,4000 psi delivered,10,cy,1500.00,150.00',
    ]), 'estimator.csv', { kind: 'estimates' });
    expect(byHeader(r)).toMatchObject({ Item: 'item', Description: 'description', 'Unit Cost': 'unit_cost', Amount: 'ignore', Qty: 'qty', Unit: 'unit' });
    // Without a unit cost column the amount is the only price there is: still guessed.
    const alone = await readPage(await files.csv('estimator-amount.csv', ['Project,Estimate,Category,Subcategory,Item,Qty,Amount', 'P-100,Base bid,Concrete,Footings,Ready-mix,10,1500.00']), 'estimator-amount.csv', { kind: 'estimates' });
    expect(byHeader(alone).Amount).toBe('rate');
  });

  it('bills: a later Unit Price is the rate even after an Amount; a Line Description is the item description, not the plain Description before it', async () => {
    const r = await readPage(await files.csv('bill-amount-first.csv', [
      'Invoice #,Job,Supplier,Description,Line Description,Qty,Amount,Unit Price',
      'INV-1,P-100,Acme,March delivery,Ready-mix,10,1500.00,150.00',
    ]), 'bill-amount-first.csv', { kind: 'bills' });
    expect(byHeader(r)).toMatchObject({ 'Invoice #': 'bill_ref', 'Unit Price': 'rate', Amount: 'ignore', 'Line Description': 'item_description', Description: 'ignore' });
  });
});

describe('readPage: Same for every row, for each required field no column gives', () => {
  it('an estimate sheet without project, estimate name or category columns offers all three, each with the constant the state gives', async () => {
    const file = await files.csv('no-project.csv', ['Subcategory,Item,Qty,Unit Cost', 'Footings,Ready-mix,10,150.00']);
    const r = await readPage(file, 'no-project.csv', { kind: 'estimates' });
    expect(r.same).toEqual([
      { field: 'project', label: 'project', value: '' },
      { field: 'estimate_name', label: 'estimate name', value: '' },
      { field: 'category', label: 'category', value: '' },
    ]);
    const given = await readPage(file, 'no-project.csv', { kind: 'estimates', constants: { project_id: 1042, estimate_name: 'Base bid' } });
    expect(given.same.map((s) => s.value)).toEqual(['1042', 'Base bid', '']);
    // With them, nothing is still to match.
    expect(given.messages.join('\n')).not.toMatch(/Still to match/);
    // Sections give the category.
    expect((await readPage(file, 'no-project.csv', { kind: 'estimates', layout: 'sections' })).same.map((s) => s.field)).toEqual(['project', 'estimate_name']);
  });
});
