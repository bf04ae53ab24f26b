import { FileError } from '../errors/index.ts';
import { readCsv, type CsvHead } from './csv-reader.ts';
import { flatten } from './flatten.ts';
import { sniffKind } from './sniff.ts';
import { headerNames } from './header-names.ts';
import { columnLetter, sheetRefName } from './xlsx-cell.ts';
import { withoutRepeatedHeaders } from './repeated-header.ts';
import type { IgnoredLine, OpenedTable, OpenTableOptions, SheetFacts, SourceRow, WorkbookFacts } from './types.ts';
import { openWorkbook } from './workbook-sheets.ts';
import type { XlsxCache, XlsxHead } from './xlsx/read-xlsx.ts';

/** The .xlsx reader (zip, XML: yauzl and saxes), loaded when a workbook is opened: a CSV file needs none of it. */
export type XlsxReader = typeof import('./xlsx/read-xlsx.ts');

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
    const xlsx: XlsxReader = await import('./xlsx/read-xlsx.ts');
    return openWorkbook(
      file,
      opts,
      (sheet) => openXlsxSheet(xlsx, file, sheet, opts, cache),
      (table) => xlsx.probeXlsxSheets(file, table, cache, signal),
      (table, max) => xlsx.summarizeXlsxSheets(file, table, max, cache, signal),
    );
  }
  if (opts.sheet !== undefined) {
    throw new FileError(file, [{ kind: 'option', option: 'sheet' }, ` applies to .xlsx workbooks only; ${file} is read as CSV. `, { kind: 'remove-option', option: 'sheet' }]);
  }
  const { encoding: forced, delimiter: delimiterOption } = opts;
  let head: CsvHead | undefined;
  for await (const _ of readCsv(file, (h) => (head = h), { headOnly: true, signal, encoding: forced, delimiter: delimiterOption, header, headerRow })) {
    // headOnly yields nothing
  }
  const { headers: cells, headerLine, encoding, delimiter, titles, above, start } = head!;
  const { names: headers, aliases } = headerNames(cells, headerLine, above);
  const repeatedHeaders: IgnoredLine[] = [];
  const table: OpenedTable = { file, headers, ...aliasesOf(aliases), headerLine, kind, encoding, delimiter, titles, footers: [], repeatedHeaders, batches, rows: () => flatten(batches()) };
  // A Windows-1252 file can look like UTF-8 (pure ASCII) up to its first accented letter, which
  // may come long after the header: reading the rows settles `encoding`. Each read of the rows
  // starts where the read of the head found the table (`start`): the header row is found once.
  function batches(): AsyncIterable<SourceRow[]> {
    const rows = readCsv(file, noop, { signal, encoding: forced, delimiter: delimiterOption, header, headerRow, start, onEncoding: (e) => (table.encoding = e), onFooter: (lines) => (table.footers = lines) });
    return header === undefined ? rows : withoutRepeatedHeaders(rows, { cells, above }, headerLine, 'line', repeatedHeaders);
  }
  return table;
}

/** One sheet of an .xlsx (`sheet`, or the first visible one) as a table. */
async function openXlsxSheet(xlsx: XlsxReader, file: string, sheet: string | undefined, opts: OpenTableOptions, cache: XlsxCache): Promise<OpenedTable> {
  const { signal, header, headerRow } = opts;
  let head: XlsxHead | undefined;
  let workbook: WorkbookFacts | undefined;
  const onHead = (h: XlsxHead, w: WorkbookFacts): void => {
    head = h;
    workbook = w;
  };
  // An import reads the merged ranges first: a group row merged over the header's columns names them.
  let facts: Promise<SheetFacts> | undefined = header === undefined ? undefined : xlsx.readXlsxSheetFacts(file, sheet, cache);
  const merged = facts === undefined ? [] : (await facts).merged;
  for await (const _ of xlsx.readXlsx(file, sheet, onHead, { headOnly: true, signal, cache, table: { header, headerRow, merged } })) {
    // headOnly yields nothing
  }
  const { headers: cells, headerLine, date1904, titles, above } = head!;
  const { names: headers, aliases } = headerNames(cells, headerLine, above, merged);
  const name = workbook!.sheet;
  const sheetFacts = (): Promise<SheetFacts> => (facts ??= xlsx.readXlsxSheetFacts(file, name, cache));
  const repeatedHeaders: IgnoredLine[] = [];
  const prefix = sheetRefName(name);
  const cellName = (line: number, index: number): string => `${prefix}!${columnLetter(index + 1)}${line}`;
  const table: OpenedTable = { file, headers, ...aliasesOf(aliases), cellName, headerLine, kind: 'xlsx', date1904, workbook, sheetFacts, titles, footers: [], repeatedHeaders, batches, rows: () => flatten(batches()) };
  function batches(): AsyncIterable<SourceRow[]> {
    // The read of the head found the header row (of the first 30 rows, the best match): each read of the rows starts there.
    const rows = xlsx.readXlsx(file, name, noop, { signal, cache, table: { header, headerRow: headerRow ?? headerLine, merged, onFooter: (lines) => (table.footers = lines) } });
    return header === undefined ? rows : withoutRepeatedHeaders(rows, { cells, above }, headerLine, 'row', repeatedHeaders);
  }
  return table;
}

function noop(): void {}

/** `headerAliases` only when a group row gave some. */
function aliasesOf(aliases: (string | undefined)[]): { headerAliases?: (string | undefined)[] } {
  return aliases.some((a) => a !== undefined) ? { headerAliases: aliases } : {};
}
