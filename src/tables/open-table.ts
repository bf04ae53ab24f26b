import { FileError } from '../errors/index.ts';
import { readCsv, type CsvHead } from './csv-reader.ts';
import { flatten } from './flatten.ts';
import { sniffKind } from './sniff.ts';
import type { OpenedTable, OpenTableOptions, SheetFacts, SourceRow, WorkbookFacts } from './types.ts';
import { openWorkbook } from './workbook-sheets.ts';
import { probeXlsxSheets, readXlsx, readXlsxSheetFacts, type XlsxCache, type XlsxHead } from './xlsx/read-xlsx.ts';

/**
 * Opens FILE (CSV or .xlsx, docs/reading-rules.md and §4) and reads its header row; the rows are read
 * later, streaming, each time `rows()` or `batches()` is iterated.
 *
 * .xlsx is recognised by its extension or by its zip signature (a workbook renamed to .csv still
 * reads as one); everything else is read as CSV. `sheet` applies to .xlsx only: which sheet, or
 * sheets, of a workbook are read is decided in `workbook-sheets.ts`.
 */
export async function openTable(file: string, opts: OpenTableOptions = {}): Promise<OpenedTable> {
  const kind = await sniffKind(file);
  const { signal, header, headerRow } = opts;
  if (kind === 'xlsx') {
    if (opts.encoding !== undefined && opts.encoding !== 'auto') {
      throw new FileError(file, [{ kind: 'option', option: 'encoding' }, ` applies to CSV files only; ${file} is an .xlsx workbook, whose text is always Unicode. `, { kind: 'remove-option', option: 'encoding' }]);
    }
    if (opts.delimiter !== undefined && opts.delimiter !== 'auto') {
      throw new FileError(file, [{ kind: 'option', option: 'delimiter' }, ` applies to CSV files only; ${file} is an .xlsx workbook, whose cells are not delimited. `, { kind: 'remove-option', option: 'delimiter' }]);
    }
    // Every pass over the workbook (which sheets hold a table, the header, the facts, the date
    // order, the rows) shares one parse of the shared strings.
    const cache: XlsxCache = {};
    return openWorkbook(file, opts, (sheet) => openXlsxSheet(file, sheet, opts, cache), (table) => probeXlsxSheets(file, table, cache, signal));
  }
  if (opts.sheet !== undefined) {
    throw new FileError(file, [{ kind: 'option', option: 'sheet' }, ` applies to .xlsx workbooks only; ${file} is read as CSV. `, { kind: 'remove-option', option: 'sheet' }]);
  }
  const { encoding: forced, delimiter: delimiterOption } = opts;
  let head: CsvHead | undefined;
  for await (const _ of readCsv(file, (h) => (head = h), { headOnly: true, signal, encoding: forced, delimiter: delimiterOption, header, headerRow })) {
    // headOnly yields nothing
  }
  const { headers, headerLine, encoding, delimiter, titles } = head!;
  const table: OpenedTable = { file, headers, headerLine, kind, encoding, delimiter, titles, footers: [], batches, rows: () => flatten(batches()) };
  // A Windows-1252 file can look like UTF-8 (pure ASCII) up to its first accented letter, which
  // may come long after the header: reading the rows settles `encoding`.
  function batches(): AsyncIterable<SourceRow[]> {
    return readCsv(file, noop, { signal, encoding: forced, delimiter: delimiterOption, header, headerRow, onEncoding: (e) => (table.encoding = e), onFooter: (lines) => (table.footers = lines) });
  }
  return table;
}

/** One sheet of an .xlsx (`sheet`, or the first visible one) as a table. */
async function openXlsxSheet(file: string, sheet: string | undefined, opts: OpenTableOptions, cache: XlsxCache): Promise<OpenedTable> {
  const { signal, header, headerRow } = opts;
  let head: XlsxHead | undefined;
  let workbook: WorkbookFacts | undefined;
  const onHead = (h: XlsxHead, w: WorkbookFacts): void => {
    head = h;
    workbook = w;
  };
  for await (const _ of readXlsx(file, sheet, onHead, { headOnly: true, signal, cache, table: { header, headerRow } })) {
    // headOnly yields nothing
  }
  const { headers, headerLine, date1904, titles } = head!;
  const name = workbook!.sheet;
  let facts: Promise<SheetFacts> | undefined;
  const sheetFacts = (): Promise<SheetFacts> => (facts ??= readXlsxSheetFacts(file, name, cache));
  const table: OpenedTable = { file, headers, headerLine, kind: 'xlsx', date1904, workbook, sheetFacts, titles, footers: [], batches, rows: () => flatten(batches()) };
  function batches(): AsyncIterable<SourceRow[]> {
    // The read of the head found the header row (of the first 30 rows, the best match): each read of the rows starts there.
    return readXlsx(file, name, noop, { signal, cache, table: { header, headerRow: headerRow ?? headerLine, onFooter: (lines) => (table.footers = lines) } });
  }
  return table;
}

function noop(): void {}
