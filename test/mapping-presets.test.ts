import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { planBills, projectResolverFromListing } from '../src/import/index.ts';
import { BILL_COLUMNS, QUICKBOOKS_MAPPING, XERO_MAPPING, isBuiltInPreset, parseMappingFile, presetMapping, resolveColumns } from '../src/mapping/index.ts';

function headersOf(file: string): string[] {
  return (parse(readFileSync(file, 'utf8'), { to_line: 1 }) as string[][])[0]!;
}

// The projects of a default sandbox that the samples name (ID, number, name).
const resolver = projectResolverFromListing([
  { ID: 10009, PROJECT_NUMBER: 'P-2022-0004', NAME: 'Smith, Jones & Partners — Office Fit-out' },
  { ID: 10025, PROJECT_NUMBER: 'P-2019-0015', NAME: 'Silver Lake Library Addition' },
  { ID: 10037, PROJECT_NUMBER: 'P-2024-0023', NAME: 'Foxglove Retail Center Roof Replacement' },
  { ID: 10039, PROJECT_NUMBER: 'P-2020-0025', NAME: 'Elm Street Lofts Kitchen Remodel' },
  { ID: 10053, PROJECT_NUMBER: 'P-2019-0032', NAME: 'Riverside Warehouse Roof Replacement' },
]);

describe('presetMapping names the built-in mappings', () => {
  it('returns quickbooks and xero (any case), nothing else', () => {
    expect(presetMapping('quickbooks')).toBe(QUICKBOOKS_MAPPING);
    expect(presetMapping('Xero')).toBe(XERO_MAPPING);
    expect(presetMapping('sage')).toBeUndefined();
    expect(presetMapping('map.json')).toBeUndefined();
    expect(isBuiltInPreset(XERO_MAPPING)).toBe(true);
    expect(isBuiltInPreset(parseMappingFile(XERO_MAPPING, 'copy.json'))).toBe(false);
  });

  it('are valid mapping files that map only to bill columns', () => {
    for (const preset of [QUICKBOOKS_MAPPING, XERO_MAPPING]) {
      expect(parseMappingFile(preset, 'preset')).toEqual(preset);
      for (const column of Object.values(preset.columns)) expect(BILL_COLUMNS).toContain(column);
    }
  });
});

describe('--mapping quickbooks reads the US and international editions', () => {
  it('US: "Bill No.", "Vendor"', () => {
    const cols = resolveColumns(headersOf('samples/quickbooks-bills.csv'), BILL_COLUMNS, presetMapping('quickbooks'), 'samples/quickbooks-bills.csv');
    expect(cols.source('bill_ref')?.header).toBe('Bill No.');
    expect(cols.source('vendor')?.header).toBe('Vendor');
    expect(cols.source('project_name')?.header).toBe('Customer');
  });

  it('outside the US: "Bill No" without the period and "Supplier"', () => {
    const headers = headersOf('samples/quickbooks-bills-intl.csv');
    expect(headers).toContain('Supplier');
    expect(headers).toContain('Bill No');
    const cols = resolveColumns(headers, BILL_COLUMNS, presetMapping('quickbooks'), 'samples/quickbooks-bills-intl.csv');
    expect(cols.columns()).toEqual(['bill_ref', 'vendor', 'invoice_date', 'due_date', 'notes', 'item_name', 'rate', 'project_name']);
    expect(cols.source('bill_ref')?.header).toBe('Bill No');
    expect(cols.source('vendor')?.header).toBe('Supplier');
  });

  it('plans the international sample: day-first dates, vendors by name, projects by customer', async () => {
    const plan = await planBills('samples/quickbooks-bills-intl.csv', { resolver, vendorsFile: 'samples/vendors.csv', mapping: presetMapping('quickbooks') });
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.label)).toEqual(['bill QB-3101 / project 10039 / vendor 59', 'bill QB-3102 / project 10053 / vendor 58']);
    expect(plan.records[0]!.payload).toMatchObject({
      INVOICE_DATE: '2026-03-16T00:00:00',
      DUE_DATE: '2026-04-15T00:00:00',
      ITEMS: [{ NAME: 'Tempered splashback panels', RATE: '2340.00' }, { NAME: 'Installation', RATE: '640.00' }],
    });
  });
});

describe('--mapping xero reads Xero\'s bill export', () => {
  const XERO_READ = { vendor: 'ContactName', bill_ref: 'InvoiceNumber', invoice_date: 'InvoiceDate', due_date: 'DueDate', notes: 'Reference', item_name: 'Description', qty: 'Quantity', rate: 'UnitAmount', tax_amount: 'TaxAmount' };

  it('with the leading * of required columns, reading TaxAmount as tax_amount, ignoring addresses, account and tax codes, tracking, currency and discount', () => {
    const headers = headersOf('samples/xero-bills.csv');
    expect(headers).toContain('*ContactName');
    const cols = resolveColumns(headers, BILL_COLUMNS, presetMapping('xero'), 'samples/xero-bills.csv');
    for (const [column, name] of Object.entries(XERO_READ)) {
      expect([column, cols.source(column)?.header.replace(/^\*/, '')]).toEqual([column, name]);
    }
    expect(cols.columns().sort()).toEqual([...Object.keys(XERO_READ), 'project_number'].sort());
  });

  it('without the *, as some Xero exports write them', () => {
    const headers = headersOf('samples/xero-bills.csv').map((h) => h.replace(/^\*/, ''));
    const cols = resolveColumns([...headers, 'TaxTotal', 'InvoiceAmountDue', 'LineAmount', 'LineAmountTypes', 'Status'], BILL_COLUMNS, presetMapping('xero'), 'xero.csv');
    for (const [column, name] of Object.entries(XERO_READ)) expect([column, cols.source(column)?.header]).toEqual([column, name]);
  });

  it('a column Xero does not write is still an error, with a suggestion', () => {
    expect(() => resolveColumns(['*ContactName', '*InvoiceNumber', 'Supplier Code'], BILL_COLUMNS, presetMapping('xero'), 'xero.csv')).toThrow(/unknown column "Supplier Code"\. Did you mean: "Supplier Code" → vendor_id\?/);
  });

  it('plans the sample: lines grouped by invoice number, day-first dates, quantity and unit amount', async () => {
    const plan = await planBills('samples/xero-bills.csv', { resolver, vendorsFile: 'samples/vendors.csv', mapping: presetMapping('xero') });
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.label)).toEqual([
      'bill KE-8812 / project 10025 / vendor 57',
      'bill NG-2207 / project 10039 / vendor 59',
      'bill BR-0931 / project 10037 / vendor 58',
    ]);
    expect(plan.records[0]!.payload).toMatchObject({
      INVOICE_DATE: '2026-03-13T00:00:00',
      DUE_DATE: '2026-04-12T00:00:00',
      NOTES: 'PO 4471',
      ITEMS: [{ NAME: 'Temporary lighting strings', QTY: 12, RATE: '85.00' }, { NAME: 'Panel tie-in', QTY: 1, RATE: '2940.00' }],
    });
  });
});
