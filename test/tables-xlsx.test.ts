import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileError, RowError } from '../src/errors/index.ts';
import { openTable, UnreadableCell, type SourceRow } from '../src/tables/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'buildsync-xlsx-'));
const book = join(dir, 'estimates.xlsx');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const wb = new ExcelJS.Workbook();
  const first = wb.addWorksheet('Estimates');
  first.addRow(['project_id', 'Unit Cost', 'due_date', 'description', 'total', 'active', 2026]);
  first.addRow([1042, 1234.5, new Date(Date.UTC(2026, 2, 1, 8, 30, 0)), 'Plain text', { formula: 'B2*2', result: 2469 }, true, 'x']);
  // Row 3 is left empty: it is skipped but row 4 keeps its sheet row number.
  const r4 = first.getRow(4);
  r4.getCell(1).value = 1043;
  r4.getCell(2).value = 0.1;
  r4.getCell(3).value = 46082; // a serial number in a date-formatted cell
  r4.getCell(3).numFmt = 'yyyy-mm-dd';
  r4.getCell(4).value = { richText: [{ text: 'Bold ', font: { bold: true } }, { text: 'and plain' }] };
  r4.getCell(5).value = { formula: 'DATE(2026,3,2)', result: 46083 };
  r4.getCell(5).numFmt = 'mm/dd/yyyy';
  r4.getCell(6).value = { error: '#N/A' };
  r4.getCell(7).value = { text: 'link text', hyperlink: 'https://example.com' };
  r4.commit();
  const second = wb.addWorksheet('Other');
  second.addRow(['item', 'qty']);
  second.addRow(['Nails', 5]);
  await wb.xlsx.writeFile(book);
});

async function readAll(file: string, sheet?: string) {
  const table = await openTable(file, sheet === undefined ? {} : { sheet });
  const rows: SourceRow[] = [];
  for await (const row of table.rows()) rows.push(row);
  return { table, rows };
}

describe('reading .xlsx workbooks', () => {
  it('reads the first sheet: numbers stay numbers, dates become Dates, rich text and links plain text, formulas their result, an error value an UnreadableCell', async () => {
    const { table, rows } = await readAll(book);
    expect(table.kind).toBe('xlsx');
    expect(table.headers).toEqual(['project_id', 'Unit Cost', 'due_date', 'description', 'total', 'active', '2026']);
    expect(table.headerLine).toBe(1);
    expect(rows).toHaveLength(2);
    // exceljs writes a Date with the built-in short date (id 14), whose day/month order is the reader's locale.
    const shortDate = { kind: 'date', id: 14, code: 'm/d/yyyy' };
    expect(rows[0]).toEqual({
      line: 2,
      values: [1042, 1234.5, new Date(Date.UTC(2026, 2, 1, 8, 30, 0)), 'Plain text', 2469, true, 'x'],
      formats: [undefined, undefined, shortDate, undefined, undefined, undefined, undefined],
    });
    expect(rows[1]!.line).toBe(4);
    // An error value is never read as its text (docs/reading-rules.md): it is an UnreadableCell.
    expect(rows[1]!.values).toEqual([
      1043,
      0.1,
      new Date(Date.UTC(2026, 2, 1)),
      'Bold and plain',
      new Date(Date.UTC(2026, 2, 2)),
      new UnreadableCell(
        'Estimates!F4',
        'Estimates!F4 holds the error #N/A as its value, not a formula result (a lookup found no match, or a value is not available); type the value it should hold, then save the workbook again',
        '#N/A',
      ),
      'link text',
    ]);
  });

  it('reads the sheet named by the sheet option', async () => {
    const { table, rows } = await readAll(book, 'Other');
    expect(table.headers).toEqual(['item', 'qty']);
    expect(rows).toEqual([{ line: 2, values: ['Nails', 5] }]);
  });

  it('refuses an unknown sheet, listing the sheets there are', async () => {
    await expect(openTable(book, { sheet: 'Bills' })).rejects.toThrow(FileError);
    await expect(openTable(book, { sheet: 'Bills' })).rejects.toThrow(`${book} has no sheet named "Bills". Its sheets are "Estimates", "Other"; pass one of them with --sheet.`);
  });

  it('recognises a workbook by its content even when named .csv', async () => {
    const renamed = join(dir, 'actually-a-workbook.csv');
    await copyFile(book, renamed);
    const { table, rows } = await readAll(renamed, 'Other');
    expect(table.kind).toBe('xlsx');
    expect(rows).toHaveLength(1);
  });

  it('refuses a value in a column that has no header, naming the cell', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('S');
    ws.addRow(['a', 'b']);
    ws.addRow([1, 2, 'stray']);
    const file = join(dir, 'stray.xlsx');
    await wb.xlsx.writeFile(file);
    const err = await readAll(file).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(RowError);
    expect(err).toMatchObject({ line: 2, column: 'C' });
    expect((err as Error).message).toBe(`${file}:2 column C: this cell holds "stray" but its column has no header. Add a header, or delete the value.`);
  });

  it('refuses an empty sheet and a file that is not a workbook', async () => {
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('Blank');
    const empty = join(dir, 'empty.xlsx');
    await wb.xlsx.writeFile(empty);
    await expect(openTable(empty)).rejects.toThrow(/sheet "Blank" of .* is empty/);
    const junk = join(dir, 'junk.xlsx');
    writeFileSync(junk, 'this is not a zip file at all\n');
    const err = await openTable(junk).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(FileError);
    expect((err as Error).message).toMatch(/^cannot read .*junk\.xlsx as an \.xlsx workbook|has no worksheets/);
  });

  it('names a missing workbook', async () => {
    const missing = join(dir, 'missing.xlsx');
    await expect(openTable(missing)).rejects.toThrow(`cannot read ${missing}: there is no such file.`);
  });
});
