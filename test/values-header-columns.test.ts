import { describe, expect, it } from 'vitest';
import { ConfigError, FileError } from '../src/errors/index.ts';
import { normalizeHeader, parseMappingFile, resolveColumns } from '../src/mapping/index.ts';

const KNOWN = ['project_id', 'estimate_name', 'category', 'unit_cost', 'qty', 'notes_general'] as const;

function failure(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

describe('matching headers to columns', () => {
  it('compares names ignoring case, spaces, _, - and .', () => {
    for (const h of ['Unit Cost', 'unit_cost', 'UNITCOST', 'unit-cost', 'Unit.Cost', ' unit  cost ']) {
      expect(normalizeHeader(h)).toBe('unitcost');
    }
  });

  it('resolves each known column to the index and header it comes from', () => {
    const cols = resolveColumns(['Project ID', 'Estimate Name', 'Unit Cost', 'QTY', ''], KNOWN, undefined, 'est.csv');
    expect(cols.source('unit_cost')).toEqual({ column: 'unit_cost', header: 'Unit Cost', index: 2 });
    expect(cols.has('category')).toBe(false);
    expect(cols.columns()).toEqual(['project_id', 'estimate_name', 'unit_cost', 'qty']);
    const row = { line: 2, values: ['1042', 'Base', '$5', '3', ''] };
    expect(cols.value(row, 'qty')).toBe('3');
    expect(cols.value(row, 'category')).toBeNull();
    expect(cols.header('unit_cost')).toBe('Unit Cost');
  });

  it('refuses unknown columns, naming every one, the file, line 1 and how to ignore them', () => {
    const err = failure(() => resolveColumns(['project_id', 'Colour', 'Internal Ref', 'qty'], KNOWN, undefined, 'est.csv'));
    expect(err).toBeInstanceOf(FileError);
    expect(err).toMatchObject({ code: 'BUILDSYNC_FILE_UNREADABLE', file: 'est.csv' });
    expect(err.message).toBe(
      'est.csv:1: unknown columns "Colour", "Internal Ref". Known columns: project_id, estimate_name, category, unit_cost, qty, notes_general (case, spaces, _, - and . do not matter). ' +
        'To skip them, pass --mapping MAP.json with {"ignore": ["Colour", "Internal Ref"]}; to read one as a known column, {"columns": {"Colour": "<column>"}}.',
    );
  });

  it('refuses two headers that are the same column', () => {
    const err = failure(() => resolveColumns(['Unit Cost', 'qty', 'unit_cost'], KNOWN, undefined, 'est.csv', 3));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toMatch(/^est\.csv:3: duplicate columns: "Unit Cost" and "unit_cost" are the same column\. Keep one of each/);
  });

  it('renames, ignores and adds constants from the mapping file', () => {
    const mapping = parseMappingFile(
      { columns: { 'Job #': 'project_id', Cost: 'Unit Cost' }, ignore: ['internal ref'], constants: { estimate_name: 'Base bid', qty: 1 } },
      'map.json',
    );
    const cols = resolveColumns(['Job #', 'Cost', 'Internal_Ref', 'Category'], KNOWN, mapping, 'est.csv');
    expect(cols.source('project_id')).toEqual({ column: 'project_id', header: 'Job #', index: 0 });
    expect(cols.source('unit_cost')).toEqual({ column: 'unit_cost', header: 'Cost', index: 1 });
    expect(cols.has('internal_ref')).toBe(false);
    const row = { line: 2, values: ['1042', '12.50', 'X-1', 'Framing'] };
    expect(cols.value(row, 'estimate_name')).toBe('Base bid');
    expect(cols.value(row, 'qty')).toBe(1);
    expect(cols.value(row, 'category')).toBe('Framing');
    expect(cols.columns()).toEqual(['project_id', 'unit_cost', 'category', 'estimate_name', 'qty']);
  });

  it('refuses a mapping entry for a header the file does not have, unless told to be lenient', () => {
    const mapping = parseMappingFile({ columns: { Customer: 'project_id', Project: 'project_id' }, ignore: ['Memo'] }, 'map.json');
    const err = failure(() => resolveColumns(['Project', 'qty'], KNOWN, mapping, 'bills.csv'));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toMatch(/^bills\.csv:1: the mapping file names headers that bills\.csv does not have: "columns" entry "Customer" → project_id \(did you mean "Project"\?\), "ignore" entry "Memo"\. The header row has "Project", "qty"\./);
    const cols = resolveColumns(['Project', 'qty'], KNOWN, mapping, 'bills.csv', 1, { lenientMapping: true });
    expect(cols.source('project_id')?.header).toBe('Project');
  });

  it('refuses two headers mapped to one column', () => {
    const mapping = parseMappingFile({ columns: { 'Job #': 'project_id' } }, 'map.json');
    const err = failure(() => resolveColumns(['project_id', 'Job #'], KNOWN, mapping, 'est.csv'));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toMatch(/"project_id" and "Job #" both give column project_id/);
  });

  it('refuses a mapping to a column the import does not know, or a constant for a column the file has', () => {
    const toUnknown = parseMappingFile({ columns: { Cost: 'price' } }, 'map.json');
    const err = failure(() => resolveColumns(['Cost'], KNOWN, toUnknown, 'est.csv'));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toBe('the mapping file maps "Cost" to "price", which is not a column this import knows. Known columns: project_id, estimate_name, category, unit_cost, qty, notes_general.');
    const constant = parseMappingFile({ constants: { qty: '2' } }, 'map.json');
    const err2 = failure(() => resolveColumns(['QTY'], KNOWN, constant, 'est.csv'));
    expect(err2).toBeInstanceOf(ConfigError);
    expect(err2.message).toMatch(/sets a constant for qty, but est\.csv has that column too \("QTY"\)/);
  });
});
