import { access, constants } from 'node:fs/promises';
import ExcelJS from 'exceljs';
import { BuildsyncError, FileError, InterruptedError, RowError } from '../errors/index.ts';
import { fileSystemError } from './file-errors.ts';
import type { CellValue, SourceRow } from './types.ts';
import { xlsxCellValue, xlsxHeaderText } from './xlsx-cell.ts';

export interface XlsxHead {
  headers: string[];
  headerLine: number;
  sheet: string;
}

/** Rows per batch: exceljs hands rows out one by one, so batches only bound the hand-off cost. */
const BATCH_ROWS = 1000;

/** What the streaming reader exposes at run time but its typings leave out. */
interface WorkbookReaderInternals {
  stream?: { destroy(): void };
  model?: { sheets?: { name: string }[] };
  properties?: { date1904?: boolean };
}
interface WorksheetReaderInternals {
  name?: string;
}
interface StreamedRow {
  number: number;
  eachCell(opts: { includeEmpty: boolean }, cb: (cell: { value: unknown; numFmt?: string }, col: number) => void): void;
}

/**
 * Reads one sheet of an .xlsx workbook with exceljs' streaming reader (the workbook is never held
 * in memory). The sheet is `sheet` when given, else the first sheet in tab order. The header row
 * is the sheet's first non-empty row; line numbers are the sheet's row numbers. Empty rows are
 * skipped. A value in a column that has no header is an error, since it would silently be lost.
 */
export async function* readXlsx(
  file: string,
  sheet: string | undefined,
  onHead: (head: XlsxHead) => void,
  options: { headOnly?: boolean; signal?: AbortSignal } = {},
): AsyncGenerator<SourceRow[]> {
  const { headOnly = false, signal } = options;
  try {
    // The streaming reader pipes a read stream without forwarding its errors (a missing file
    // would hang), so check the file can be read first.
    await access(file, constants.R_OK);
  } catch (err) {
    throw fileSystemError(file, err);
  }
  const workbook = new ExcelJS.stream.xlsx.WorkbookReader(file, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    // Styles carry the number formats that tell a date from a number.
    styles: 'cache',
    entries: 'ignore',
  });
  const internals = workbook as unknown as WorkbookReaderInternals;
  let found = false;
  try {
    for await (const worksheet of workbook) {
      const sheets = internals.model?.sheets ?? [];
      const wanted = sheet ?? sheets[0]?.name;
      const name = (worksheet as unknown as WorksheetReaderInternals).name;
      if (name !== wanted) continue; // the unread entry is drained by the reader
      found = true;
      const date1904 = internals.properties?.date1904 === true;
      let headers: string[] | undefined;
      let batch: SourceRow[] = [];
      for await (const row of worksheet as AsyncIterable<unknown>) {
        if (signal?.aborted) throw new InterruptedError(`reading ${file} was interrupted`);
        const r = row as StreamedRow;
        if (headers === undefined) {
          const cells: CellValue[] = [];
          r.eachCell({ includeEmpty: false }, (cell, col) => {
            cells[col - 1] = xlsxCellValue(cell.value, cell.numFmt, date1904);
          });
          const texts = Array.from(cells, (c) => xlsxHeaderText(c ?? null));
          if (texts.every((t) => t.trim() === '')) continue;
          headers = texts;
          onHead({ headers, headerLine: r.number, sheet: name ?? '' });
          if (headOnly) return;
          continue;
        }
        const width = headers.length;
        const values: CellValue[] = new Array<CellValue>(width).fill(null);
        let any = false;
        r.eachCell({ includeEmpty: false }, (cell, col) => {
          const v = xlsxCellValue(cell.value, cell.numFmt, date1904);
          if (v === null || v === '') return;
          if (col > width) {
            throw new RowError(file, r.number, columnLetter(col), `this cell holds ${JSON.stringify(String(v))} but its column has no header. Add a header, or delete the value.`);
          }
          values[col - 1] = v;
          any = true;
        });
        if (!any) continue;
        batch.push({ line: r.number, values });
        if (batch.length >= BATCH_ROWS) {
          const full = batch;
          batch = [];
          yield full;
        }
      }
      if (headers === undefined) {
        throw new FileError(file, `sheet "${name}" of ${file} is empty: its first row must be a header row naming the columns.`);
      }
      if (batch.length > 0) yield batch;
      return;
    }
  } catch (err) {
    if (err instanceof BuildsyncError) throw err;
    throw new FileError(file, `cannot read ${file} as an .xlsx workbook (${(err as Error)?.message ?? String(err)}). Open it in a spreadsheet and save it again as .xlsx, or export it as CSV.`, { cause: err });
  } finally {
    // Stopping early (header only, an error, a consumer that breaks) leaves the file stream open.
    internals.stream?.destroy();
  }
  if (!found) {
    const names = (internals.model?.sheets ?? []).map((s) => `"${s.name}"`);
    if (sheet === undefined) throw new FileError(file, `${file} has no worksheets.`);
    throw new FileError(file, `${file} has no sheet named "${sheet}". Its sheets are ${names.join(', ') || '(none)'}; pass one of them with --sheet.`);
  }
}

/** 1 → A, 27 → AA: how a spreadsheet user names a column that has no header. */
function columnLetter(col: number): string {
  let s = '';
  for (let n = col; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}
