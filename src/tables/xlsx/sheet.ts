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
  const reader = new SheetReader(sheetPart, sheetName, ctx, onHead, headOnly, signal, table);
  const bytes = source[Symbol.asyncIterator]();
  try {
    yield* reader.rows(bytes);
  } finally {
    await bytes.return?.(undefined);
  }
}

/** One read of a sheet (`readSheet`): the XML's state, the cell and row being read, and the table's. */
class SheetReader {
  private readonly file: string;
  private readonly prefix: string;
  private readonly xml = new XmlText();

  private headers: string[] | undefined = undefined;
  private width = 0;
  /** Header cells of the row being read, until the header row is found. */
  private headerCells: CellValue[] = [];
  /** The first cell of the row being read that cannot be a header (an error value), until the header row is found. */
  private headerProblem: FileError | undefined = undefined;
  private readonly search: HeaderSearch;
  /** The rows looked at as the header row whose cells cannot be a header (an error value): refused if one is chosen. */
  private readonly problems = new Map<number, FileError>();
  private readonly footer: FooterWatch;
  /** The last row that held a value: a gap after it is a blank row. */
  private lastFilled = 0;
  private out: SourceRow[] = [];
  private values: CellValue[] | undefined = undefined;
  /** The row's `SourceRow.formats`, made only when a number or date cell has a format other than General. */
  private formats: (CellFormat | undefined)[] | undefined = undefined;
  /** The row's `SourceRow.sums`: made only when a cell of the row is a SUM/SUBTOTAL formula over rows above. */
  private sums: number[] | undefined = undefined;
  /** The row's `SourceRow.indents`: made only when a cell of the row is indented. */
  private indents: (number | undefined)[] | undefined = undefined;
  private readonly indentOf: SheetContext['indents'];
  private readonly formatOf: SheetContext['formats'];

  /** A probe found no header row where the search looks: nothing more to read. */
  private gaveUp = false;
  private inSheetData = false;
  private inRow = false;
  private inCell = false;
  private inInline = false;
  private inPhonetic = false;
  /** The end of the rows was seen (`</sheetData>`, or `</worksheet>` of a sheet without rows). */
  private sawEnd = false;
  /** Which text is being read: 0 none, 1 `<v>`, 2 `<f>`, 3 `<is>…<t>`. */
  private target = 0;
  private row = 0;
  private col = 0;
  private sharedSi: string | undefined = undefined;
  private readonly sharedFormulas = new Map<string, { formula: string; row: number; col: number }>();
  private readonly cell: RawCell = { t: undefined, s: 0, hasFormula: false, formula: '', v: undefined, inline: undefined, overlong: false };

  constructor(
    private readonly sheetPart: PartOf,
    private readonly sheetName: string,
    private readonly ctx: SheetContext,
    private readonly onHead: (head: XlsxHead) => void,
    private readonly headOnly: boolean,
    private readonly signal: AbortSignal | undefined,
    private readonly table: SheetTableOptions,
  ) {
    this.file = sheetPart.file;
    this.prefix = sheetRefName(sheetName);
    this.search = new HeaderSearch(this.file, table.header, table.headerRow, 'row', table.merged);
    this.footer = new FooterWatch(table.header !== undefined);
    this.indentOf = ctx.indents;
    this.formatOf = ctx.formats;
  }

  private readonly where = (): string => cellRef(this.prefix, this.col, this.row);
  private at(): string {
    return `${this.file}:${this.row} column ${columnLetter(this.col)}`;
  }

  private tooLong(head: string): FileError {
    return new FileError(this.file, `${this.at()}: ${this.where()} holds more than ${MAX_CELL_CHARS.toLocaleString('en-US')} characters, the most a cell may hold (Excel's own limit): ${quote(head)}. Shorten it or split it over several cells, then save the workbook again.`);
  }

  private append(text: string): void {
    if (this.target === 0 || this.cell.overlong) return;
    if (this.target === 1) this.cell.v = (this.cell.v ?? '') + text;
    else if (this.target === 2) this.cell.formula += text;
    else if (!this.inPhonetic) this.cell.inline = (this.cell.inline ?? '') + text;
    const length = this.target === 1 ? this.cell.v!.length : this.target === 2 ? this.cell.formula.length : (this.cell.inline ?? '').length;
    if (length > MAX_RAW_TEXT) this.cell.overlong = true;
  }

  private endCell(): void {
    if (this.cell.hasFormula && this.sharedSi !== undefined) {
      if (this.cell.formula !== '') {
        if (this.sharedFormulas.size < MAX_SHARED_FORMULAS || this.sharedFormulas.has(this.sharedSi)) this.sharedFormulas.set(this.sharedSi, { formula: this.cell.formula, row: this.row, col: this.col });
      } else if (this.cell.v === undefined && this.cell.inline === undefined) {
        const master = this.sharedFormulas.get(this.sharedSi);
        this.cell.formula = master ? shiftFormula(master.formula, this.row - master.row, this.col - master.col) : `(the shared formula #${this.sharedSi})`;
      }
    }
    if (this.cell.hasFormula) this.cell.formula = decodeXString(this.cell.formula);
    const value = readRawCell(this.cell, this.ctx, this.where);
    if (value instanceof OverlongText) throw this.tooLong(value.head);
    if (value === null || value === '') return;
    if (this.headers === undefined) {
      if (value instanceof UnreadableCell) {
        // A row above the header row may hold one; the header row may not.
        this.headerProblem ??= new FileError(this.file, `${this.at()}: the header row cannot be read: ${value.reason}.`);
        if (this.table.header === undefined && this.table.headerRow === undefined) throw this.headerProblem;
      }
      if (this.col > MAX_COLUMNS) {
        throw new FileError(this.file, `${this.at()}: the header row has more than ${MAX_COLUMNS.toLocaleString('en-US')} columns (${this.where()} holds ${describeValue(value)}); at most ${MAX_COLUMNS.toLocaleString('en-US')} can be read. Delete the columns that are not imported, or move them to another sheet.`);
      }
      this.headerCells[this.col - 1] = value;
      return;
    }
    if (this.col > this.width) {
      throw new RowError(this.file, this.row, columnLetter(this.col), `this cell holds ${describeValue(value)} but its column has no header. Add a header, or delete the value.`);
    }
    this.values ??= new Array<CellValue>(this.width).fill(null);
    this.values[this.col - 1] = value;
    const indent = this.indentOf[this.cell.s];
    if (indent !== undefined && indent > 0) (this.indents ??= new Array<number | undefined>(this.width))[this.col - 1] = indent;
    if (typeof value === 'number' || value instanceof Date) {
      const format = this.formatOf[this.cell.s];
      if (format !== undefined) (this.formats ??= new Array<CellFormat | undefined>(this.width))[this.col - 1] = format;
      if (this.cell.hasFormula && typeof value === 'number' && isTotalFormula(this.cell.formula, this.row)) (this.sums ??= []).push(this.col - 1);
    }
  }

  /** The header row is known (`search.settled`): the rows after it must not have been read as rows above it. */
  private takeHead(): void {
    const head = this.search.settled!;
    if (head.line !== this.row && !this.headOnly && this.table.headerRow === undefined) {
      // Rows below the header row were read while the search looked at them: only a read of the head may settle it so.
      throw new Error('readSheet: the header row is found by a read of the head (headOnly), then named by headerRow');
    }
    const problem = this.problems.get(head.line);
    if (problem !== undefined) throw problem;
    this.headers = [...head.cells];
    this.width = this.headers.length;
    this.lastFilled = head.line;
    this.onHead({ headers: this.headers, headerLine: head.line, sheet: this.sheetName, date1904: this.ctx.date1904, titles: this.search.titles(head.line), above: this.search.rowsAbove(head.line) });
  }

  private endRow(): void {
    if (this.headers === undefined) {
      const texts = Array.from(this.headerCells, (c) => xlsxHeaderText(c ?? null));
      const problem = this.headerProblem;
      this.headerCells = [];
      this.headerProblem = undefined;
      if (texts.every((t) => t.trim() === '')) return;
      try {
        this.search.offer(texts, this.row);
      } catch (err) {
        // `--header-row N` past the row: this sheet has no header row there.
        if (!this.table.probe) throw err;
        this.gaveUp = true;
        return;
      }
      if (problem !== undefined) this.problems.set(this.row, problem);
      if (this.search.settled === undefined) {
        if (this.search.exhausted) {
          if (this.table.probe) this.gaveUp = true;
          else throw this.search.failure();
        }
        return;
      }
      this.takeHead();
      return;
    }
    // Every row has the same shape (`formats` even when undefined), for the consumers' hot loops.
    if (this.values !== undefined) {
      if (this.row > this.lastFilled + 1) this.footer.blank();
      this.lastFilled = this.row;
      const taken: SourceRow = this.sums === undefined ? { line: this.row, values: this.values, formats: this.formats } : { line: this.row, values: this.values, formats: this.formats, sums: this.sums };
      if (this.indents !== undefined) taken.indents = this.indents;
      this.footer.take(taken, this.out);
    }
    this.values = undefined;
    this.formats = undefined;
    this.sums = undefined;
    this.indents = undefined;
  }

  private openTag(tag: SaxTag): void {
    const name = local(tag.name);
    if (!this.inSheetData) {
      if (name === 'sheetData') this.inSheetData = !tag.isSelfClosing;
      return;
    }
    switch (name) {
      case 'row': {
        const r = tag.attributes.r;
        const before = this.row;
        this.row = r === undefined ? this.row + 1 : Number(r);
        if (!Number.isInteger(this.row) || this.row < 1) throw this.damaged(`the row number ${quote(r ?? '')}`);
        if (this.row <= before) throw this.rowOrder(before, this.row);
        if (this.row > XLSX_LIMITS.rows) throw limitPassed(this.sheetPart, 'rows', ` (a row numbered ${this.row.toLocaleString('en-US')})`);
        this.col = 0;
        this.inRow = true;
        return;
      }
      case 'c': {
        if (!this.inRow) return;
        const a = tag.attributes;
        if (a.r === undefined) this.col += 1;
        else {
          const ref = parseCellRef(a.r);
          if (ref === undefined) throw this.damaged(`the cell reference ${quote(a.r)}`);
          this.col = ref.col;
        }
        if (this.col > MAX_SHEET_COLUMN) throw this.damaged(`a cell beyond column XFD`);
        this.cell.t = a.t;
        this.cell.s = a.s === undefined ? 0 : Number(a.s);
        this.cell.hasFormula = false;
        this.cell.formula = '';
        this.cell.v = undefined;
        this.cell.inline = undefined;
        this.cell.overlong = false;
        this.sharedSi = undefined;
        this.inCell = true;
        if (tag.isSelfClosing) {
          this.inCell = false;
          this.endCell();
        }
        return;
      }
      case 'v':
        if (!this.inCell) return;
        this.cell.v ??= '';
        this.target = tag.isSelfClosing ? 0 : 1;
        return;
      case 'f':
        if (!this.inCell) return;
        this.cell.hasFormula = true;
        if (tag.attributes.t === 'shared') this.sharedSi = tag.attributes.si;
        this.target = tag.isSelfClosing ? 0 : 2;
        return;
      case 'is':
        if (!this.inCell) return;
        this.cell.inline ??= '';
        this.inInline = !tag.isSelfClosing;
        return;
      case 'rPh':
        if (this.inInline) this.inPhonetic = !tag.isSelfClosing;
        return;
      case 't':
        if (this.inInline && !tag.isSelfClosing) this.target = 3;
        return;
    }
  }

  private closeTag(tag: SaxTag): void {
    const name = local(tag.name);
    if (!this.inSheetData) {
      if (name === 'worksheet') this.sawEnd = true;
      return;
    }
    switch (name) {
      case 'v':
      case 'f':
      case 't':
        this.target = 0;
        return;
      case 'rPh':
        this.inPhonetic = false;
        return;
      case 'is':
        this.inInline = false;
        return;
      case 'c':
        if (!this.inCell || tag.isSelfClosing) return;
        this.inCell = false;
        this.target = 0;
        this.endCell();
        return;
      case 'row':
        if (!this.inRow) return;
        this.inRow = false;
        this.endRow();
        return;
      case 'sheetData':
        // Every row is read: what follows (merged ranges, page setup, up to 100,000 `<mergeCell>`s)
        // is the facts pass's (`sheet-facts.ts`), not parsed a second time here.
        this.inSheetData = false;
        this.sawEnd = true;
        return;
    }
  }

  private rowOrder(before: number, r: number): FileError {
    const how = r === before ? `a second row ${r}` : `row ${r} after row ${before}`;
    return new FileError(this.file, `${this.file}:${r}: sheet "${this.sheetName}" (${this.sheetPart.part}) holds ${how}: rows must be numbered in order, each once, or one of them would be lost. The workbook is damaged; open it in Excel or LibreOffice and save it again.`);
  }

  private damaged(what: string): FileError {
    return new FileError(this.file, `${this.file}:${this.row}: sheet "${this.sheetName}" holds ${what}, which cannot be read: the workbook is damaged. Open it in Excel or LibreOffice and save it again.`);
  }

  /**
   * The sheet's rows in batches, from the part's bytes. They are pulled by hand, so that once the
   * rows are read the rest is still inflated and checked against its size and CRC (`zip.ts`)
   * without being parsed.
   */
  async *rows(bytes: AsyncIterator<Buffer>): AsyncGenerator<SourceRow[]> {
    async function* feed(): AsyncGenerator<Buffer> {
      for (let r = await bytes.next(); !r.done; r = await bytes.next()) yield r.value;
    }
    for await (const events of parseXml(this.xml.decode(feed()), this.sheetPart)) {
      if (this.signal?.aborted) throw new InterruptedError(`reading ${this.file} was interrupted`);
      for (const e of events) {
        if (e.eventType === 'text') {
          if (this.xml.takeCut() && this.target !== 0) {
            this.cell.overlong = true;
            if (this.target === 3) this.cell.inline = (this.cell.inline ?? '') + e.value;
            else if (this.target === 1) this.cell.v = (this.cell.v ?? '') + e.value;
            else this.cell.formula += e.value;
          } else this.append(e.value);
        } else if (e.eventType === 'opentag') this.openTag(e.value);
        else this.closeTag(e.value);
        if (this.headOnly && (this.headers !== undefined || this.gaveUp)) return;
      }
      if (this.sawEnd) break;
      if (this.out.length >= BATCH_ROWS) {
        const full = this.out;
        this.out = [];
        yield full;
      }
    }
    if (this.sawEnd) for (let r = await bytes.next(); !r.done; r = await bytes.next());
    else {
      throw new FileError(this.file, `cannot read ${this.file} as an .xlsx workbook: sheet "${this.sheetName}" ends early, after row ${this.row} (the file is cut short or damaged). Open it in a spreadsheet and save it again as .xlsx, or export it as CSV.`);
    }
    if (this.headers === undefined && !this.gaveUp) {
      this.search.end();
      if (this.search.settled !== undefined) this.takeHead();
    }
    if (this.headers === undefined) {
      if (this.table.probe) return;
      throw this.search.failure() ?? new FileError(this.file, `sheet "${this.sheetName}" of ${this.file} is empty: its first row must be a header row naming the columns.`);
    }
    if (this.headOnly) return;
    this.table.onFooter?.(this.footer.end());
    if (this.out.length > 0) yield this.out;
  }
}
