/**
 * Only real records are sent (README, "Kinds of rows in accounting exports"): a QuickBooks
 * transaction list with a Type column, a Sage audit trail read with a mapping file's `kinds`
 * rules, and a Type column that no rule covers, each imported as a dry run through the spawned
 * CLI: the exact payloads, the `ignored` rows with their reasons, the summary's counts and the
 * exit code. Credits are ignored unless --credits negative, which sends them with negative rates.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BillFiles, VENDORS } from './helpers/bill-dry-run.ts';

const files = new BillFiles();
afterAll(() => files.close());

const VALID = 'dry run: valid, not sent';

/** A QuickBooks "Transaction List by Vendor" export: a bill with a split line, a vendor credit, a bill payment, another bill. */
const QUICKBOOKS = [
  'Type,Bill No.,Vendor,Bill Date,Due Date,Memo,Account,Line Description,Line Amount,project_id',
  'Bill,QB-3001,Keystone Electric,03/02/2026,04/01/2026,Panel upgrade,Subcontractors,200A panel,"3,480.00",1042',
  ',QB-3001,Keystone Electric,03/02/2026,04/01/2026,Panel upgrade,Subcontractors,Breakers,"412.50",1042',
  'Vendor Credit,VC-17,Keystone Electric,03/05/2026,,Returned breakers,Subcontractors,Returned breakers,"120.00",1042',
  'Bill Payment (Check),4410,Keystone Electric,03/20/2026,,,Checking,Payment QB-3001,"3,892.50",1042',
  'Bill,QB-3002,Summit Lumber & Millwork,03/09/2026,04/08/2026,,Job Materials,2x6 studs,"1,250.00",1042',
];

const KEYSTONE_BILL = {
  PRJ_ID: '1042', VENDOR_ID: '57', DUE_DATE: '2026-04-01T00:00:00', INVOICE_DATE: '2026-03-02T00:00:00', NOTES: 'Panel upgrade',
  ITEMS: [{ NAME: '200A panel', RATE: '3480.00' }, { NAME: 'Breakers', RATE: '412.50' }],
};
const SUMMIT_BILL = { PRJ_ID: '1042', VENDOR_ID: '56', DUE_DATE: '2026-04-08T00:00:00', INVOICE_DATE: '2026-03-09T00:00:00', ITEMS: [{ NAME: '2x6 studs', RATE: '1250.00' }] };
const CREDIT_IGNORED = 'Type "Vendor Credit": a credit; the service\'s bills hold no credit notes, so it is not sent (--credits negative sends it as a bill with negative rates)';

describe('--mapping quickbooks: the Type column', () => {
  const file = files.write('quickbooks-transactions.csv', QUICKBOOKS);

  it('sends the bills only: the vendor credit is ignored (credit), the bill payment ignored (kind); exit 0', async () => {
    const r = await files.dryRun(file, ['--mapping', 'quickbooks', '--vendors', VENDORS]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.payloads).toEqual([KEYSTONE_BILL, SUMMIT_BILL]);
    expect(r.lines).toEqual([
      [2, 'skipped', VALID],
      [3, 'skipped', VALID],
      [4, 'ignored', CREDIT_IGNORED],
      [5, 'ignored', 'Type "Bill Payment (Check)"'],
      [6, 'skipped', VALID],
    ]);
    expect(r.stderr).toContain('dry run: 5 rows -> 2 bills to send, 0 invalid rows');
    expect(r.ignoredSummary).toBe('2 rows ignored: kind 1, credit 1');
  });

  it('--credits negative sends the credit as a bill whose rates are negative', async () => {
    const r = await files.dryRun(file, ['--mapping', 'quickbooks', '--vendors', VENDORS, '--credits', 'negative']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.payloads).toEqual([
      KEYSTONE_BILL,
      { PRJ_ID: '1042', VENDOR_ID: '57', INVOICE_DATE: '2026-03-05T00:00:00', NOTES: 'Returned breakers', ITEMS: [{ NAME: 'Returned breakers', RATE: '-120.00' }] },
      SUMMIT_BILL,
    ]);
    expect(r.lines.map(([line, status]) => [line, status])).toEqual([[2, 'skipped'], [3, 'skipped'], [4, 'skipped'], [5, 'ignored'], [6, 'skipped']]);
    expect(r.ignoredSummary).toBe('1 row ignored: kind 1');
  });

  it('a credit the export already writes negative stays negative (−|rate|), never flipped back', async () => {
    const negative = files.write('quickbooks-negative-credit.csv', [QUICKBOOKS[0]!, QUICKBOOKS[3]!.replace('"120.00"', '"-120.00"')]);
    const r = await files.dryRun(negative, ['--mapping', 'quickbooks', '--vendors', VENDORS, '--credits', 'negative', '--date-format', 'MDY']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.payloads).toEqual([{ PRJ_ID: '1042', VENDOR_ID: '57', INVOICE_DATE: '2026-03-05T00:00:00', NOTES: 'Returned breakers', ITEMS: [{ NAME: 'Returned breakers', RATE: '-120.00' }] }]);
  });

  it('a split line under an ignored payment is ignored with it; a Type in no list is a row error naming it (exit 1)', async () => {
    const odd = files.write('quickbooks-odd.csv', [
      QUICKBOOKS[0]!,
      'Bill Payment (Check),4410,Keystone Electric,03/20/2026,,,Checking,Payment QB-3001,"3,000.00",1042',
      ',4410,Keystone Electric,03/20/2026,,,Checking,Payment QB-3002,"892.50",1042',
      'Invoice,INV-9,Keystone Electric,03/21/2026,,,Income,Resale,"50.00",1042',
      QUICKBOOKS[5]!,
    ]);
    const r = await files.dryRun(odd, ['--mapping', 'quickbooks', '--vendors', VENDORS]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.payloads).toEqual([SUMMIT_BILL]);
    expect(r.lines).toEqual([
      [2, 'ignored', 'Type "Bill Payment (Check)"'],
      [3, 'ignored', 'Type "Bill Payment (Check)" (line 2: this split line continues it)'],
      [4, 'invalid', `${odd}:4 column Type: Type "Invoice" is in none of the mapping's "kinds" (bill, credit, ignore) lists; add it to one of them`],
      [5, 'skipped', VALID],
    ]);
    expect(r.ignoredSummary).toBe('2 rows ignored: kind 2');
  });

  it('an empty Type with no transaction above is a row error', async () => {
    const top = files.write('quickbooks-empty-top.csv', [QUICKBOOKS[0]!, QUICKBOOKS[2]!, QUICKBOOKS[5]!]);
    const r = await files.dryRun(top, ['--mapping', 'quickbooks', '--vendors', VENDORS, '--date-format', 'MDY']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.payloads).toEqual([SUMMIT_BILL]);
    expect(r.lines[0]).toEqual([2, 'invalid', `${top}:2 column Type: Type is empty and no row above says what this row is; fill it with one of the values the mapping's "kinds" (bill, credit, ignore) lists`]);
  });
});

describe('a Type column without kinds rules is never silently dropped', () => {
  const mapping = join(files.dir, 'ignore-type.json');
  writeFileSync(mapping, JSON.stringify({ columns: { 'Bill No.': 'bill_ref', Vendor: 'vendor', 'Line Description': 'item_name', 'Line Amount': 'rate' }, ignore: ['Type', 'Bill Date', 'Due Date', 'Memo', 'Account'] }));

  it('a mapping that ignores Type: each row whose Type is not Bill is a row error naming it', async () => {
    const file = files.write('ignored-type.csv', QUICKBOOKS);
    const r = await files.dryRun(file, ['--mapping', mapping, '--vendors', VENDORS]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.payloads).toEqual([
      { PRJ_ID: '1042', VENDOR_ID: '57', ITEMS: [{ NAME: '200A panel', RATE: '3480.00' }, { NAME: 'Breakers', RATE: '412.50' }] },
      { PRJ_ID: '1042', VENDOR_ID: '56', ITEMS: [{ NAME: '2x6 studs', RATE: '1250.00' }] },
    ]);
    const rules = '"kinds": {"column": "Type", "bill": [...], "credit": [...], "ignore": [...]}';
    expect(r.lines.filter(([, status]) => status === 'invalid')).toEqual([
      [4, 'invalid', `${file}:4 column Type: Type "Vendor Credit": this column says what each row is, and without rules for it only "Bill" rows are bills. Say what the others are with ${rules} in a mapping file (--mapping MAP.json)`],
      [5, 'invalid', `${file}:5 column Type: Type "Bill Payment (Check)": this column says what each row is, and without rules for it only "Bill" rows are bills. Say what the others are with ${rules} in a mapping file (--mapping MAP.json)`],
    ]);
    expect(r.ignoredSummary).toBeUndefined();
  });

  it('without a mapping that names it, a Type column stops the import as an unknown column (exit 2)', async () => {
    const file = files.write('plain-with-type.csv', ['Type,bill_ref,project_id,vendor_id,item_name,rate', 'Bill,B-1,1042,57,Panel,"100.00"', 'Vendor Credit,C-1,1042,57,Return,"20.00"']);
    const r = await files.dryRun(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown column "Type"/);
  });
});

describe('a Sage-style export read with a mapping file of kinds rules (README example)', () => {
  const vendors = join(files.dir, 'sage-vendors.csv');
  writeFileSync(vendors, 'vendor,vendor_id\r\nKEYST001,57\r\nNORTH001,59\r\n');
  const mapping = join(files.dir, 'sage.json');
  writeFileSync(mapping, JSON.stringify({
    columns: { 'Account Reference': 'vendor', Reference: 'bill_ref', Date: 'invoice_date', Details: 'item_name', 'Net Amount': 'rate', 'Project Refn': 'project_id' },
    ignore: ['Nominal A/C Ref', 'Tax Code', 'Tax Amount'],
    kinds: { column: 'Type', bill: ['PI'], credit: ['PC'], ignore: ['PP', 'PA'] },
    dateFormat: 'DMY',
  }));
  const file = files.write('sage-audit-trail.csv', [
    'Type,Account Reference,Nominal A/C Ref,Date,Reference,Details,Net Amount,Tax Code,Tax Amount,Project Refn',
    'PI,KEYST001,5000,13/03/2026,SI-2001,Cable trays,"1,040.00",T1,208.00,1042',
    'PI,KEYST001,5000,13/03/2026,SI-2001,Fixings,"60.00",T1,12.00,1042',
    'PC,NORTH001,5000,19/03/2026,SC-0042,Chipped pane,"150.00",T1,30.00,1042',
    'PP,KEYST001,1200,30/03/2026,CHQ 881,Payment,"1,320.00",T9,0.00,1042',
  ]);

  it('PI bills are sent, the PC credit ignored (credit), the PP payment ignored (kind); the ignored Tax Amount is the mapping\'s decision', async () => {
    const r = await files.dryRun(file, ['--mapping', mapping, '--vendors', vendors]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.payloads).toEqual([{ PRJ_ID: '1042', VENDOR_ID: '57', INVOICE_DATE: '2026-03-13T00:00:00', ITEMS: [{ NAME: 'Cable trays', RATE: '1040.00' }, { NAME: 'Fixings', RATE: '60.00' }] }]);
    expect(r.lines).toEqual([
      [2, 'skipped', VALID],
      [3, 'skipped', VALID],
      [4, 'ignored', 'Type "PC": a credit; the service\'s bills hold no credit notes, so it is not sent (--credits negative sends it as a bill with negative rates)'],
      [5, 'ignored', 'Type "PP"'],
    ]);
    expect(r.ignoredSummary).toBe('2 rows ignored: kind 1, credit 1');
  });

  it('"credits": "negative" in the mapping file sends the PC credit negative', async () => {
    const negative = join(files.dir, 'sage-negative.json');
    writeFileSync(negative, JSON.stringify({ ...JSON.parse(readFileSync(mapping, 'utf8')), credits: 'negative' }));
    const r = await files.dryRun(file, ['--mapping', negative, '--vendors', vendors]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.payloads).toContainEqual({ PRJ_ID: '1042', VENDOR_ID: '59', INVOICE_DATE: '2026-03-19T00:00:00', ITEMS: [{ NAME: 'Chipped pane', RATE: '-150.00' }] });
    expect(r.payloads).toHaveLength(2);
    expect(r.ignoredSummary).toBe('1 row ignored: kind 1');
  });
});

describe('kinds values are compared as every key is (values/key-text.ts): NFKC, ß as ss, any spaces', () => {
  const vendors = join(files.dir, 'german-vendors.csv');
  writeFileSync(vendors, 'vendor,vendor_id\r\nKEYST001,57\r\n');
  const mapping = join(files.dir, 'german.json');
  writeFileSync(mapping, JSON.stringify({
    columns: { Lieferant: 'vendor', Belegnummer: 'bill_ref', Text: 'item_name', Betrag: 'rate', Projekt: 'project_id' },
    kinds: { column: 'Type', bill: ['Rechnung'], credit: ['Gutschrift'], ignore: ['Abschlußzahlung'] },
  }));

  it('"ABSCHLUSSZAHLUNG" is the rule\'s "Abschlußzahlung", full-width "Ｒｅｃｈｎｕｎｇ" the rule\'s "Rechnung"; refs "RE-Straße-1" and "RE-STRASSE-1" are one bill', async () => {
    const file = files.write('german-kinds.csv', [
      'Type,Lieferant,Belegnummer,Text,Betrag,Projekt',
      'Rechnung,KEYST001,RE-Straße-1,Kabelkanal,100.00,1042',
      'Ｒｅｃｈｎｕｎｇ,KEYST001,RE-STRASSE-1,Befestigung,20.00,1042',
      'ABSCHLUSSZAHLUNG,KEYST001,Z-9,Zahlung,120.00,1042',
      '\u00a0ABSCHLUẞZAHLUNG,KEYST001,Z-10,Zahlung,5.00,1042',
    ]);
    const r = await files.dryRun(file, ['--mapping', mapping, '--vendors', vendors]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.payloads).toEqual([{ PRJ_ID: '1042', VENDOR_ID: '57', ITEMS: [{ NAME: 'Kabelkanal', RATE: '100.00' }, { NAME: 'Befestigung', RATE: '20.00' }] }]);
    expect(r.lines.map(([line, status, message]) => [line, status, status === 'ignored' ? message : ''])).toEqual([
      [2, 'skipped', ''],
      [3, 'skipped', ''],
      [4, 'ignored', 'Type "ABSCHLUSSZAHLUNG"'],
      [5, 'ignored', 'Type "ABSCHLUẞZAHLUNG"'],
    ]);
  });
});
