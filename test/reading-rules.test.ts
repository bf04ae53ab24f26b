import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planBills, planEstimates, readingNote, type PlanOptions } from '../src/import/index.ts';
import { FileError, UsageError } from '../src/errors/index.ts';
import { parseMappingFile } from '../src/mapping/index.ts';
import { failure } from './helpers/failure.ts';

// docs/reading-rules.md: how a file writes numbers and dates is settled once per file, from the options
// or from the file itself, and a reading the file leaves open stops the import instead of guessing.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'buildsync-reading-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, lines: string[], encoding: BufferEncoding = 'utf8'): Promise<string> {
  const p = path.join(dir, name);
  await writeFile(p, Buffer.from(lines.join('\r\n') + '\r\n', encoding));
  return p;
}

const BILL_HEAD = ['bill_ref', 'project_id', 'vendor_id', 'invoice_date', 'item_name', 'rate', 'qty'];
const bills = (sep: string, rows: string[][]) => [BILL_HEAD.join(sep), ...rows.map((r) => r.join(sep))];

describe('decimal separator', () => {
  it('reads 1.234,50, 1 234,50 and 480,00 in a ;-separated file (auto: decimal comma)', async () => {
    const f = await file('eu.csv', bills(';', [
      ['B-1', '1', '55', '2026-03-02', 'Beton', '1.234,50', '2,5'],
      ['B-1', '1', '55', '', 'Pumpe', '480,00', '1'],
      ['B-1', '1', '55', '', 'Stahl', '1 234,50', '10'],
      ['B-1', '1', '55', '', 'Kleinteile', "2'500,00", '1'],
    ]));
    const plan = await planBills(f);
    expect(plan.statics).toEqual([]);
    expect(plan.records[0]!.payload.ITEMS.map((i) => [i.RATE, i.QTY])).toEqual([['1234.50', 2.5], ['480.00', 1], ['1234.50', 10], ['2500.00', 1]]);
  });

  it('refuses 2,500 and 1.234 in a decimal-comma file, naming both readings', async () => {
    const f = await file('eu-ambiguous.csv', bills(';', [['B-1', '1', '55', '', 'Beton', '2,500', '1'], ['B-2', '1', '55', '', 'Sand', '10', '1.234']]));
    const plan = await planBills(f);
    expect(plan.records).toEqual([]);
    expect(plan.statics.map((s) => s.message)).toEqual([
      `${f}:2 column rate: "2,500" can be read two ways: 2500 (with "," grouping thousands) or 2.500 (with "," as the decimal mark). Write 2500 for the first or 2,5 for the second, or say how the file writes numbers with --decimal-separator . or ,`,
      `${f}:3 column qty: "1.234" can be read two ways: 1234 (with "." grouping thousands) or 1.234 (with "." as the decimal mark). Write 1234 for the first or 1,2340 for the second, or say how the file writes numbers with --decimal-separator . or ,`,
    ]);
  });

  it('reads a comma-separated file with decimal commas when it proves them, or when told, from the flag or the mapping file', async () => {
    const f = await file('comma-decimals.csv', bills(',', [['B-1', '1', '55', '', 'Beton', '"1.234,50"', '"0,5"']]));
    // 1.234,50 and 0,5 prove the decimal comma (auto); told otherwise, they are refused with a hint.
    expect((await planBills(f)).records[0]!.payload.ITEMS[0]).toMatchObject({ RATE: '1234.50', QTY: 0.5 });
    const refused = await planBills(f, { decimalSeparator: '.' });
    expect(refused.statics[0]!.message).toContain('got "1.234,50" (if "," is the decimal separator of this file, pass --decimal-separator ,)');
    const flag = await planBills(f, { decimalSeparator: ',' });
    expect(flag.records[0]!.payload.ITEMS[0]).toMatchObject({ RATE: '1234.50', QTY: 0.5 });
    const mapped = await planBills(f, { mapping: parseMappingFile({ decimalSeparator: ',' }, 'map.json') });
    expect(mapped.records[0]!.payload.ITEMS[0]).toMatchObject({ RATE: '1234.50', QTY: 0.5 });
    const clash = await failure(planBills(f, { decimalSeparator: '.', mapping: parseMappingFile({ decimalSeparator: ',' }, 'map.json') }));
    expect(clash).toBeInstanceOf(UsageError);
    expect(clash.message).toBe('--decimal-separator . disagrees with "decimalSeparator": "," in the mapping file; give one of them.');
  });

  it('a ;-file with US amounts ($1,234.50, 1,250.00) proves the decimal point and is read', async () => {
    const f = await file('us-semicolon.csv', bills(';', [['B-1', '1', '55', '2026-03-02', 'Lumber', '$1,234.50', '2'], ['B-1', '1', '55', '', 'Delivery', '1,250.00', '1'], ['B-1', '1', '55', '', 'Nails', '2,500', '1']]));
    const p = await planBills(f);
    expect(p.statics).toEqual([]);
    expect(p.table!.rules.decimalSeparator).toBe('.');
    expect(p.records[0]!.payload.ITEMS.map((i) => i.RATE)).toEqual(['1234.50', '1250.00', '2500']);
  });

  it("a Swiss ;-file (1'234.50) is read with the decimal point", async () => {
    const f = await file('swiss.csv', bills(';', [['B-1', '1', '55', '2026-03-02', 'Beton', "1'234.50", '2'], ['B-1', '1', '55', '', 'Pumpe', '480', '1']]));
    const p = await planBills(f);
    expect(p.statics).toEqual([]);
    expect(p.records[0]!.payload.ITEMS.map((i) => [i.RATE, i.QTY])).toEqual([['1234.50', 2], ['480', 1]]);
  });

  it('a file proving both decimal marks stops, naming a line of each in file order', async () => {
    const f = await file('both-marks.csv', bills(',', [['B-1', '1', '55', '', 'A', '"1,234.50"', '1'], ['B-2', '1', '55', '', 'B', '10', '1'], ['B-3', '1', '55', '', 'C', '"480,00"', '1']]));
    const err = await failure(planBills(f));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toBe(
      `${f}: its numbers are written with both decimal marks: line 2 column rate has "1,234.50" ("." as the decimal mark), line 4 column rate has "480,00" ("," as the decimal mark). ` +
        'Correct the numbers that are wrong, or pass --decimal-separator . or , to say how the file is written (the numbers that do not fit are then reported).',
    );
    const told = await planBills(f, { decimalSeparator: '.' });
    expect(told.records.map((r) => r.payload.ITEMS[0]!.RATE)).toEqual(['1234.50', '10']);
    expect(told.statics[0]!.message).toContain('got "480,00"');
  });

  it('only number fields are weighed: a cost code 02.10 or a title 3,50 proves nothing', async () => {
    const f = await file('codes.csv', ['project_id,estimate_name,category,subcategory,item,cost_code,description,unit_cost', '1,E,C,S,I,02.10,"3,50 m",480', '1,E,C,S,J,02.110,x,"1.250,00"']);
    const p = await planEstimates(f);
    expect(p.statics).toEqual([]);
    expect(p.table!.rules.decimalSeparator).toBe(',');
    expect(p.records[0]!.payload.CATS![0]!.SUBCATS![0]!.ITEMS!.map((i) => i.UNIT_COST)).toEqual([480, 1250]);
  });

  it('no proof: "," in a ;-file, "." otherwise; 2.500 with "." is a row error naming both readings', async () => {
    const semi = await file('no-proof-semi.csv', bills(';', [['B-1', '1', '55', '', 'A', '1250', '1']]));
    expect((await planBills(semi)).table!.rules.decimalSeparator).toBe(',');
    const comma = await file('no-proof-comma.csv', bills(',', [['B-1', '1', '55', '', 'A', '2.500', '1'], ['B-2', '1', '55', '', 'B', '1250', '1']]));
    const p = await planBills(comma);
    expect(p.table!.rules.decimalSeparator).toBe('.');
    expect(p.statics.map((l) => l.message)).toEqual([
      `${comma}:2 column rate: "2.500" can be read two ways: 2500 (with "." grouping thousands) or 2.500 (with "." as the decimal mark). Write 2500 for the first or 2.5 for the second, or say how the file writes numbers with --decimal-separator . or ,`,
    ]);
  });

  it('a CSV number of more than 15 significant digits is a row error (its digits would be lost)', async () => {
    const f = await file('long-number.csv', ['project_id,estimate_name,category,subcategory,item,qty', '1,E,C,S,I,1234567890.1234567']);
    const p = await planEstimates(f);
    expect(p.statics.map((l) => l.message)).toEqual([`${f}:2 column qty: "1234567890.1234567" has 17 significant digits; a number keeps 15 (as Excel does), so the last ones would be lost. Check the value, or write it with 15 digits or fewer`]);
  });

  it('refuses NaN, Infinity, 1e309, 0x10 and abc as amounts', async () => {
    const f = await file('amounts.csv', ['project_id,estimate_name,category,subcategory,item,qty', ...['NaN', 'Infinity', '1e309', '0x10', 'abc'].map((q, i) => `${i + 1},E,C,S,I,${q}`)]);
    const plan = await planEstimates(f);
    expect(plan.records).toEqual([]);
    expect(plan.statics.map((s) => s.message)).toEqual(['NaN', 'Infinity', '1e309', '0x10', 'abc'].map((q, i) => `${f}:${i + 2} column qty: expected a number like 1,234.50, got "${q}"`));
  });
});

describe('day/month order', () => {
  const plan = (f: string, opts: PlanOptions = {}) => planBills(f, opts);

  it('a ;-file whose one date has a first part over 12 is read day first throughout', async () => {
    const f = await file('dmy.csv', bills(';', [['B-1', '1', '55', '03/02/2026', 'A', '1', '1'], ['B-2', '1', '55', '13/02/2026', 'B', '1', '1']]));
    const p = await plan(f);
    expect(p.statics).toEqual([]);
    expect(p.records.map((r) => r.payload.INVOICE_DATE)).toEqual(['2026-02-03T00:00:00', '2026-02-13T00:00:00']);
  });

  it('a file with a second part over 12 is read month first', async () => {
    const f = await file('mdy.csv', bills(';', [['B-1', '1', '55', '03/02/2026', 'A', '1', '1'], ['B-2', '1', '55', '02/13/2026', 'B', '1', '1']]));
    expect((await plan(f)).records.map((r) => r.payload.INVOICE_DATE)).toEqual(['2026-03-02T00:00:00', '2026-02-13T00:00:00']);
  });

  it('both proofs in one file stop the import, naming a line of each', async () => {
    const f = await file('both.csv', bills(',', [['B-1', '1', '55', '13/02/2026', 'A', '1', '1'], ['B-2', '1', '55', '02/13/2026', 'B', '1', '1']]));
    const err = await failure(plan(f));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toBe(
      `${f}: its dates are written in both orders: line 2 column invoice_date has "13/02/2026" (day first), line 3 column invoice_date has "02/13/2026" (month first). ` +
        'Correct the dates that are wrong, or pass --date-format DMY or MDY to say how the file is written (the dates that do not fit are then reported).',
    );
    const told = await plan(f, { dateFormat: 'DMY' });
    expect(told.records.map((r) => r.payload.INVOICE_DATE)).toEqual(['2026-02-13T00:00:00']);
    expect(told.statics[0]!.message).toContain('"02/13/2026" is not a date in the order day/month/year');
  });

  it('no proof in a ;-file with decimal commas stops and asks for --date-format, naming the line', async () => {
    const f = await file('unproved.csv', bills(';', [['B-1', '1', '55', '2026-03-01', 'A', '1,00', '1'], ['B-2', '1', '55', '03/02/2026', 'B', '1', '1']]));
    const err = await failure(plan(f));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toMatch(new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3 column invoice_date: "03/02/2026" can be read day first or month first, and nothing in the file settles it .*Pass --date-format DMY \\(day/month/year\\) or --date-format MDY`));
    expect((await plan(f, { dateFormat: 'DMY' })).records[1]!.payload.INVOICE_DATE).toBe('2026-02-03T00:00:00');
  });

  it('no proof in a plain comma file stops too, unless the account says its order (BUILDSYNC_DATE_FORMAT)', async () => {
    const f = await file('us.csv', bills(',', [['B-1', '1', '55', '03/02/2026', 'A', '1', '1'], ['B-2', '1', '55', '04/05/2026', 'B', '1', '1']]));
    const err = await failure(plan(f));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toBe(
      `${f}:2 column invoice_date: "03/02/2026" can be read day first or month first, and nothing in the file settles it (no date has a part over 12). ` +
        "Pass --date-format DMY (day/month/year) or --date-format MDY (month/day/year), set BUILDSYNC_DATE_FORMAT to the order this account's files use, or write the dates as 2026-03-02.",
    );
    const named = await failure(plan(f, { dateFormatVariable: 'BUILDSYNC_ACME_DATE_FORMAT' }));
    expect(named.message).toContain('set BUILDSYNC_ACME_DATE_FORMAT to the order');
    const account = await plan(f, { accountDateFormat: 'MDY', dateFormatVariable: 'BUILDSYNC_DATE_FORMAT' });
    expect(account.records.map((r) => r.payload.INVOICE_DATE)).toEqual(['2026-03-02T00:00:00', '2026-04-05T00:00:00']);
    expect(account.table!.rules).toEqual({ decimalSeparator: '.', dateOrder: 'MDY', dateOrderFrom: 'BUILDSYNC_DATE_FORMAT' });
    expect(readingNote(account.table!.rules)).toBe('dates read month first, as BUILDSYNC_DATE_FORMAT says');
    const uk = await plan(f, { accountDateFormat: 'DMY', dateFormatVariable: 'BUILDSYNC_DATE_FORMAT' });
    expect(uk.records.map((r) => r.payload.INVOICE_DATE)).toEqual(['2026-02-03T00:00:00', '2026-05-04T00:00:00']);
    expect(readingNote(uk.table!.rules)).toBe('dates read day first, as BUILDSYNC_DATE_FORMAT says');
  });

  it("a proof in the file wins over the account's date format, and then nothing is said", async () => {
    const f = await file('proved.csv', bills(',', [['B-1', '1', '55', '03/02/2026', 'A', '1', '1'], ['B-2', '1', '55', '03/13/2026', 'B', '1', '1']]));
    const p = await plan(f, { accountDateFormat: 'DMY' });
    expect(p.records.map((r) => r.payload.INVOICE_DATE)).toEqual(['2026-03-02T00:00:00', '2026-03-13T00:00:00']);
    expect(readingNote(p.table!.rules)).toBeUndefined();
  });

  it('month names, ISO dates and no dates at all never stop a file', async () => {
    const f = await file('named.csv', bills(',', [['B-1', '1', '55', '"March 9, 2026"', 'A', '1', '1'], ['B-2', '1', '55', '2 Mar 2026', 'B', '1', '1'], ['B-3', '1', '55', '9-Mar-2026', 'C', '1', '1'], ['B-4', '1', '55', '', 'D', '1', '1']]));
    const p = await plan(f);
    expect(p.records.map((r) => r.payload.INVOICE_DATE)).toEqual(['2026-03-09T00:00:00', '2026-03-02T00:00:00', '2026-03-09T00:00:00', undefined]);
    expect(readingNote(p.table!.rules)).toBeUndefined();
  });

  it('only date fields are weighed: a title 03/02/2026 proves and asks nothing', async () => {
    const f = await file('title.csv', ['bill_ref,project_id,vendor_id,title,invoice_date,item_name,rate', 'B-1,1,55,13/02/2026,2026-03-02,A,1', 'B-2,1,55,03/02/2026,03/14/2026,B,1']);
    const p = await plan(f);
    expect(p.statics).toEqual([]);
    expect(p.records.map((r) => r.payload.INVOICE_DATE)).toEqual(['2026-03-02T00:00:00', '2026-03-14T00:00:00']);
  });

  it('ISO dates carry no evidence and never stop a file', async () => {
    const f = await file('iso.csv', bills(';', [['B-1', '1', '55', '2026-03-02', 'A', '1', '1']]));
    expect((await plan(f)).records[0]!.payload.INVOICE_DATE).toBe('2026-03-02T00:00:00');
  });
});

describe('encoding', () => {
  it('a UTF-8 file with one stray Windows-1252 byte stops, naming the line and column of that byte', async () => {
    const p = path.join(dir, 'stray.csv');
    const head = Buffer.from('project_id,estimate_name,category\r\n1,Café,Cuisine\r\n2,Bar', 'utf8');
    await writeFile(p, Buffer.concat([head, Buffer.from([0xe9]), Buffer.from(',Salle\r\n', 'utf8')]));
    const err = await failure(planEstimates(p));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toMatch(new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3 column 6: a byte that is not UTF-8 after UTF-8 text \\(byte 0xE9 at offset \\d+\\): the file mixes encodings`));
  });

  it('a Windows-1252 file followed by UTF-8 text stops too (either order)', async () => {
    const p = path.join(dir, 'stray-after.csv');
    await writeFile(p, Buffer.concat([Buffer.from('project_id,estimate_name,category\r\n1,Caf', 'utf8'), Buffer.from([0xe9]), Buffer.from(',C\r\n2,Café,C\r\n', 'utf8')]));
    const err = await failure(planEstimates(p));
    expect(err.message).toMatch(/:3 column 6: a UTF-8 sequence after Windows-1252 text \(byte 0xC3 at offset \d+\): the file mixes encodings/);
  });

  it('--encoding cp1252 reads such a file as Windows-1252 throughout', async () => {
    const p = path.join(dir, 'forced.csv');
    await writeFile(p, Buffer.from('project_id,estimate_name,category\r\n1,Caf\xe9,C\r\n', 'latin1'));
    expect((await planEstimates(p, { encoding: 'cp1252' })).records[0]!.label).toBe('project 1 / Café');
    expect((await planEstimates(p)).records[0]!.label).toBe('project 1 / Café');
  });
});

describe('nothing in a cell is dropped', () => {
  it('a value under a column whose header name is empty stops the import, naming line and column', async () => {
    const f = await file('unnamed.csv', ['project_id,,estimate_name,category', '1,,E,C', '2,oops,F,C']);
    const err = await failure(planEstimates(f));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toBe(`${f}:3 column 2: this cell holds "oops", but its column has no header name (header line 1), so it belongs to no field. Give the column a header (a known column, or one the mapping file ignores), or delete the value.`);
  });

  it('an empty column with an empty header (spreadsheet leftovers) is fine', async () => {
    const f = await file('leftover.csv', ['project_id,estimate_name,category,,', '1,E,C,,']);
    expect((await planEstimates(f)).records).toHaveLength(1);
  });
});
