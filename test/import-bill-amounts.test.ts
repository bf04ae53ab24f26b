/**
 * Amounts the service cannot hold are never dropped (README, "Amounts the service cannot hold"):
 * a Xero bill export with a credit note (ACCPAYCREDIT), a VOIDED and a DELETED bill, a 10 %
 * discount, a TaxAmount of 282.50 (20 % of 25 × 56.50, sent as TAX_PERCENT 20) and a bill in EUR, read with `--mapping xero` (headers with
 * Xero's leading `*`), and amounts written with currency symbols and codes, each imported as a
 * dry run through the spawned CLI: the exact payloads, the report, the summary and the exit code.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BillFiles, VENDORS } from './helpers/bill-dry-run.ts';

const files = new BillFiles();
afterAll(() => files.close());

const VALID = 'dry run: valid, not sent';

const XERO = files.write('xero-bills.csv', [
  '*ContactName,POCity,*InvoiceNumber,Reference,*InvoiceDate,*DueDate,*Description,*Quantity,*UnitAmount,Discount,*AccountCode,*TaxType,TaxAmount,TrackingName1,TrackingOption1,Currency,Type,Status,project_id',
  'Keystone Electric,Springfield,KE-9001,PO 4471,13/03/2026,12/04/2026,Temporary lighting strings,12,"85.00",10,5000,Tax Exempt,0.00,Job,Library,USD,ACCPAY,AUTHORISED,1042',
  'Keystone Electric,Springfield,KE-9001,PO 4471,13/03/2026,12/04/2026,Panel tie-in,1,"2,940.00",,5000,Tax Exempt,0.00,Job,Library,USD,ACCPAY,AUTHORISED,1042',
  'Northgate Glass,Springfield,NG-3001,,18/03/2026,17/04/2026,6mm clear float glass,25,"56.50",,5000,Sales Tax,282.50,,,USD,ACCPAY,PAID,1042',
  'Northgate Glass,Springfield,CN-0042,Chipped pane,19/03/2026,,Credit for chipped pane,1,"150.00",,5000,Tax Exempt,0.00,,,USD,ACCPAYCREDIT,AUTHORISED,1042',
  'Blue River Plumbing,,BR-1000,,23/03/2026,22/04/2026,Leak repair,1,"375.00",,5000,Tax Exempt,0.00,,,USD,ACCPAY,VOIDED,1042',
  'Blue River Plumbing,,BR-1001,,24/03/2026,23/04/2026,Leak repair again,1,"375.00",,5000,Tax Exempt,0.00,,,USD,ACCPAY,DELETED,1042',
  'Acme Concrete Supply,,AC-5000,,25/03/2026,24/04/2026,Ready-mix,10,"120.00",,5000,Tax Exempt,0.00,,,EUR,ACCPAY,DRAFT,1042',
]);
const XERO_ARGS = ['--mapping', 'xero', '--vendors', VENDORS];

const CURRENCY_EUR = `${XERO}:8 column Currency: Currency "EUR": the account's currency is USD (BUILDSYNC_CURRENCY): bills carry no currency, so it is never sent as USD. Convert the amount, or import the file into an account whose currency is EUR (--account NAME); if the amounts are in USD already, say so in the mapping with "amountCurrency": "account"`;
const KEYSTONE = (lighting: string) => ({
  PRJ_ID: '1042', VENDOR_ID: '57', DUE_DATE: '2026-04-12T00:00:00', INVOICE_DATE: '2026-03-13T00:00:00', NOTES: 'PO 4471',
  ITEMS: [{ NAME: 'Temporary lighting strings', RATE: lighting, QTY: 12, TAX_PERCENT: 0 }, { NAME: 'Panel tie-in', RATE: '2940.00', QTY: 1, TAX_PERCENT: 0 }],
});
const NORTHGATE = { PRJ_ID: '1042', VENDOR_ID: '59', DUE_DATE: '2026-04-17T00:00:00', INVOICE_DATE: '2026-03-18T00:00:00', ITEMS: [{ NAME: '6mm clear float glass', RATE: '56.50', QTY: 25, TAX_PERCENT: 20 }] };
const CREDIT_NOTE = { PRJ_ID: '1042', VENDOR_ID: '59', INVOICE_DATE: '2026-03-19T00:00:00', NOTES: 'Chipped pane', ITEMS: [{ NAME: 'Credit for chipped pane', RATE: '-150.00', QTY: 1, TAX_PERCENT: 0 }] };

describe('--mapping xero: Type, Status, Discount, TaxAmount and Currency', () => {
  it('the discount and the EUR bill are row errors, the tax amount is sent as its TAX_PERCENT; the credit note and the VOIDED and DELETED bills are ignored; exit 1', async () => {
    const r = await files.dryRun(XERO, XERO_ARGS);
    expect(r.code, r.stderr).toBe(1);
    expect(r.payloads).toEqual([NORTHGATE]);
    expect(r.lines).toEqual([
      [2, 'invalid', `${XERO}:2 column Discount: Discount "10": the service's bills hold no discount, so it would be lost. Pass --discounts apply (mapping key "discounts": "apply") to send each rate less its discount, or remove the discount`],
      [3, 'invalid', 'not sent: line 2 of this bill is invalid'],
      [4, 'skipped', VALID],
      [5, 'ignored', 'Type "ACCPAYCREDIT": a credit; the service\'s bills hold no credit notes, so it is not sent (--credits negative sends it as a bill with negative rates)'],
      [6, 'ignored', 'Status "VOIDED"'],
      [7, 'ignored', 'Status "DELETED"'],
      [8, 'invalid', CURRENCY_EUR],
    ]);
    expect(r.stderr).toContain('dry run: 7 rows -> 1 bill to send, 3 invalid rows');
    expect(r.ignoredSummary).toBe('3 rows ignored: kind 2, credit 1');
  });

  it('--discounts apply --ignore-tax --credits negative: 85.00 less 10 % is 76.50, the mapped tax amount still sent as its percentage, the credit note negative; EUR still stops its bill', async () => {
    const r = await files.dryRun(XERO, [...XERO_ARGS, '--discounts', 'apply', '--ignore-tax', '--credits', 'negative']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.payloads).toEqual([KEYSTONE('76.50'), NORTHGATE, CREDIT_NOTE]);
    expect(r.lines).toEqual([
      [2, 'skipped', VALID], [3, 'skipped', VALID], [4, 'skipped', VALID], [5, 'skipped', VALID],
      [6, 'ignored', 'Status "VOIDED"'], [7, 'ignored', 'Status "DELETED"'],
      [8, 'invalid', CURRENCY_EUR],
    ]);
    expect(r.ignoredSummary).toBe('2 rows ignored: kind 2');
  });

  it('a discounted rate that is not a whole number of cents is a row error, never rounded', async () => {
    const file = files.write('xero-odd-discount.csv', [
      '*ContactName,*InvoiceNumber,*InvoiceDate,*Description,*Quantity,*UnitAmount,Discount,Type,Status,project_id',
      'Keystone Electric,KE-9002,13/03/2026,Wire nuts,100,"0.05",10,ACCPAY,AUTHORISED,1042',
    ]);
    const r = await files.dryRun(file, [...XERO_ARGS, '--discounts', 'apply']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.lines).toEqual([[2, 'invalid', `${file}:2 column *UnitAmount: the rate 0.05 less the discount of 10 % is not a whole number of cents; a rate is never rounded. Write the discounted rate instead of the discount`]]);
  });

  it('an account in EUR reads the EUR bill (and refuses the USD ones)', async () => {
    const r = await files.dryRun(XERO, [...XERO_ARGS, '--discounts', 'apply', '--ignore-tax'], { BUILDSYNC_CURRENCY: 'EUR' });
    expect(r.code, r.stderr).toBe(1);
    expect(r.payloads).toEqual([{ PRJ_ID: '1042', VENDOR_ID: '55', DUE_DATE: '2026-04-24T00:00:00', INVOICE_DATE: '2026-03-25T00:00:00', ITEMS: [{ NAME: 'Ready-mix', RATE: '120.00', QTY: 10, TAX_PERCENT: 0 }] }]);
    expect(r.lines.filter(([, status]) => status === 'invalid').map(([line, , message]) => [line, message.replace(/^.*?: /, '')])).toEqual([
      [2, 'Currency "USD": the account\'s currency is EUR (BUILDSYNC_CURRENCY): bills carry no currency, so it is never sent as EUR. Convert the amount, or import the file into an account whose currency is USD (--account NAME); if the amounts are in EUR already, say so in the mapping with "amountCurrency": "account"'],
      [3, 'Currency "USD": the account\'s currency is EUR (BUILDSYNC_CURRENCY): bills carry no currency, so it is never sent as EUR. Convert the amount, or import the file into an account whose currency is USD (--account NAME); if the amounts are in EUR already, say so in the mapping with "amountCurrency": "account"'],
      [4, 'Currency "USD": the account\'s currency is EUR (BUILDSYNC_CURRENCY): bills carry no currency, so it is never sent as EUR. Convert the amount, or import the file into an account whose currency is USD (--account NAME); if the amounts are in EUR already, say so in the mapping with "amountCurrency": "account"'],
    ]);
  });

  it('a Currency column is never silenced, not even by a mapping file that ignores it', async () => {
    const file = files.write('ignored-currency.csv', ['project_id,vendor_id,bill_ref,item_name,rate,Currency', '1042,57,B-1,Panel,"100.00",USD', '1042,57,B-2,Fuse,"10.00",GBP']);
    const mapping = files.write('ignore-currency.json', ['{"ignore": ["Currency"]}']);
    const r = await files.dryRun(file, ['--mapping', mapping]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.payloads).toEqual([{ PRJ_ID: '1042', VENDOR_ID: '57', ITEMS: [{ NAME: 'Panel', RATE: '100.00' }] }]);
    expect(r.lines[1]).toEqual([3, 'invalid', `${file}:3 column Currency: Currency "GBP": the account's currency is USD (BUILDSYNC_CURRENCY): bills carry no currency, so it is never sent as USD. Convert the amount, or import the file into an account whose currency is GBP (--account NAME); if the amounts are in USD already, say so in the mapping with "amountCurrency": "account"`]);
  });

  it('a user\'s own mapping that ignores a tax column has decided (a preset\'s ignore never does, above)', async () => {
    const file = files.write('tax-column.csv', ['project_id,vendor_id,bill_ref,item_name,rate,VAT', '1042,57,B-1,Panel,"100.00","20.00"']);
    const ignored = await files.dryRun(file, ['--mapping', files.write('ignore-vat.json', ['{"ignore": ["VAT"]}'])]);
    expect(ignored.code, ignored.stderr).toBe(0);
    expect(ignored.payloads).toEqual([{ PRJ_ID: '1042', VENDOR_ID: '57', ITEMS: [{ NAME: 'Panel', RATE: '100.00' }] }]);
  });
});

describe('amounts written with a currency symbol or code', () => {
  const file = files.write('currency-amounts.csv', [
    'project_id,vendor_id,bill_ref,item_name,rate',
    '1042,57,E-1,Panel,"€1,250.00"',
    "1042,57,E-2,Breakers,CHF 1'250.00",
    '1042,57,E-3,Wire,£12.00',
    '1042,57,E-4,Fuse,EUR 10',
    '1042,57,E-5,Tape,$4.50',
    '1042,57,E-6,Box,"(€12.00)"',
  ]);
  const refused = (line: number, written: string, shown: string, account: string, code = shown) =>
    [line, 'invalid', `${file}:${line} column rate: ${JSON.stringify(written)} is in ${shown}, but the account's currency is ${account} (BUILDSYNC_CURRENCY): bills carry no currency, so it is never sent as ${account}. Convert the amount, or import the file into an account whose currency is ${code} (--account NAME)`];

  it('an account in USD: only the dollar amount is read; €, CHF, £ and EUR are row errors naming the currency', async () => {
    const r = await files.dryRun(file);
    expect(r.code, r.stderr).toBe(1);
    expect(r.payloads).toEqual([{ PRJ_ID: '1042', VENDOR_ID: '57', ITEMS: [{ NAME: 'Tape', RATE: '4.50' }] }]);
    expect(r.lines).toEqual([
      refused(2, '€1,250.00', 'EUR', 'USD'),
      refused(3, "CHF 1'250.00", 'CHF', 'USD'),
      refused(4, '£12.00', 'GBP', 'USD'),
      refused(5, 'EUR 10', 'EUR', 'USD'),
      [6, 'skipped', VALID],
      refused(7, '(€12.00)', 'EUR', 'USD'),
    ]);
  });

  it('an account in EUR reads €1,250.00, EUR 10 and (€12.00) (a bill below zero: sent as written with --credits negative); $ is any currency written $, refused', async () => {
    const r = await files.dryRun(file, ['--credits', 'negative'], { BUILDSYNC_CURRENCY: 'EUR' });
    expect(r.code, r.stderr).toBe(1);
    expect(r.payloads).toEqual([
      { PRJ_ID: '1042', VENDOR_ID: '57', ITEMS: [{ NAME: 'Panel', RATE: '1250.00' }] },
      { PRJ_ID: '1042', VENDOR_ID: '57', ITEMS: [{ NAME: 'Fuse', RATE: '10.00' }] },
      { PRJ_ID: '1042', VENDOR_ID: '57', ITEMS: [{ NAME: 'Box', RATE: '-12.00' }] },
    ]);
    expect(r.lines.filter(([, status]) => status === 'invalid')).toEqual([
      refused(3, "CHF 1'250.00", 'CHF', 'EUR'),
      refused(4, '£12.00', 'GBP', 'EUR'),
      refused(6, '$4.50', 'dollars', 'EUR', 'USD'),
    ]);
  });

  it("an account in CHF reads CHF 1'250.00 as 1250.00", async () => {
    const r = await files.dryRun(file, [], { BUILDSYNC_CURRENCY: 'CHF' });
    expect(r.payloads).toEqual([{ PRJ_ID: '1042', VENDOR_ID: '57', ITEMS: [{ NAME: 'Breakers', RATE: '1250.00' }] }]);
  });
});
