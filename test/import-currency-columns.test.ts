/**
 * Currency columns (README, "Amounts the service cannot hold"), each export as its program
 * writes it, planned in process as an import plans it: a currency column is found by its header
 * (Zoho Books' `Currency Code`, Exact Online's `Valuta`) or by its values (NetSuite's currency
 * names), whatever the mapping ignores; a row in another currency than the account's is a row
 * error naming the fix, the account's own currency by code, name or `$` (an MXN account) is read;
 * `"amountCurrency": "account"` reads NetSuite's converted amounts; `"notCurrency"` names a column
 * of `ALL` that is no currency.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planBills, planEstimates, streamBills, streamEstimates } from '../src/import/index.ts';
import { parseMappingFile, type MappingFile } from '../src/mapping/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'buildsync-currency-columns-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const VENDORS = join(import.meta.dirname, '..', 'samples', 'vendors.csv');

function write(name: string, text: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const mapping = (json: unknown): MappingFile => parseMappingFile(json, 'test mapping');
const lines = (statics: ReadonlyArray<{ line: number; status: string; message: string }>) => statics.map((s) => [s.line, s.status, s.message]);

// Zoho Books' bill export: UTF-8 with a BOM, every field quoted, CRLF.
const ZOHO = write('zoho-bills.csv', `\uFEFF${[
  '"Bill Date","Due Date","Bill ID","Vendor Name","Bill Number","Currency Code","Exchange Rate","Item Name","Description","Quantity","Rate","Item Total","Total","Bill Status"',
  '"2026-03-02","2026-04-01","4612000000081001","Keystone Electric","KE-9101","CAD","0.74","Conduit","EMT 3/4 in","40","12.50","500.00","500.00","Open"',
  '"2026-03-03","2026-04-02","4612000000081002","Northgate Glass","NG-3101","USD","1.00","Glazing","6mm clear","2","310.00","620.00","620.00","Open"',
].join('\r\n')}\r\n`);
const ZOHO_MAPPING = mapping({
  columns: { 'Bill Number': 'bill_ref', 'Vendor Name': 'vendor', 'Bill Date': 'invoice_date', 'Due Date': 'due_date', 'Item Name': 'item_name', Description: 'item_description', Quantity: 'qty', Rate: 'rate' },
  ignore: ['Bill ID', 'Currency Code', 'Exchange Rate', 'Item Total', 'Total', 'Bill Status'],
  constants: { project_id: 1042 },
});

describe("Zoho Books' Currency Code column", () => {
  it('a CAD bill in a USD account is a row error even though the mapping ignores the column; the USD bill is planned', async () => {
    const plan = await planBills(ZOHO, { mapping: ZOHO_MAPPING, vendorsFile: VENDORS, accountCurrency: 'USD' });
    expect(plan.records.map((r) => r.payload)).toEqual([
      { PRJ_ID: 1042, VENDOR_ID: 59, DUE_DATE: '2026-04-02T00:00:00', INVOICE_DATE: '2026-03-03T00:00:00', ITEMS: [{ NAME: 'Glazing', RATE: '310.00', QTY: 2, DESCRIPTION: '6mm clear' }] },
    ]);
    expect(lines(plan.statics)).toEqual([
      [2, 'invalid', `${ZOHO}:2 column Currency Code: Currency Code "CAD": the account's currency is USD (BUILDSYNC_CURRENCY): bills carry no currency, so it is never sent as USD. Convert the amount, or import the file into an account whose currency is CAD (--account NAME); if the amounts are in USD already, say so in the mapping with "amountCurrency": "account"`],
    ]);
  });

  it('a CAD account reads the CAD bill and refuses the USD one', async () => {
    const plan = await planBills(ZOHO, { mapping: ZOHO_MAPPING, vendorsFile: VENDORS, accountCurrency: 'CAD', currencyVariable: 'BUILDSYNC_CANADA_CURRENCY' });
    expect(plan.records.map((r) => r.payload)).toEqual([
      { PRJ_ID: 1042, VENDOR_ID: 57, DUE_DATE: '2026-04-01T00:00:00', INVOICE_DATE: '2026-03-02T00:00:00', ITEMS: [{ NAME: 'Conduit', RATE: '12.50', QTY: 40, DESCRIPTION: 'EMT 3/4 in' }] },
    ]);
    expect(plan.statics.map((s) => [s.line, s.status])).toEqual([[3, 'invalid']]);
    expect(plan.statics[0]!.message).toContain(`Currency Code "USD": the account's currency is CAD (BUILDSYNC_CANADA_CURRENCY)`);
  });
});

// Exact Online's purchase invoice export: Dutch headers, `;`, decimal comma, Windows-1252, CRLF.
const EXACT = write('exact-inkoopfacturen.csv', Buffer.from([
  'Boekstuknummer;Factuurdatum;Vervaldatum;Crediteur;Omschrijving;Aantal;Prijs per eenheid;Bedrag;Valuta;Project',
  '26700012;02-03-2026;01-04-2026;Acme Concrete Supply;Betonmortel C20/25;6;125,50;753,00;EUR;1042',
  '26700013;04-03-2026;03-04-2026;Northgate Glass;Veiligheidsglas, gehard;2;1.250,00;2.500,00;USD;1042',
].join('\r\n') + '\r\n', 'latin1'));
const EXACT_MAPPING = mapping({
  columns: { Boekstuknummer: 'bill_ref', Factuurdatum: 'invoice_date', Vervaldatum: 'due_date', Crediteur: 'vendor', Omschrijving: 'item_name', Aantal: 'qty', 'Prijs per eenheid': 'rate', Project: 'project_id' },
  ignore: ['Bedrag', 'Valuta'],
  dateFormat: 'DMY',
});

describe("Exact Online's Valuta column", () => {
  it('in a EUR account the EUR invoice is planned and the USD invoice is a row error', async () => {
    const plan = await planBills(EXACT, { mapping: EXACT_MAPPING, vendorsFile: VENDORS, accountCurrency: 'EUR' });
    expect(plan.records.map((r) => r.payload)).toEqual([
      { PRJ_ID: 1042, VENDOR_ID: 55, DUE_DATE: '2026-04-01T00:00:00', INVOICE_DATE: '2026-03-02T00:00:00', ITEMS: [{ NAME: 'Betonmortel C20/25', RATE: '125.50', QTY: 6 }] },
    ]);
    expect(lines(plan.statics)).toEqual([
      [3, 'invalid', `${EXACT}:3 column Valuta: Valuta "USD": the account's currency is EUR (BUILDSYNC_CURRENCY): bills carry no currency, so it is never sent as EUR. Convert the amount, or import the file into an account whose currency is USD (--account NAME); if the amounts are in EUR already, say so in the mapping with "amountCurrency": "account"`],
    ]);
  });
});

// A NetSuite saved search of vendor bills: currency names, the converted Amount beside the foreign one.
const NETSUITE = write('netsuite-bills.csv', [
  'Internal ID,Document Number,Date,Vendor,Item,Quantity,Amount,Currency,Amount (Foreign Currency),Exchange Rate,project_id',
  '8801,VB-2001,3/2/2026,Keystone Electric,Conduit,1,370.00,Canadian Dollar,500.00,0.74,1042',
  '8802,VB-2002,3/3/2026,Northgate Glass,Glazing,1,620.00,US Dollar,620.00,1.00,1042',
].join('\r\n') + '\r\n');
const NETSUITE_COLUMNS = { 'Document Number': 'bill_ref', Date: 'invoice_date', Vendor: 'vendor', Item: 'item_name', Quantity: 'qty', Amount: 'rate' };
const NETSUITE_IGNORED = ['Internal ID', 'Currency', 'Amount (Foreign Currency)', 'Exchange Rate'];

describe('NetSuite: currency names and "amountCurrency": "account"', () => {
  it('"US Dollar" is the USD account\'s own currency; "Canadian Dollar" stops its row', async () => {
    const plan = await planBills(NETSUITE, { mapping: mapping({ columns: NETSUITE_COLUMNS, ignore: NETSUITE_IGNORED, dateFormat: 'MDY' }), vendorsFile: VENDORS, accountCurrency: 'USD' });
    expect(plan.records.map((r) => r.payload)).toEqual([{ PRJ_ID: 1042, VENDOR_ID: 59, INVOICE_DATE: '2026-03-03T00:00:00', ITEMS: [{ NAME: 'Glazing', RATE: '620.00', QTY: 1 }] }]);
    expect(plan.statics.map((s) => [s.line, s.status])).toEqual([[2, 'invalid']]);
    expect(plan.statics[0]!.message).toContain(`column Currency: Currency "Canadian Dollar": the account's currency is USD (BUILDSYNC_CURRENCY)`);
  });

  it('with "amountCurrency": "account" the converted amounts are read: both bills planned as written', async () => {
    const plan = await planBills(NETSUITE, { mapping: mapping({ columns: NETSUITE_COLUMNS, ignore: NETSUITE_IGNORED, amountCurrency: 'account', dateFormat: 'MDY' }), vendorsFile: VENDORS, accountCurrency: 'USD' });
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.payload)).toEqual([
      { PRJ_ID: 1042, VENDOR_ID: 57, INVOICE_DATE: '2026-03-02T00:00:00', ITEMS: [{ NAME: 'Conduit', RATE: '370.00', QTY: 1 }] },
      { PRJ_ID: 1042, VENDOR_ID: 59, INVOICE_DATE: '2026-03-03T00:00:00', ITEMS: [{ NAME: 'Glazing', RATE: '620.00', QTY: 1 }] },
    ]);
  });

  it('a streamed plan (an import) finds a column of currency names in its first pass', async () => {
    const file = write('netsuite-renamed-stream.csv', NETSUITE_TEXT_RENAMED);
    const lines: Array<[number, string, string | undefined]> = [];
    let sent = 0;
    await streamBills(file, { mapping: mapping({ columns: NETSUITE_COLUMNS, ignore: ['Divisa'], dateFormat: 'MDY' }), vendorsFile: VENDORS, accountCurrency: 'USD' }, {
      async add(records, statics) {
        sent += records.length;
        for (const l of statics) lines.push([l.line, l.status, l.column]);
      },
    });
    expect(sent).toBe(1);
    expect(lines).toEqual([[2, 'invalid', 'Divisa']]);
  });

  it('a column of currency names under any header is a currency column (found by its values)', async () => {
    const file = write('netsuite-renamed.csv', NETSUITE_TEXT_RENAMED);
    const plan = await planBills(file, { mapping: mapping({ columns: NETSUITE_COLUMNS, ignore: ['Divisa'], dateFormat: 'MDY' }), vendorsFile: VENDORS, accountCurrency: 'USD' });
    expect(plan.statics.map((s) => [s.line, s.status, s.column])).toEqual([[2, 'invalid', 'Divisa']]);
    expect(plan.statics[0]!.message).toContain(`Divisa "Canadian Dollar": the account's currency is USD (BUILDSYNC_CURRENCY): bills carry no currency, so it is never sent as USD. Convert the amount, or import the file into an account whose currency is CAD (--account NAME); if Divisa names no currency, list it in the mapping's "notCurrency": ["Divisa"]`);
  });
});

const NETSUITE_TEXT_RENAMED = [
  'Document Number,Date,Vendor,Item,Quantity,Amount,Divisa,project_id',
  'VB-2001,3/2/2026,Keystone Electric,Conduit,1,370.00,Canadian Dollar,1042',
  'VB-2002,3/3/2026,Northgate Glass,Glazing,1,620.00,US Dollar,1042',
].join('\r\n') + '\r\n';

describe('$ is any currency written $', () => {
  it('a Mexican estimate written in $ with a Moneda column of MXN is read in an MXN account', async () => {
    const file = write('presupuesto-mx.csv', [
      'project_id,estimate_name,category,subcategory,item,qty,unit_cost,Moneda',
      '1042,Cocina,Carpintería,Gabinetes,Gabinete base,4,"$12,500.00",MXN',
      '1042,Cocina,Carpintería,Gabinetes,Cubierta de granito,1,"$38,900.50",MXN',
    ].join('\r\n') + '\r\n');
    const plan = await planEstimates(file, { mapping: mapping({ ignore: ['Moneda'] }), accountCurrency: 'MXN' });
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.payload)).toEqual([{
      PROJECT_ID: 1042, NAME: 'Cocina',
      CATS: [{ NAME: 'Carpintería', SUBCATS: [{ NAME: 'Gabinetes', ITEMS: [{ NAME: 'Gabinete base', QTY: 4, UNIT_COST: 12500 }, { NAME: 'Cubierta de granito', QTY: 1, UNIT_COST: 38900.5 }] }] }],
    }]);
  });

  it('the same file in a EUR account stops both rows at the dollar sign and the Moneda column', async () => {
    const file = write('presupuesto-mx-eur.csv', 'project_id,estimate_name,category,subcategory,item,qty,unit_cost,Moneda\r\n1042,Cocina,Carpintería,Gabinetes,Gabinete base,4,"$12,500.00",MXN\r\n');
    const plan = await planEstimates(file, { mapping: mapping({ ignore: ['Moneda'] }), accountCurrency: 'EUR' });
    expect(plan.records).toEqual([]);
    expect(plan.statics[0]!.message).toBe(
      `${file}:2 column Moneda: Moneda "MXN": the account's currency is EUR (BUILDSYNC_CURRENCY): estimates carry no currency, so it is never sent as EUR. Convert the amount, or import the file into an account whose currency is MXN (--account NAME); if the amounts are in EUR already, say so in the mapping with "amountCurrency": "account"; ` +
      `${file}:2 column unit_cost: "$12,500.00" is in dollars, but this account's amounts are in EUR (BUILDSYNC_CURRENCY); estimates and bills carry no currency: convert the amount, or import it under the account of that currency`,
    );
  });
});

describe('"notCurrency": a column of ALL that is no currency', () => {
  const file = write('estimate-areas.csv', [
    'project_id,estimate_name,category,subcategory,item,qty,unit_cost,Area',
    '1042,Renovation,Painting,Walls,Primer,12,18.50,ALL',
    '1042,Renovation,Painting,Walls,Finish coat,12,24.00,ALL',
  ].join('\r\n') + '\r\n');
  const estimate = { PROJECT_ID: 1042, NAME: 'Renovation', CATS: [{ NAME: 'Painting', SUBCATS: [{ NAME: 'Walls', ITEMS: [{ NAME: 'Primer', QTY: 12, UNIT_COST: 18.5 }, { NAME: 'Finish coat', QTY: 12, UNIT_COST: 24 }] }] }] };

  it('ALL (the Albanian lek) in every row makes Area a currency column: each row is a row error saying how to say it is none', async () => {
    const plan = await planEstimates(file, { mapping: mapping({ ignore: ['Area'] }), accountCurrency: 'USD' });
    expect(plan.records).toEqual([]);
    const area = (line: number) => `${file}:${line} column Area: Area "ALL": the account's currency is USD (BUILDSYNC_CURRENCY): estimates carry no currency, so it is never sent as USD. Convert the amount, or import the file into an account whose currency is ALL (--account NAME); if Area names no currency, list it in the mapping's "notCurrency": ["Area"]`;
    expect(lines(plan.statics)).toEqual([[2, 'invalid', area(2)], [3, 'invalid', area(3)]]);
  });

  it('a streamed plan (an import) finds the column by its values in its first pass and stops the same rows', async () => {
    const statics: Array<[number, string]> = [];
    const facts = await streamEstimates(file, { mapping: mapping({ ignore: ['Area'] }), accountCurrency: 'USD' }, {
      async add(_records, lines) {
        for (const l of lines) statics.push([l.line, l.column ?? '']);
      },
    });
    expect(facts.records).toBe(0);
    expect(statics).toEqual([[2, 'Area'], [3, 'Area']]);
  });

  it('listed under "notCurrency", the estimate is planned', async () => {
    const plan = await planEstimates(file, { mapping: mapping({ ignore: ['Area'], notCurrency: ['Area'] }), accountCurrency: 'USD' });
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.payload)).toEqual([estimate]);
  });

  it('a column of ALL beside words is no currency column', async () => {
    const mixed = write('estimate-areas-mixed.csv', [
      'project_id,estimate_name,category,subcategory,item,qty,unit_cost,Area',
      '1042,Renovation,Painting,Walls,Primer,12,18.50,ALL',
      '1042,Renovation,Painting,Walls,Finish coat,12,24.00,Kitchen',
    ].join('\r\n') + '\r\n');
    const plan = await planEstimates(mixed, { mapping: mapping({ ignore: ['Area'] }), accountCurrency: 'USD' });
    expect(plan.statics).toEqual([]);
    expect(plan.records).toHaveLength(1);
  });
});

describe('the field currency', () => {
  it('a column mapped to currency is checked and sent nowhere', async () => {
    const file = write('bills-currency-field.csv', 'bill_ref,project_id,vendor_id,item_name,rate,Devise\r\nF-1,1042,55,Béton,100.00,EUR\r\nF-2,1042,55,Béton,100.00,CHF\r\n');
    const plan = await planBills(file, { mapping: mapping({ columns: { Devise: 'currency' } }), accountCurrency: 'EUR' });
    expect(plan.records.map((r) => r.payload)).toEqual([{ PRJ_ID: 1042, VENDOR_ID: 55, ITEMS: [{ NAME: 'Béton', RATE: '100.00' }] }]);
    expect(plan.statics.map((s) => [s.line, s.status, s.column])).toEqual([[3, 'invalid', 'Devise']]);
  });
});
