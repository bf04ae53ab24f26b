import { describe, expect, it } from 'vitest';
import { isENotation, keyText, sameKeyText } from '../src/values/index.ts';
import { parseRef } from '../src/mapping/record-key.ts';
import { CellValueError, VendorDirectory } from '../src/mapping/index.ts';
import { ledgerFieldOf } from '../src/ledger/record-key.ts';
import { planBills, planEstimates } from '../src/import/index.ts';
import { tempCsvFiles } from './helpers/temp-csv.ts';

// Record keys are compared as a person reads them: one rule (src/values/key-text.ts) for bill_ref,
// vendor names, estimate, category and subcategory names, and the ledger's fields.

const { csv } = tempCsvFiles('buildsync-keys-');

describe('the key rule', () => {
  it.each([
    ['INV-7', 'inv-7'],
    ['inv-7 ', 'inv-7'],
    ['  Inv-7', 'inv-7'],
    ['Framing', 'framing'],
    ['FRAMING ', 'framing'],
    ['Framing   Labor', 'framing labor'],
    ['Framing\tLabor', 'framing labor'],
    ['Framing\u00a0Labor', 'framing labor'], // no-break space
    ['\u00a0Framing\u00a0', 'framing'],
    ['Framing\u202fLabor', 'framing labor'], // narrow no-break space
    ['Framing\u2003Labor', 'framing labor'], // em space
    ['Framing\u3000Labor', 'framing labor'], // ideographic space
    ['Fram\u200bing', 'framing'], // zero-width space: nobody sees it
    ['\ufeffINV-7', 'inv-7'], // a byte-order mark left at the start of a cell
    ['ＩＮＶ-７', 'inv-7'], // full-width letters and digits (NFKC)
    ['ﬁnish', 'finish'], // a ligature (NFKC)
    ['STRASSE', 'strasse'],
    ['Straße', 'strasse'], // full case folding: ß is SS
    ['ΟΔΟΣ', 'οδοσ'],
    ['οδος', 'οδοσ'], // a final sigma folds like the capital
    ['Café Supply', 'café supply'],
    ['Cafe\u0301 Supply', 'café supply'], // a combining accent (NFKC composes it)
    ['ẞ', 'ss'],
    ['Ünal Yapı', 'ünal yapı'], // the dotless ı stays itself (it is not i to a Turkish reader)
  ])('%j compares as %j', (written, key) => {
    expect(keyText(written)).toBe(key);
    // The rule is a fixed point: a key is its own key (the ledger's migration relies on it).
    expect(keyText(key)).toBe(key);
  });

  it('keeps apart what a reader tells apart', () => {
    expect(sameKeyText('INV-7', 'INV-17')).toBe(false);
    expect(sameKeyText('INV-7', 'INV 7')).toBe(false);
    expect(sameKeyText('Framing Labor', 'FramingLabor')).toBe(false);
    expect(sameKeyText('Résumé', 'Resume')).toBe(false);
    expect(sameKeyText('INV-7', 'inv-7\u00a0')).toBe(true);
    expect(sameKeyText('Yapı', 'Yapi')).toBe(false);
  });

  it('does not depend on the machine locale (Turkish dotted and dotless i stay what Unicode says)', () => {
    expect(keyText('TITLE')).toBe('title');
    expect(keyText('I')).toBe('i');
  });

  it('knows Excel E-notation, and only that form', () => {
    for (const e of ['1.23457E+11', '1E+15', '1,23457E+11', ' 4.5E-05 ', '-1.2E+10']) expect(isENotation(e), e).toBe(true);
    for (const t of ['INV-7', '12E34', 'E+11', '1.23457E11', '123456789012', 'QB-1E+11', '1.2E+1234']) expect(isENotation(t), t).toBe(false);
  });

  it('refuses an E-notation reference with what to do, and reads any other as text', () => {
    expect(() => parseRef('1.23457E+11')).toThrow(CellValueError);
    expect(() => parseRef('1.23457E+11')).toThrow(/"1\.23457E\+11" is a number in E-notation.*its last digits are lost.*Format the column as Text/);
    expect(parseRef(' INV-7 ')).toBe('INV-7');
    // An .xlsx number cell holds every digit: it is its digits, never E-notation.
    expect(parseRef(123456789012)).toBe('123456789012');
    expect(parseRef('')).toBeUndefined();
  });

  it("gives a bill's ledger field the key of its bill_ref, and leaves other record keys alone", () => {
    expect(ledgerFieldOf('bill:ref:INV-7|1042|55')).toBe('bill:ref:inv-7|1042|55');
    expect(ledgerFieldOf('bill:ref:inv-7|1042|55')).toBe('bill:ref:inv-7|1042|55');
    expect(ledgerFieldOf('bill:ref:Inv  7|1042|55')).toBe('bill:ref:inv 7|1042|55');
    expect(ledgerFieldOf('estimate:project:1042')).toBe('estimate:project:1042');
    expect(ledgerFieldOf('bill:row:ABCDEF0123456789#0')).toBe('bill:row:ABCDEF0123456789#0');
  });
});

describe('rows keyed by the rule', () => {
  it('makes INV-7 and inv-7 one bill, named as first written, and notes the other spelling on its row', async () => {
    const vendors = await csv('vendors.csv', ['vendor,vendor_id', 'Acme Supply,55']);
    const file = await csv('bills.csv', [
      'bill_ref,project_id,vendor,item_name,rate',
      'INV-7,1042,Acme Supply,Ready-mix,100.00',
      'inv-7 ,1042,ACME  SUPPLY,Pump truck,50.00',
      '"INV-7\u00a0",1042,acme supply,Fuel,1.00',
      'INV-8,1042,Acme\u00a0Supply,Studs,3.10',
    ]);
    const plan = await planBills(file, { vendorsFile: vendors });
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => [r.key, r.label, r.lines, r.notes])).toEqual([
      ['bill:ref:INV-7|1042|55', 'bill INV-7 / project 1042 / vendor 55', [2, 3, 4], [[3, '"inv-7" is sent as "INV-7", as first written on line 2']]],
      ['bill:ref:INV-8|1042|55', 'bill INV-8 / project 1042 / vendor 55', [5], undefined],
    ]);
    expect(plan.records[0]!.payload.ITEMS.map((i) => i.NAME)).toEqual(['Ready-mix', 'Pump truck', 'Fuel']);
  });

  it('groups bills by vendor names compared as keys when the names cannot be resolved', async () => {
    const vendors = await csv('other-vendors.csv', ['vendor,vendor_id', 'Other Co,1']);
    const file = await csv('unresolved-vendors.csv', ['bill_ref,project_id,vendor,item_name,rate', 'INV-7,1042,Acme Supply,A,1', 'INV-7,1042,ACME  supply,B,2']);
    const plan = await planBills(file, { vendorsFile: vendors });
    // A vendor the vendors file lacks: every row is invalid, but both rows are one bill.
    expect(new Set(plan.statics.map((s) => s.record))).toEqual(new Set(['bill INV-7 / project 1042 / vendor "Acme Supply"']));
  });

  it('makes a bill_ref Excel wrote in E-notation a row error, and its bill is not sent', async () => {
    const file = await csv('e-notation.csv', ['bill_ref,project_id,vendor_id,item_name,rate', '1.23457E+11,1042,55,Ready-mix,100.00', 'INV-9,1042,55,Studs,3.10']);
    const plan = await planBills(file, {});
    expect(plan.records.map((r) => r.key)).toEqual(['bill:ref:INV-9|1042|55']);
    expect(plan.statics).toHaveLength(1);
    expect(plan.statics[0]).toMatchObject({ line: 2, status: 'invalid' });
    expect(plan.statics[0]!.message).toMatch(/^.*e-notation\.csv:2 column bill_ref: "1\.23457E\+11" is a number in E-notation/);
  });

  it('reads a vendors file whose names differ only in spaces and case as one vendor', async () => {
    const vendors = await csv('vendors-spaces.csv', ['vendor,vendor_id', '"Acme\u00a0Supply",55', 'ACME  SUPPLY,55']);
    const directory = await VendorDirectory.load(vendors);
    expect(directory.lookup(' acme supply ')).toBe(55);
    expect(directory.lookup('Acme\u2009Supply')).toBe(55);
  });

  it('makes "Framing", "framing" and "FRAMING " one category, and estimate names one estimate, as first written', async () => {
    const file = await csv('estimate.csv', [
      'project_id,estimate_name,category,subcategory,item,qty,unit_cost',
      '1042,Kitchen remodel,Framing,Walls,Studs,10,3.5',
      '1042,kitchen  remodel,framing,walls,Nails,1,9',
      '1042,Kitchen remodel,FRAMING ,Roof,Rafters,4,20',
      '1042,Kitchen remodel,Electrical,Rough-in,Wire,1,80',
      '1042,KITCHEN REMODEL,framing,ROOF,Sheathing,2,30',
    ]);
    const plan = await planEstimates(file, {});
    expect(plan.statics).toEqual([]);
    expect(plan.records).toHaveLength(1);
    const r = plan.records[0]!;
    expect([r.key, r.label, r.lines]).toEqual(['estimate:project:1042', 'project 1042 / Kitchen remodel', [2, 3, 4, 5, 6]]);
    expect(r.payload).toEqual({
      NAME: 'Kitchen remodel',
      PROJECT_ID: 1042,
      CATS: [
        {
          NAME: 'Framing',
          SUBCATS: [
            { NAME: 'Walls', ITEMS: [{ NAME: 'Studs', QTY: 10, UNIT_COST: 3.5 }, { NAME: 'Nails', QTY: 1, UNIT_COST: 9 }] },
            { NAME: 'Roof', ITEMS: [{ NAME: 'Rafters', QTY: 4, UNIT_COST: 20 }, { NAME: 'Sheathing', QTY: 2, UNIT_COST: 30 }] },
          ],
        },
        { NAME: 'Electrical', SUBCATS: [{ NAME: 'Rough-in', ITEMS: [{ NAME: 'Wire', QTY: 1, UNIT_COST: 80 }] }] },
      ],
    });
    expect(r.notes).toEqual([
      [3, '"kitchen  remodel" is sent as "Kitchen remodel", as first written on line 2; "framing" is sent as "Framing", as first written on line 2; "walls" is sent as "Walls", as first written on line 2'],
      [4, '"FRAMING" is sent as "Framing", as first written on line 2'],
      [6, '"KITCHEN REMODEL" is sent as "Kitchen remodel", as first written on line 2; "framing" is sent as "Framing", as first written on line 2; "ROOF" is sent as "Roof", as first written on line 4'],
    ]);
  });

  it('keeps the first spelling and its line when an estimate is sealed and reopened (rows not adjacent)', async () => {
    const file = await csv('interleaved.csv', [
      'project_id,estimate_name,category,subcategory,item,qty,unit_cost',
      '1042,Kitchen,Framing,Walls,Studs,1,1',
      '2001,Garage,Doors,Frames,Jamb,1,1',
      '1042,kitchen,FRAMING,walls,Nails,1,1',
    ]);
    const plan = await planEstimates(file, {});
    const kitchen = plan.records.find((r) => r.key === 'estimate:project:1042')!;
    expect(kitchen.payload.CATS).toEqual([{ NAME: 'Framing', SUBCATS: [{ NAME: 'Walls', ITEMS: [{ NAME: 'Studs', QTY: 1, UNIT_COST: 1 }, { NAME: 'Nails', QTY: 1, UNIT_COST: 1 }] }] }]);
    expect(kitchen.notes).toEqual([[4, '"kitchen" is sent as "Kitchen", as first written on line 2; "FRAMING" is sent as "Framing", as first written on line 2; "walls" is sent as "Walls", as first written on line 2']]);
  });
});
