import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openTable } from '../src/tables/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'buildsync-csv-delim-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function read(name: string, content: string) {
  const file = join(dir, name);
  writeFileSync(file, content);
  const table = await openTable(file);
  const rows = [];
  for await (const row of table.rows()) rows.push(row.values);
  return { table, rows };
}

describe('detecting the delimiter from the header line', () => {
  it('reads comma-separated files', async () => {
    const { table, rows } = await read('comma.csv', 'item,qty,unit_cost\nNails,2,"1,5"\n');
    expect(table.delimiter).toBe(',');
    expect(rows).toEqual([['Nails', '2', '1,5']]);
  });

  it('reads semicolon-separated files, where data commas are decimal marks, not delimiters', async () => {
    const { table, rows } = await read('semi.csv', 'item;qty;unit_cost\nNails;2;$1,234.50\n"a;b";3;4\n');
    expect(table.delimiter).toBe(';');
    expect(rows).toEqual([['Nails', '2', '$1,234.50'], ['a;b', '3', '4']]);
  });

  it('reads tab-separated files', async () => {
    const { table, rows } = await read('tab.tsv', 'item\tqty\tunit cost\nNails, galvanized\t2\t1;5\n');
    expect(table.delimiter).toBe('\t');
    expect(table.headers).toEqual(['item', 'qty', 'unit cost']);
    expect(rows).toEqual([['Nails, galvanized', '2', '1;5']]);
  });

  it('does not count delimiters inside quoted header names', async () => {
    const { table, rows } = await read('quoted-header.csv', '"a,b,c";d;e\n1;2;3\n');
    expect(table.delimiter).toBe(';');
    expect(table.headers).toEqual(['a,b,c', 'd', 'e']);
    expect(rows).toEqual([['1', '2', '3']]);
  });

  it('reads a one-column file with a comma by default', async () => {
    const { table, rows } = await read('one.csv', 'item\nNails\n');
    expect(table.delimiter).toBe(',');
    expect(rows).toEqual([['Nails']]);
  });

  it('keeps a quote inside an unquoted field as text (6" pipe), as spreadsheets do', async () => {
    const { rows } = await read('inch.csv', 'item,qty\n6" PVC pipe,4\n');
    expect(rows).toEqual([['6" PVC pipe', '4']]);
  });
});
