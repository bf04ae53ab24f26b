import { describe, expect, it } from 'vitest';
import { FileError } from '../src/errors/index.ts';
import { BILL_COLUMNS, ESTIMATE_COLUMNS, parseMappingFile, presetMapping, resolveColumns, suggestColumn } from '../src/mapping/index.ts';

function failure(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

const BILL_HEADERS = ['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate'];

describe('suggestColumn: the known column an unknown header most likely is', () => {
  it('knows the names other systems give the columns', () => {
    const cases: Array<[string, string]> = [
      ['UOM', 'unit'], ['Unit of measure', 'unit'], ['Units', 'unit'],
      ['Unit Price', 'unit_cost'], ['Price', 'unit_cost'], ['Cost each', 'unit_cost'],
      ['Quantity', 'qty'],
      ['Job', 'project_number'], ['Job number', 'project_number'], ['Job #', 'project_number'],
      ['Job name', 'project_name'],
      ['Estimate', 'estimate_name'], ['Estimate title', 'estimate_name'],
      ['Cat', 'category'], ['Category name', 'category'],
      ['Amount', 'rate'], ['Line amount', 'rate'],
      ['Description', 'description'],
    ];
    for (const [header, column] of cases) expect([header, suggestColumn(header, ESTIMATE_COLUMNS)]).toEqual([header, column]);
  });

  it('proposes only columns the importer knows: the same header is another column for bills', () => {
    const cases: Array<[string, string]> = [
      ['Supplier', 'vendor'], ['Vendor name', 'vendor'],
      ['Invoice #', 'bill_ref'], ['Invoice number', 'bill_ref'], ['Bill #', 'bill_ref'],
      ['Description', 'item_description'],
      ['Unit Price', 'rate'], // bills have no unit_cost
      ['Item', 'item_name'],
      ['Qty.', 'qty'],
    ];
    for (const [header, column] of cases) expect([header, suggestColumn(header, BILL_COLUMNS)]).toEqual([header, column]);
    expect(suggestColumn('Supplier', ESTIMATE_COLUMNS)).toBeUndefined();
    expect(suggestColumn('UOM', ['project_id', 'qty'])).toBeUndefined();
  });

  it('reads misspellings by edit distance, transpositions included, within a threshold that grows with length', () => {
    expect(suggestColumn('Quantiy', BILL_COLUMNS)).toBe('qty');
    expect(suggestColumn('Catgeory', ESTIMATE_COLUMNS)).toBe('category');
    expect(suggestColumn('Estimat Name', ESTIMATE_COLUMNS)).toBe('estimate_name');
    expect(suggestColumn('invoice_dat', BILL_COLUMNS)).toBe('invoice_date');
    expect(suggestColumn('Recieved Date', BILL_COLUMNS)).toBe('received_date');
    expect(suggestColumn('*ContactName', BILL_COLUMNS)).toBe('vendor');
    // Short or far-off names are not guessed.
    expect(suggestColumn('red', BILL_COLUMNS)).toBeUndefined();
    expect(suggestColumn('Colour', ESTIMATE_COLUMNS)).toBeUndefined();
    expect(suggestColumn('Internal Ref', ESTIMATE_COLUMNS)).toBeUndefined();
    expect(suggestColumn('', ESTIMATE_COLUMNS)).toBeUndefined();
    expect(suggestColumn('x'.repeat(5000), ESTIMATE_COLUMNS)).toBeUndefined();
  });
});

describe('an unknown column names the known column it most likely is', () => {
  it('says "did you mean" and gives the mapping that reads them so', () => {
    const err = failure(() => resolveColumns([...BILL_HEADERS, 'UOM', 'Unit Price'].filter((h) => h !== 'rate'), BILL_COLUMNS, undefined, 'bills.csv'));
    expect(err).toBeInstanceOf(FileError);
    expect(err).toMatchObject({ code: 'BUILDSYNC_FILE_UNREADABLE', file: 'bills.csv' });
    expect(err.message).toBe(
      'bills.csv:1: unknown columns "UOM", "Unit Price". Did you mean: "UOM" → unit, "Unit Price" → rate? ' +
        'To read them so, pass --mapping MAP.json with {"columns": {"UOM": "unit", "Unit Price": "rate"}}; to skip them, {"ignore": ["UOM", "Unit Price"]}. ' +
        `Known columns: ${BILL_COLUMNS.join(', ')} (case, spaces, _, - and . do not matter).`,
    );
  });

  it('with some headers it cannot place, proposes reading the others and skipping those', () => {
    const err = failure(() => resolveColumns(['project_id', 'estimate_name', 'UOM', 'Colour'], ESTIMATE_COLUMNS, undefined, 'est.csv', 2));
    expect(err.message).toMatch(
      /^est\.csv:2: unknown columns "UOM", "Colour"\. Did you mean: "UOM" → unit\? To read that one so and skip the others, pass --mapping MAP\.json with \{"columns": \{"UOM": "unit"\}, "ignore": \["Colour"\]\}\. Known columns: project_id, /,
    );
  });

  it('without any guess, says how to skip them', () => {
    const err = failure(() => resolveColumns(['project_id', 'Colour'], ESTIMATE_COLUMNS, undefined, 'est.csv'));
    expect(err.message).toMatch(/^est\.csv:1: unknown column "Colour"\. Known columns: .*\. To skip it, pass --mapping MAP\.json with \{"ignore": \["Colour"\]\}; to read one as a known column, \{"columns": \{"Colour": "<column>"\}\}\.$/);
  });

  it('never proposes a column the file already has, nor one column for two headers', () => {
    const err = failure(() => resolveColumns(['project_id', 'estimate_name', 'qty', 'Quantity', 'UOM', 'Units'], ESTIMATE_COLUMNS, undefined, 'est.csv'));
    expect(err.message).toMatch(/unknown columns "Quantity", "UOM", "Units"\. Did you mean: "UOM" → unit\? /);
  });

  it('quotes at most 200 characters of the input: a 100,000-column header names ten and counts the rest', () => {
    const headers = ['project_id', 'estimate_name', ...Array.from({ length: 100_000 }, (_, i) => `extra column ${i}`)];
    const err = failure(() => resolveColumns(headers, ESTIMATE_COLUMNS, undefined, 'wide.csv'));
    expect(err.message).toMatch(/^wide\.csv:1: unknown columns "extra column 0", "extra column 1", .*"extra column 9" and 99990 more\. /);
    expect(err.message.length).toBeLessThan(ESTIMATE_COLUMNS.join(', ').length + 1000);
  });

  it('cuts a long header instead of quoting all of it', () => {
    const long = `Notes about the job ${'x'.repeat(100_000)}`;
    const err = failure(() => resolveColumns(['project_id', 'estimate_name', long, 'UOM'], ESTIMATE_COLUMNS, undefined, 'est.csv'));
    expect(err.message).toMatch(/unknown columns "Notes about the job x+…"/);
    expect(err.message.length).toBeLessThan(ESTIMATE_COLUMNS.join(', ').length + 700);
    const quoted = err.message.match(/"Notes about the job x*…"/)![0];
    expect(quoted.length).toBeLessThanOrEqual(62);
  });
});

describe('the errors file\'s own columns', () => {
  it('source_line and error are not unknown; their indexes are on the ColumnMap', () => {
    const cols = resolveColumns(['project_id', 'estimate_name', 'Source Line', 'ERROR'], ESTIMATE_COLUMNS, undefined, 'fix.csv');
    expect(cols.sourceLineIndex).toBe(2);
    expect(cols.errorIndex).toBe(3);
    expect(cols.columns()).toEqual(['project_id', 'estimate_name']);
  });

  it('are -1 in a file without them, and empty headers are still skipped', () => {
    const cols = resolveColumns(['project_id', '', 'estimate_name', ' '], ESTIMATE_COLUMNS, undefined, 'est.csv');
    expect([cols.sourceLineIndex, cols.errorIndex]).toEqual([-1, -1]);
    expect(cols.columns()).toEqual(['project_id', 'estimate_name']);
  });

  it('may still be renamed or ignored by a mapping file', () => {
    const mapping = parseMappingFile({ columns: { error: 'general_notes' }, ignore: ['source_line'] }, 'map.json');
    const cols = resolveColumns(['project_id', 'estimate_name', 'source_line', 'error'], ESTIMATE_COLUMNS, mapping, 'est.csv');
    expect(cols.source('general_notes')).toEqual({ column: 'general_notes', header: 'error', index: 3 });
    expect([cols.sourceLineIndex, cols.errorIndex]).toEqual([-1, -1]);
  });
});

describe('a mapping entry naming a header the file does not have', () => {
  it('is an error naming the entry, the closest header and the file\'s headers', () => {
    const mapping = parseMappingFile({ columns: { 'Bill Number': 'bill_ref', 'Unit Cost': 'rate' } }, 'map.json');
    const err = failure(() => resolveColumns(['Bill No', 'project_id', 'vendor_id', 'item_name', 'Unit Costs'], BILL_COLUMNS, mapping, 'bills.csv'));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toBe(
      'bills.csv:1: the mapping file names headers that bills.csv does not have: ' +
        '"columns" entry "Bill Number" → bill_ref (did you mean "Bill No"?), "columns" entry "Unit Cost" → rate (did you mean "Unit Costs"?). ' +
        'The header row has "Bill No", "project_id", "vendor_id", "item_name", "Unit Costs". ' +
        'Correct these entries to the header as written (case, spaces, _, - and . do not matter), or remove them.',
    );
  });

  it('covers "ignore" entries too', () => {
    const mapping = parseMappingFile({ ignore: ['Internal ref'] }, 'map.json');
    const err = failure(() => resolveColumns([...BILL_HEADERS, 'Internal_Reference'], BILL_COLUMNS, mapping, 'bills.csv'));
    expect(err.message).toMatch(/^bills\.csv:1: the mapping file names a header that bills\.csv does not have: "ignore" entry "Internal ref" \(did you mean "Internal_Reference"\?\)\. The header row has .*, or remove it\.$/);
  });

  it('is allowed with lenientMapping, and always for the built-in presets, which name alternatives', () => {
    const mapping = parseMappingFile({ columns: { Customer: 'project_id', Project: 'project_id' }, ignore: ['Memo'] }, 'map.json');
    expect(() => resolveColumns(['Project', 'qty'], ESTIMATE_COLUMNS, mapping, 'est.csv')).toThrow(FileError);
    const cols = resolveColumns(['Project', 'qty'], ESTIMATE_COLUMNS, mapping, 'est.csv', 1, { lenientMapping: true });
    expect(cols.source('project_id')?.header).toBe('Project');
    const qb = resolveColumns(['Bill No.', 'Vendor', 'Line Description', 'Line Amount', 'Customer'], BILL_COLUMNS, presetMapping('quickbooks'), 'qb.csv');
    expect(qb.columns()).toEqual(['bill_ref', 'vendor', 'item_name', 'rate', 'project_name']);
  });

  it('lists at most ten of the file\'s headers', () => {
    const mapping = parseMappingFile({ ignore: ['Nope'] }, 'map.json');
    const headers = [...BILL_HEADERS, ...Array.from({ length: 995 }, (_, i) => `c${i}`)];
    const err = failure(() => resolveColumns(headers, BILL_COLUMNS, { ...mapping, ignore: ['Nope', ...headers.slice(5)] }, 'bills.csv'));
    expect(err.message).toMatch(/The header row has "bill_ref", "project_id", "vendor_id", "item_name", "rate", "c0", "c1", "c2", "c3", "c4" and 990 more\./);
  });
});
