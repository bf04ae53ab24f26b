/**
 * A Xero UK bill export with VAT, imported with `--mapping xero` through the queue into the
 * sandbox (README, "Amounts the service cannot hold"): each line's `TaxAmount` is sent as the
 * line's TAX_PERCENT, the percentage with the fewest decimals that gives Xero's amount rounded
 * per line (3 × 4.99 = 14.97 at 20 % is 2.994, which Xero writes 2.99); a zero-rated line is 0;
 * a tax amount that no percentage gives is a row error naming both numbers, and its bill is not
 * sent. The sandbox receives exactly these TAX_PERCENTs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeProjectIds, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { XERO_MAPPING } from '../src/mapping/index.ts';
import { planBills } from '../src/import/index.ts';

let rig: E2eRig;
let project: number;
let file: string;
let vendors: string;

// Xero's bill export as it writes it: UTF-8, CRLF, dates day first, the user's project_id column added last.
const HEADER = 'ContactName,EmailAddress,POAddressLine1,POAddressLine2,POAddressLine3,POAddressLine4,POCity,PORegion,POPostalCode,POCountry,InvoiceNumber,Reference,InvoiceDate,DueDate,Total,InventoryItemCode,Description,Quantity,UnitAmount,Discount,AccountCode,TaxType,TaxAmount,TrackingName1,TrackingOption1,TrackingName2,TrackingOption2,Currency,Type,Sent,Status,project_id';
const row = (contact: string, number: string, date: string, due: string, total: string, description: string, qty: string, unit: string, taxType: string, tax: string, p: number) =>
  `${contact},,,,,,,,,,${number},,${date},${due},${total},,${description},${qty},${unit},,429,${taxType},${tax},,,,,GBP,ACCPAY,,AUTHORISED,${p}`;

beforeAll(async () => {
  rig = await startE2eRig();
  [project] = freeProjectIds(rig.sandbox) as [number];
  vendors = rig.file('vendors.csv', 'vendor,vendor_id\r\nHarlow Builders Merchants,61\r\nPennine Plant Hire,62\r\nSevern Electrical,63\r\n');
  file = rig.file('xero-uk-vat.csv', [
    HEADER,
    row('Harlow Builders Merchants', 'HBM-4410', '02/03/2026', '01/04/2026', '1525.15', 'Cement 25kg', '3', '4.99', '20% (VAT on Expenses)', '2.99', project),
    row('Harlow Builders Merchants', 'HBM-4410', '02/03/2026', '01/04/2026', '1525.15', 'Timber 47x100 C24', '12', '8.35', '20% (VAT on Expenses)', '20.04', project),
    row('Harlow Builders Merchants', 'HBM-4410', '02/03/2026', '01/04/2026', '1525.15', 'Site cabin hire', '1', '1150.00', '20% (VAT on Expenses)', '230.00', project),
    row('Harlow Builders Merchants', 'HBM-4410', '02/03/2026', '01/04/2026', '1525.15', 'Delivery', '1', '0.00', 'Zero Rated Expenses', '0.00', project),
    row('Pennine Plant Hire', 'PPH-0097', '04/03/2026', '03/04/2026', '252.00', 'Domestic fuel for site heater', '1', '240.00', '5% (VAT on Expenses)', '12.00', project),
    // A flat £20.00 typed over the VAT of 1,412.50: no percentage with two decimals gives it.
    row('Severn Electrical', 'SE-1203', '05/03/2026', '04/04/2026', '1443.84', 'Cable tray', '25', '56.50', '20% (VAT on Expenses)', '20.00', project),
    row('Severn Electrical', 'SE-1203', '05/03/2026', '04/04/2026', '1443.84', 'Fixings', '7', '1.35', '20% (VAT on Expenses)', '1.89', project),
  ].join('\r\n') + '\r\n');
});
afterAll(() => rig?.close());

describe('Xero UK VAT through the queue', () => {
  it('sends each TaxAmount as the exact TAX_PERCENT that gives it (per-line rounding included); a tax no percentage gives stops its bill', async () => {
    const { report, summary } = await rig.importFile('bills', file, { mapping: XERO_MAPPING, vendorsFile: vendors, accountCurrency: 'GBP', dateFormat: 'DMY' });
    expect(summary.counts).toMatchObject({ created: 2, failed: 0, unknown: 0, invalidRows: 2 });
    const received = rig.sandbox.bills().map((b) => JSON.parse(b.info) as Record<string, unknown>);
    expect(received).toEqual([
      {
        PRJ_ID: String(project), VENDOR_ID: '61', DUE_DATE: '2026-04-01T00:00:00', INVOICE_DATE: '2026-03-02T00:00:00',
        ITEMS: [
          { NAME: 'Cement 25kg', RATE: '4.99', QTY: 3, TAX_PERCENT: 20 },
          { NAME: 'Timber 47x100 C24', RATE: '8.35', QTY: 12, TAX_PERCENT: 20 },
          { NAME: 'Site cabin hire', RATE: '1150.00', QTY: 1, TAX_PERCENT: 20 },
          { NAME: 'Delivery', RATE: '0.00', QTY: 1, TAX_PERCENT: 0 },
        ],
      },
      { PRJ_ID: String(project), VENDOR_ID: '62', DUE_DATE: '2026-04-03T00:00:00', INVOICE_DATE: '2026-03-04T00:00:00', ITEMS: [{ NAME: 'Domestic fuel for site heater', RATE: '240.00', QTY: 1, TAX_PERCENT: 5 }] },
    ]);
    expect(report.filter((l) => l.status === 'invalid').map((l) => [l.line, l.message])).toEqual([
      [7, `${file}:7 column TaxAmount: TaxAmount 20.00 is no tax of the line's 25 × 56.50 = 1412.50 at a percentage with at most two decimals (qty × rate × percent / 100, rounded to cents); the service takes a tax percentage per line. Correct the tax amount or the line, or give the line's rate in a tax_percent column instead`],
      [8, 'not sent: line 7 of this bill is invalid'],
    ]);
  });
});

describe('Xero amounts that include their VAT', () => {
  it('LineAmountTypes "Inclusive" with a tax amount is a row error (the tax would count twice); "Exclusive" is read', async () => {
    const inclusive = rig.file('xero-uk-inclusive.csv', [
      '*ContactName,*InvoiceNumber,*InvoiceDate,*Description,*Quantity,*UnitAmount,*AccountCode,*TaxType,TaxAmount,LineAmountTypes,Currency,project_id',
      'Severn Electrical,SE-1301,06/03/2026,Cable tray,1,120.00,429,20% (VAT on Expenses),20.00,Inclusive,GBP,1042',
      'Severn Electrical,SE-1302,06/03/2026,Cable tray,1,100.00,429,20% (VAT on Expenses),20.00,Exclusive,GBP,1042',
    ].join('\r\n') + '\r\n');
    const plan = await planBills(inclusive, { mapping: XERO_MAPPING, vendorsFile: vendors, accountCurrency: 'GBP', dateFormat: 'DMY' });
    expect(plan.records.map((r) => r.payload)).toEqual([{ PRJ_ID: 1042, VENDOR_ID: 63, INVOICE_DATE: '2026-03-06T00:00:00', ITEMS: [{ NAME: 'Cable tray', RATE: '100.00', QTY: 1, TAX_PERCENT: 20 }] }]);
    expect(plan.statics.map((l) => [l.line, l.status, l.message])).toEqual([
      [2, 'invalid', `${inclusive}:2 column LineAmountTypes: LineAmountTypes "Inclusive": the unit amounts include their tax (TaxAmount 20.00), while the service adds each line's TAX_PERCENT to its rate, so the tax would count twice. Export the bills with tax-exclusive amounts`],
    ]);
  });
});
