import { FileError, InterruptedError, RowError } from '../../errors/index.ts';
import { FooterWatch } from '../footer.ts';
import { HeaderSearch } from '../header-search.ts';
import { UnreadableCell, type CellRange, type CellValue, type HeaderCandidate, type HeaderRule, type IgnoredLine, type SourceRow } from '../types.ts';
import {
  MAX_CELL_CHARS,
  MAX_COLUMNS,
  MAX_SHEET_COLUMN,
  OverlongText,
  cellRef,
  columnLetter,
  decodeXString,
  describeValue,
  parseCellRef,
  quote,
  readRawCell,
  sheetRefName,
  shiftFormula,
  xlsxHeaderText,
  type RawCell,
} from '../xlsx-cell.ts';
import type { CellFormat } from '../types.ts';
import type { SheetContext } from './package.ts';
import { XLSX_LIMITS, limitPassed, type PartOf } from './limits.ts';
import { MAX_RAW_TEXT, XmlText, local, parseXml, type SaxTag } from './xml.ts';
import { isTotalFormula } from './sum-formula.ts';

/** The header row of the sheet being read, handed out as soon as it is found. */
export interface XlsxHead {
  headers: string[];
  headerLine: number;
  sheet: string;
  /** The workbook's date system is 1904's (for numbers a date column reads as serial days). */
  date1904: boolean;
  /** The rows above the header row (docs/reading-rules.md). */
  titles: IgnoredLine[];
  /** Those rows with their cells, the nearest last. */
  above: readonly HeaderCandidate[];
}

/** Where the table is (docs/reading-rules.md): how the header row is found, and where the footer goes. */
export interface SheetTableOptions {
  header?: HeaderRule;
  headerRow?: number;
  onFooter?: (lines: IgnoredLine[]) => void;
  /** The sheet's merged ranges, when known: a group row merged over the header's columns names them (`header-names.ts`). */
  merged?: readonly CellRange[];
  /**
   * Only ask whether the sheet has a header row (with `headOnly`): a sheet without one ends the
   * read quietly, `onHead` never called, instead of throwing. Which sheets of a workbook hold a
   * table is decided this way, reading at most the rows the header search looks at.
   */
  probe?: boolean;
}

/** Rows per batch: rows are parsed per chunk of XML, so batches only bound the hand-off cost. */
const BATCH_ROWS = 1000;
/** Shared formulas remembered (to show a follower's formula when it has no saved result). */
const MAX_SHARED_FORMULAS = 10_000;

/**
 * Parses `<sheetData>` of one sheet and hands out its rows. Elements read (any prefix):
 * `<row r>`, `<c r t s>`, `<f t si>`, `<v>`, `<is>` with `<t>` and `<r><t>` (not `<rPh><t>`).
 * A `<row>` or `<c>` without `r` follows the one before it, as the format allows; a row numbered
 * at or before the one before it (repeated, or backward) is damage, never read as a second row 3
 * that the report would silently merge with the first. Rows beyond `XLSX_LIMITS.rows` are refused.
 * The header row is the one `HeaderSearch` picks (the rows above it are a title block); a footer
 * is held back (`FooterWatch`) and handed to `table.onFooter` at the end.
 */
export async function* readSheet(
  sheetPart: PartOf,
  sheetName: string,
  source: AsyncIterable<Buffer>,
  ctx: SheetContext,
  onHead: (head: XlsxHead) => void,
  headOnly: boolean,
  signal: AbortSignal | undefined,
  table: SheetTableOptions = {},
): AsyncGenerator<SourceRow[]> {
  const { file } = sheetPart;
  const prefix = sheetRefName(sheetName);
  const xml = new XmlText();

  let headers: string[] | undefined;
  let width = 0;
  /** Header cells of the row being read, until the header row is found. */
  let headerCells: CellValue[] = [];
  /** The first cell of the row being read that cannot be a header (an error value), until the header row is found. */
  let headerProblem: FileError | undefined;
  const search = new HeaderSearch(file, table.header, table.headerRow, 'row', table.merged);
  /** The rows looked at as the header row whose cells cannot be a header (an error value): refused if one is chosen. */
  const problems = new Map<number, FileError>();
  const footer = new FooterWatch(table.header !== undefined);
  /** The last row that held a value: a gap after it is a blank row. */
  let lastFilled = 0;
  let out: SourceRow[] = [];
  let values: CellValue[] | undefined;
  /** The row's `SourceRow.formats`, made only when a number or date cell has a format other than General. */
  let formats: (CellFormat | undefined)[] | undefined;
  /** The row's `SourceRow.sums`: made only when a cell of the row is a SUM/SUBTOTAL formula over rows above. */
  let sums: number[] | undefined;
  /** The row's `SourceRow.indents`: made only when a cell of the row is indented. */
  let indents: (number | undefined)[] | undefined;
  const indentOf = ctx.indents;
  const formatOf = ctx.formats;

  /** A probe found no header row where the search looks: nothing more to read. */
  let gaveUp = false;
  let inSheetData = false;
  let inRow = false;
  let inCell = false;
  let inInline = false;
  let inPhonetic = false;
  /** The end of the rows was seen (`</sheetData>`, or `</worksheet>` of a sheet without rows). */
  let sawEnd = false;
  /** Which text is being read: 0 none, 1 `<v>`, 2 `<f>`, 3 `<is>…<t>`. */
  let target = 0;
  let row = 0;
  let col = 0;
  let sharedSi: string | undefined;
  const sharedFormulas = new Map<string, { formula: string; row: number; col: number }>();
  const cell: RawCell = { t: undefined, s: 0, hasFormula: false, formula: '', v: undefined, inline: undefined, overlong: false };

  const where = (): string => cellRef(prefix, col, row);
  const at = (): string => `${file}:${row} column ${columnLetter(col)}`;

  function tooLong(head: string): FileError {
    return new FileError(file, `${at()}: ${where()} holds more than ${MAX_CELL_CHARS.toLocaleString('en-US')} characters, the most a cell may hold (Excel's own limit): ${quote(head)}. Shorten it or split it over several cells, then save the workbook again.`);
  }

  function append(text: string): void {
    if (target === 0 || cell.overlong) return;
    if (target === 1) cell.v = (cell.v ?? '') + text;
    else if (target === 2) cell.formula += text;
    else if (!inPhonetic) cell.inline = (cell.inline ?? '') + text;
    const length = target === 1 ? cell.v!.length : target === 2 ? cell.formula.length : (cell.inline ?? '').length;
    if (length > MAX_RAW_TEXT) cell.overlong = true;
  }

  function endCell(): void {
    if (cell.hasFormula && sharedSi !== undefined) {
      if (cell.formula !== '') {
        if (sharedFormulas.size < MAX_SHARED_FORMULAS || sharedFormulas.has(sharedSi)) sharedFormulas.set(sharedSi, { formula: cell.formula, row, col });
      } else if (cell.v === undefined && cell.inline === undefined) {
        const master = sharedFormulas.get(sharedSi);
        cell.formula = master ? shiftFormula(master.formula, row - master.row, col - master.col) : `(the shared formula #${sharedSi})`;
      }
    }
    if (cell.hasFormula) cell.formula = decodeXString(cell.formula);
    const value = readRawCell(cell, ctx, where);
    if (value instanceof OverlongText) throw tooLong(value.head);
    if (value === null || value === '') return;
    if (headers === undefined) {
      if (value instanceof UnreadableCell) {
        // A row above the header row may hold one; the header row may not.
        headerProblem ??= new FileError(file, `${at()}: the header row cannot be read: ${value.reason}.`);
        if (table.header === undefined && table.headerRow === undefined) throw headerProblem;
      }
      if (col > MAX_COLUMNS) {
        throw new FileError(file, `${at()}: the header row has more than ${MAX_COLUMNS.toLocaleString('en-US')} columns (${where()} holds ${describeValue(value)}); at most ${MAX_COLUMNS.toLocaleString('en-US')} can be read. Delete the columns that are not imported, or move them to another sheet.`);
      }
      headerCells[col - 1] = value;
      return;
    }
    if (col > width) {
      throw new RowError(file, row, columnLetter(col), `this cell holds ${describeValue(value)} but its column has no header. Add a header, or delete the value.`);
    }
    values ??= new Array<CellValue>(width).fill(null);
    values[col - 1] = value;
    const indent = indentOf[cell.s];
    if (indent !== undefined && indent > 0) (indents ??= new Array<number | undefined>(width))[col - 1] = indent;
    if (typeof value === 'number' || value instanceof Date) {
      const format = formatOf[cell.s];
      if (format !== undefined) (formats ??= new Array<CellFormat | undefined>(width))[col - 1] = format;
      if (cell.hasFormula && typeof value === 'number' && isTotalFormula(cell.formula, row)) (sums ??= []).push(col - 1);
    }
  }

  /** The header row is known (`search.settled`): the rows after it must not have been read as rows above it. */
  function takeHead(): void {
    const head = search.settled!;
    if (head.line !== row && !headOnly && table.headerRow === undefined) {
      // Rows below the header row were read while the search looked at them: only a read of the head may settle it so.
      throw new Error('readSheet: the header row is found by a read of the head (headOnly), then named by headerRow');
    }
    const problem = problems.get(head.line);
    if (problem !== undefined) throw problem;
    headers = [...head.cells];
    width = headers.length;
    lastFilled = head.line;
    onHead({ headers, headerLine: head.line, sheet: sheetName, date1904: ctx.date1904, titles: search.titles(head.line), above: search.rowsAbove(head.line) });
  }

  function endRow(): void {
    if (headers === undefined) {
      const texts = Array.from(headerCells, (c) => xlsxHeaderText(c ?? null));
      const problem = headerProblem;
      headerCells = [];
      headerProblem = undefined;
      if (texts.every((t) => t.trim() === '')) return;
      try {
        search.offer(texts, row);
      } catch (err) {
        // `--header-row N` past the row: this sheet has no header row there.
        if (!table.probe) throw err;
        gaveUp = true;
        return;
      }
      if (problem !== undefined) problems.set(row, problem);
      if (search.settled === undefined) {
        if (search.exhausted) {
          if (table.probe) gaveUp = true;
          else throw search.failure();
        }
        return;
      }
      takeHead();
      return;
    }
    // Every row has the same shape (`formats` even when undefined), for the consumers' hot loops.
    if (values !== undefined) {
      if (row > lastFilled + 1) footer.blank();
      lastFilled = row;
      const taken: SourceRow = sums === undefined ? { line: row, values, formats } : { line: row, values, formats, sums };
      if (indents !== undefined) taken.indents = indents;
      footer.take(taken, out);
    }
    values = undefined;
    formats = undefined;
    sums = undefined;
    indents = undefined;
  }

  function openTag(tag: SaxTag): void {
    const name = local(tag.name);
    if (!inSheetData) {
      if (name === 'sheetData') inSheetData = !tag.isSelfClosing;
      return;
    }
    switch (name) {
      case 'row': {
        const r = tag.attributes.r;
        const before = row;
        row = r === undefined ? row + 1 : Number(r);
        if (!Number.isInteger(row) || row < 1) throw damaged(`the row number ${quote(r ?? '')}`);
        if (row <= before) throw rowOrder(before, row);
        if (row > XLSX_LIMITS.rows) throw limitPassed(sheetPart, 'rows', ` (a row numbered ${row.toLocaleString('en-US')})`);
        col = 0;
        inRow = true;
        return;
      }
      case 'c': {
        if (!inRow) return;
        const a = tag.attributes;
        if (a.r === undefined) col += 1;
        else {
          const ref = parseCellRef(a.r);
          if (ref === undefined) throw damaged(`the cell reference ${quote(a.r)}`);
          col = ref.col;
        }
        if (col > MAX_SHEET_COLUMN) throw damaged(`a cell beyond column XFD`);
        cell.t = a.t;
        cell.s = a.s === undefined ? 0 : Number(a.s);
        cell.hasFormula = false;
        cell.formula = '';
        cell.v = undefined;
        cell.inline = undefined;
        cell.overlong = false;
        sharedSi = undefined;
        inCell = true;
        if (tag.isSelfClosing) {
          inCell = false;
          endCell();
        }
        return;
      }
      case 'v':
        if (!inCell) return;
        cell.v ??= '';
        target = tag.isSelfClosing ? 0 : 1;
        return;
      case 'f':
        if (!inCell) return;
        cell.hasFormula = true;
        if (tag.attributes.t === 'shared') sharedSi = tag.attributes.si;
        target = tag.isSelfClosing ? 0 : 2;
        return;
      case 'is':
        if (!inCell) return;
        cell.inline ??= '';
        inInline = !tag.isSelfClosing;
        return;
      case 'rPh':
        if (inInline) inPhonetic = !tag.isSelfClosing;
        return;
      case 't':
        if (inInline && !tag.isSelfClosing) target = 3;
        return;
    }
  }

  function closeTag(tag: SaxTag): void {
    const name = local(tag.name);
    if (!inSheetData) {
      if (name === 'worksheet') sawEnd = true;
      return;
    }
    switch (name) {
      case 'v':
      case 'f':
      case 't':
        target = 0;
        return;
      case 'rPh':
        inPhonetic = false;
        return;
      case 'is':
        inInline = false;
        return;
      case 'c':
        if (!inCell || tag.isSelfClosing) return;
        inCell = false;
        target = 0;
        endCell();
        return;
      case 'row':
        if (!inRow) return;
        inRow = false;
        endRow();
        return;
      case 'sheetData':
        // Every row is read: what follows (merged ranges, page setup, up to 100,000 `<mergeCell>`s)
        // is the facts pass's (`sheet-facts.ts`), not parsed a second time here.
        inSheetData = false;
        sawEnd = true;
        return;
    }
  }

  function rowOrder(before: number, r: number): FileError {
    const how = r === before ? `a second row ${r}` : `row ${r} after row ${before}`;
    return new FileError(file, `${file}:${r}: sheet "${sheetName}" (${sheetPart.part}) holds ${how}: rows must be numbered in order, each once, or one of them would be lost. The workbook is damaged; open it in Excel or LibreOffice and save it again.`);
  }

  function damaged(what: string): FileError {
    return new FileError(file, `${file}:${row}: sheet "${sheetName}" holds ${what}, which cannot be read: the workbook is damaged. Open it in Excel or LibreOffice and save it again.`);
  }

  // The part's bytes are pulled by hand, so that once its rows are read the rest is still inflated
  // and checked against its size and CRC (`zip.ts`) without being parsed.
  const bytes = source[Symbol.asyncIterator]();
  async function* feed(): AsyncGenerator<Buffer> {
    for (let r = await bytes.next(); !r.done; r = await bytes.next()) yield r.value;
  }
  try {
    yield* readRows();
  } finally {
    await bytes.return?.(undefined);
  }

  async function* readRows(): AsyncGenerator<SourceRow[]> {
    for await (const events of parseXml(xml.decode(feed()), sheetPart)) {
      if (signal?.aborted) throw new InterruptedError(`reading ${file} was interrupted`);
      for (const e of events) {
        if (e.eventType === 'text') {
          if (xml.takeCut() && target !== 0) {
            cell.overlong = true;
            if (target === 3) cell.inline = (cell.inline ?? '') + e.value;
            else if (target === 1) cell.v = (cell.v ?? '') + e.value;
            else cell.formula += e.value;
          } else append(e.value);
        } else if (e.eventType === 'opentag') openTag(e.value);
        else closeTag(e.value);
        if (headOnly && (headers !== undefined || gaveUp)) return;
      }
      if (sawEnd) break;
      if (out.length >= BATCH_ROWS) {
        const full = out;
        out = [];
        yield full;
      }
    }
    if (sawEnd) for (let r = await bytes.next(); !r.done; r = await bytes.next());
    else {
      throw new FileError(file, `cannot read ${file} as an .xlsx workbook: sheet "${sheetName}" ends early, after row ${row} (the file is cut short or damaged). Open it in a spreadsheet and save it again as .xlsx, or export it as CSV.`);
    }
    if (headers === undefined && !gaveUp) {
      search.end();
      if (search.settled !== undefined) takeHead();
    }
    if (headers === undefined) {
      if (table.probe) return;
      throw search.failure() ?? new FileError(file, `sheet "${sheetName}" of ${file} is empty: its first row must be a header row naming the columns.`);
    }
    if (headOnly) return;
    table.onFooter?.(footer.end());
    if (out.length > 0) yield out;
  }
}
