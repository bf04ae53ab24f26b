import { open, type FileHandle } from 'node:fs/promises';
import { BuildsyncError, FileError, MAX_LISTED, listAtMost } from '../../errors/index.ts';
import { fileSystemError, isFileSystemError } from '../file-errors.ts';
import type { SheetFacts, SourceRow, WorkbookFacts } from '../types.ts';
import { readWorkbook, type Workbook, type XlsxCache } from './package.ts';
import { readSheetFacts } from './sheet-facts.ts';
import { readSheet, type SheetTableOptions, type XlsxHead } from './sheet.ts';
import { openZip, type Zip, type ZipEntry } from './zip.ts';
import { countFilledRows, heldBesideCells } from './sheet-summary.ts';

export type { XlsxCache } from './package.ts';
export type { XlsxHead } from './sheet.ts';

/*
 * How an .xlsx is read, and why not with exceljs' streaming reader (exceljs 4.4.0,
 * lib/stream/xlsx/workbook-reader.js and worksheet-reader.js), which was used before:
 *
 * Its WorksheetReader loses what Excel wrote:
 *  - every formula's cached `<v>` goes through parseFloat whatever its `t`: a TRUE/FALSE result
 *    becomes 1/0 (FALSE then reads as empty downstream), an error result (`#DIV/0!`) NaN (empty);
 *    a formula without `<v>` has no result (empty);
 *  - an error cell without formula is `{ error: '#REF!' }`, which was read as the text "#REF!";
 *  - `t="d"` ISO dates go through parseFloat (2026-03-01 → 2026);
 *  - a rich inline string keeps only its last run (`<is><r><t>a</t></r><r><t>b</t></r></is>` → "b");
 *  - text saxes has already decoded is entity-decoded again (a cell typed `&lt;` reads `<`);
 *  - OOXML's `_x000D_` escapes are left in the text;
 *  - each chunk is decoded with `TextDecoder.decode(chunk)` without `stream: true`, so a UTF-8
 *    character split across two chunks becomes U+FFFD (sheets and shared strings alike);
 *  - in shared strings, the phonetic reading (`<rPh><t>トウキョウ</t></rPh>`) replaces the text;
 *  - `date1904` sits where this module did not look, so 1904 workbooks read four years off.
 * Its WorkbookReader streams the zip with unzipper and, when a sheet comes before the shared
 * strings (Excel's order), copies the sheet to a temporary file; while it creates that file the
 * rest of the zip can be lost without an error (always so for a workbook whose parts are stored,
 * not deflated): no styles (dates read as numbers), no shared strings. Its temporary files and
 * their descriptors also stayed until the process exited, in a worker that reads many workbooks.
 *
 * So: the zip is read from its central directory (`zip.ts`: yauzl; every part checked against
 * its size and CRC), which lets the parts be read in the order they are needed (`package.ts`,
 * `shared-strings.ts`), whatever their order in the file, and the chosen sheet streamed straight
 * from the file (`sheet.ts`). The XML is parsed with saxes, fed text decoded here (`xml.ts` says
 * why).
 *
 * Memory: rows are handed out as they are parsed (one chunk of XML at a time), never the sheet.
 * Text is fed to saxes with every run between two `<` cut at `MAX_RUN` characters (saxes buffers a
 * text node whole), so a gigantic cell costs at most about a megabyte before it is refused. The
 * shared strings (the workbook's table of texts) are held, as any reader must, each cut to a cell's
 * limit.
 */

/**
 * Reads one sheet of an .xlsx workbook, streaming. The sheet is `sheet` when given (exactly, else
 * ignoring case as Excel does), else the first visible worksheet in tab order. The header row is
 * the sheet's first non-empty row, or the one `options.table` finds (docs/reading-rules.md); line
 * numbers are the sheet's row numbers. Empty rows are skipped. A value in a column that has no
 * header is an error, since it would silently be lost. `onHead` also gets the workbook's tabs.
 */
export function readXlsx(
  file: string,
  sheet: string | undefined,
  onHead: (head: XlsxHead, workbook: WorkbookFacts) => void,
  options: { headOnly?: boolean; signal?: AbortSignal; cache?: XlsxCache; table?: SheetTableOptions } = {},
): AsyncGenerator<SourceRow[]> {
  const { headOnly = false, signal } = options;
  return withSheet(file, sheet, options.cache, ({ book, name, zip, part }) =>
    readSheet({ file, part: part.name }, name, zip.read(part), book.context, (head) => onHead(head, book.facts(name)), headOnly, signal, options.table),
  );
}

/** The merged ranges, hidden rows and columns and autofilter of the sheet `readXlsx` reads (`sheet-facts.ts`). */
export async function readXlsxSheetFacts(file: string, sheet: string | undefined, cache?: XlsxCache): Promise<SheetFacts> {
  for await (const facts of withSheet(file, sheet, cache, async function* ({ zip, part }) {
    yield await readSheetFacts(() => zip.read(part), { file, part: part.name });
  })) {
    return facts;
  }
  throw new Error('unreachable: withSheet yields what its reader yields');
}

/**
 * The workbook's tabs, and which of its visible worksheets hold a header row (`table.header` and
 * `table.headerRow` as the read would use them), in tab order. Each sheet is read only as far as
 * the header search looks (docs/reading-rules.md: the first 30 rows).
 */
export async function probeXlsxSheets(file: string, table: SheetTableOptions, cache?: XlsxCache, signal?: AbortSignal): Promise<{ workbook: WorkbookFacts; withHeader: string[] }> {
  let workbook: WorkbookFacts | undefined;
  const withHeader: string[] = [];
  // One opening of the workbook for every sheet: work grows with the sheets, not with their square.
  for await (const _ of withSheet<never>(file, undefined, cache, async function* ({ book, name, zip }) {
    workbook = book.facts(name);
    for (const s of workbook.sheets) {
      if (!s.worksheet || s.state !== 'visible') continue;
      const part = book.sheetPart(s.name);
      let found = false;
      for await (const _ of readSheet({ file, part: part.name }, s.name, zip.read(part), book.context, () => (found = true), true, signal, { ...table, probe: true })) {
        // headOnly yields nothing
      }
      if (found) withHeader.push(s.name);
    }
    yield* [];
  })) {
    // yields nothing
  }
  return { workbook: workbook!, withHeader };
}

/** One sheet as the stop for a workbook without a table names it (`workbook-sheets.ts`). */
export interface SheetSummary {
  name: string;
  state: 'visible' | 'hidden' | 'veryHidden';
  /** False for a chart sheet. */
  worksheet: boolean;
  /** Rows that hold a value. */
  rows: number;
  /** A header row is found in it (`table.header`, as the read would look). */
  header: boolean;
  pivot: boolean;
  chart: boolean;
}

/** The first `max` sheets of the workbook in tab order, each as `SheetSummary` says. */
export async function summarizeXlsxSheets(file: string, table: SheetTableOptions, max: number, cache?: XlsxCache, signal?: AbortSignal): Promise<SheetSummary[]> {
  const out: SheetSummary[] = [];
  for await (const s of withSheet(file, undefined, cache, async function* ({ book, zip }) {
    const facts = book.facts('');
    for (const sheet of facts.sheets.slice(0, max)) {
      const held = heldBesideCells(await book.relationshipTypes(sheet.name));
      if (!sheet.worksheet) {
        yield { name: sheet.name, state: sheet.state, worksheet: false, rows: 0, header: false, ...held };
        continue;
      }
      const part = book.sheetPart(sheet.name);
      const rows = await countFilledRows(zip.read(part), { file, part: part.name });
      yield { name: sheet.name, state: sheet.state, worksheet: true, rows, header: false, ...held };
    }
  })) {
    out.push(s);
  }
  for (const s of out) {
    if (!s.worksheet || s.rows === 0) continue;
    for await (const _ of readXlsx(file, s.name, () => (s.header = true), { headOnly: true, signal, cache, table: { ...table, probe: true } })) {
      // headOnly yields nothing
    }
  }
  return out;
}

interface OpenedSheet {
  book: Workbook;
  name: string;
  zip: Zip;
  part: ZipEntry;
}

/**
 * Opens FILE, finds the sheet to read (see `readXlsx`) and runs `use` on it; every failure that
 * is not already one of ours becomes a FileError saying the workbook is damaged.
 */
async function* withSheet<T>(file: string, sheet: string | undefined, cache: XlsxCache | undefined, use: (opened: OpenedSheet) => AsyncGenerator<T>): AsyncGenerator<T> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    throw fileSystemError(file, err);
  }
  try {
    const zip = await openZip(file, handle);
    const book = await readWorkbook(file, zip, cache);
    const name = book.wantedSheet(sheet);
    if (name === undefined) {
      if (sheet === undefined) throw new FileError(file, `${file} has no worksheets.`);
      const names = book.sheets.slice(0, MAX_LISTED).map((s) => `"${s.name}"`);
      throw new FileError(file, [`${file} has no sheet named "${sheet}". Its sheets are ${listAtMost(names, book.sheets.length) || '(none)'}; `, { kind: 'sheet-names' }]);
    }
    yield* use({ book, name, zip, part: book.sheetPart(name) });
  } catch (err) {
    if (err instanceof BuildsyncError) throw err;
    if (isFileSystemError(err)) throw fileSystemError(file, err);
    throw new FileError(file, `cannot read ${file} as an .xlsx workbook: it is damaged (${(err as Error)?.message ?? String(err)}). Open it in a spreadsheet and save it again as .xlsx, or export it as CSV.`, { cause: err });
  } finally {
    await handle.close().catch(() => {});
  }
}
