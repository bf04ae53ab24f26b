/**
 * What the readers hand to the mapping layer. Rows are arrays aligned with `headers` rather than
 * objects keyed by header: the mapping layer resolves its columns to indexes once per file
 * (`resolveColumns` in `src/mapping/header.ts`), so no per-row object is built (a 1,000,000-row
 * import must stay close to raw csv-parse speed).
 */
import type { Wording } from '../errors/index.ts';

/**
 * A cell that holds nothing that can be read as a value: an .xlsx error value (`#DIV/0!`,
 * `#N/A`, …) or a formula with no saved result. It is never read as empty nor as its text
 * (docs/reading-rules.md): every value parser refuses it with `reason`, so its row is invalid.
 */
export class UnreadableCell {
  constructor(
    /** Where it is, as a spreadsheet user names it: `Sheet1!D7`. */
    readonly ref: string,
    /** A whole sentence naming the cell and what to do, e.g. `Sheet1!D7 holds the error #DIV/0! ...`. */
    readonly reason: string,
    /** The cell as typed in the sheet (`#DIV/0!`, or the formula `=A1/B1`), for the errors file. */
    readonly typed: string,
  ) {}
}

/**
 * One cell. CSV cells are always strings (empty string for an empty field). An .xlsx cell is a
 * string, a number, a boolean, a `Date` (date-formatted cells; its UTC fields hold the wall-clock
 * time shown in Excel, as exceljs builds it), `null` (empty cell) or an `UnreadableCell`.
 */
export type CellValue = string | number | boolean | Date | null | UnreadableCell;

export interface SourceRow {
  /**
   * Where the row starts in the file: for CSV the physical line on which the record starts
   * (1-based, counting every line break, including those inside quoted fields); for .xlsx the
   * sheet's row number.
   */
  line: number;
  /** One value per header, in header order (`values[i]` belongs to `headers[i]`). */
  values: CellValue[];
  /**
   * .xlsx only, and only when a number or date cell of the row has a number format other than
   * General: `formats[i]` is the format of `values[i]` (undefined for General, text, booleans and
   * empty cells). Absent on most rows of most sheets, so that reading costs nothing per row.
   */
  formats?: (CellFormat | undefined)[];
  /**
   * .xlsx only, and only on a row with such a cell: the indexes of `values` whose cell is a `SUM`
   * or `SUBTOTAL` formula over rows above (`xlsx/sum-formula.ts`), which proves a total row
   * (docs/reading-rules.md).
   */
  sums?: number[];
  /**
   * .xlsx only, and only on a row with such a cell: the indent level of each cell whose alignment
   * indents it (`<alignment indent>`; undefined for none), which says the level of a section
   * heading (docs/reading-rules.md).
   */
  indents?: (number | undefined)[];
}

/**
 * What an .xlsx number format makes of a number (the value stays the number Excel stored):
 * - `percent`: `0%`, `0.00%`: the cell holds a fraction and shows it times 100;
 * - `padded`: a whole-number format that adds leading zeros or characters of its own (`0000`
 *   shows 310 as `0310`, `00-000` shows 2410 as `02-410`);
 * - `date`: a date or time, with the `order` its day and month are written in when it writes both
 *   (none for Excel's built-in short date, id 14, which follows the reader's system settings);
 * - `text`: `@`, a cell meant to hold text (a number in it was typed before the format was set);
 * - `other`: any other format (`#,##0.00`, `0.00E+00`, currencies).
 */
export interface CellFormat {
  kind: 'percent' | 'padded' | 'date' | 'text' | 'other';
  /** `numFmtId` in styles.xml (0-163 built in, 164 and up the workbook's own). */
  id: number;
  /** The format code, e.g. `0000`, `00\-000`, `dd/mm/yyyy` (for built-ins, Excel's en-US code). */
  code: string;
  order?: DateOrder;
  /** Set by the reader of a name, description or note field: the number is read as the text the format shows. */
  shown?: boolean;
}

/** Day first, month first, or year, month, day (ISO). */
export type DateOrder = 'DMY' | 'MDY' | 'YMD';

/** A workbook's sheets as its tabs show them, from `xl/workbook.xml`. */
export interface WorkbookFacts {
  /** Every sheet in tab order (chart sheets and dialog sheets too: `activeTab` counts them). */
  sheets: WorkbookSheet[];
  /** Index into `sheets` of the tab that was shown when the workbook was saved (`<workbookView activeTab>`; 0 when absent). */
  activeTab: number;
  /** The name of the sheet this table reads. */
  sheet: string;
}

export interface WorkbookSheet {
  name: string;
  /** `hidden` is unhidden from Excel's menu; `veryHidden` only from VBA. */
  state: 'visible' | 'hidden' | 'veryHidden';
  /** False for a chart sheet or another sheet without cells. */
  worksheet: boolean;
}

/** A rectangle of cells, numbered from 1 as Excel numbers rows and columns. */
export interface CellRange {
  /** As written in the file: `A2:A4`. */
  ref: string;
  top: number;
  left: number;
  bottom: number;
  right: number;
}

/** What the sheet read shows besides its cells. */
export interface SheetFacts {
  /** `<mergeCell>` ranges, in the order written. */
  merged: CellRange[];
  /** Every row written with `hidden="1"`, hidden by hand or by a filter, ascending. */
  hiddenRows: number[];
  /**
   * The rows of `hiddenRows` below the autofilter's header row and within its range: rows a filter
   * hides (Excel writes them as it writes a row hidden by hand; only the range tells them apart).
   */
  filterHiddenRows: number[];
  /** Columns (1 = A) written with `<col hidden="1">`, ascending. */
  hiddenColumns: number[];
  /** The sheet's `<autoFilter ref>`, when it has one. */
  autoFilter: CellRange | undefined;
}

export type TableKind = 'csv' | 'xlsx';

/** `--sheet all`. */
export const ALL_SHEETS = 'all';
/** Rows per sheet in the numbering of `--sheet all` (Excel's last row): sheet k's row r is k × this + r. */
export const SHEET_STRIDE = 1_048_576;

export interface OpenedTable {
  /** The path as given by the user, used in every message. */
  file: string;
  /**
   * The names of the header row's columns (not normalised): as written, a name under a group row
   * `GROUP NAME`, a repeated name `NAME (2)` (`header-names.ts`).
   */
  headers: string[];
  /** .xlsx: the cell at `line` (as the report numbers lines) under header index `index`, as Excel names it: `Sheet1!D2`. */
  cellName?: (line: number, index: number) => string;
  /** Per column, the lower name of a grouped column that names it alone (`header-names.ts`); absent without a group row. */
  headerAliases?: (string | undefined)[];
  /**
   * The page header printed again below the header row (a row equal to it, and the rows directly
   * above that equal title lines), as `header` lines. Known once `rows()` or `batches()` has been
   * read to the end.
   */
  repeatedHeaders?: IgnoredLine[];
  /** Line of the header row (1 unless blank lines or rows precede it). */
  headerLine: number;
  kind: TableKind;
  /**
   * CSV only: the WHATWG name of the encoding it is read in (`utf-8`, `utf-16le`, `windows-1252`,
   * `macintosh`, …), or `utf-8-bom`. Known from the start of the file when `openTable` returns; a
   * file that is pure ASCII up to a Windows-1252 letter far down reads as `utf-8` until `rows()`
   * or `batches()` reaches that letter.
   */
  encoding?: string;
  /** CSV only: the detected delimiter. */
  delimiter?: string;
  /**
   * .xlsx only: the workbook counts serial days in the 1904 date system (`<workbookPr
   * date1904="1"/>`). Date-formatted cells are already `Date`s; a plain number that a date
   * column reads as a serial day (`parseDate`) needs this to be read from the right epoch.
   */
  date1904?: boolean;
  /** .xlsx only: the workbook's sheets, their visibility and the active tab. */
  workbook?: WorkbookFacts;
  /**
   * .xlsx only: merged ranges, hidden rows and columns and the autofilter of the sheet read. Read
   * on the first call (a pass over the sheet, see `xlsx/sheet-facts.ts`), then kept.
   */
  sheetFacts?: () => Promise<SheetFacts>;
  /**
   * The rows above the header row that are not blank (a title block, docs/reading-rules.md), as
   * `title` lines; a `sep=` line and blank lines are not among them.
   */
  titles: IgnoredLine[];
  /**
   * The footer below the last row (a blank row, then rows with at most one value), as `footer`
   * lines. Known once `rows()` or `batches()` has been read to the end (empty until then); those
   * rows are never handed out as data rows.
   */
  footers: IgnoredLine[];
  /**
   * .xlsx read with `--sheet all`: the sheets read, in workbook order, each a table of its own. A
   * row of the `k`th (from 0) is numbered `k × SHEET_STRIDE + its row`; `lineName` says it as
   * `Sheet!row`.
   */
  parts?: OpenedTable[];
  /** With `parts`: the workbook's sheets that were not read (no header row, hidden, not worksheets). */
  sheetsNotRead?: string[];
  /** With `parts`: how the report names a line (`'Rev B'!7`). */
  lineName?: (line: number) => string;
  /**
   * The hidden rows left out with `--hidden skip` (`sheet-view.ts`), as `hidden` lines. Known once
   * `rows()` or `batches()` has been read to the end.
   */
  hiddenLines?: IgnoredLine[];
  /** The data rows, one at a time. Each call reads the file again from the start. */
  rows(): AsyncIterable<SourceRow>;
  /**
   * The same rows in batches (one per chunk read), for hot loops: iterating a batch with a plain
   * `for` avoids one promise per row. Each call reads the file again from the start.
   */
  batches(): AsyncIterable<SourceRow[]>;
}

/** A line of the file that is not part of the table: a title above the header row, or a footer below the rows. */
export interface IgnoredLine {
  line: number;
  reason: 'title' | 'footer' | 'hidden' | 'header';
  /** What the report says of it (the CLI's words). */
  message: string;
  /** The message as parts, when it holds advice (`errors/wording.ts`). */
  wording?: Wording;
}

/**
 * How the reader tells the header row from a title block above it (docs/reading-rules.md): the header
 * row is, of the first `HEADER_SEARCH_ROWS` rows, the one that names the most columns among those
 * in which every required column is found. The mapping layer knows which columns are required; the reader only asks.
 */
export interface HeaderRule {
  /**
   * The required columns a row named `names` lacks as a header row, and how many of the columns
   * the mapping (or the import's own column names) names it holds (constants not counted).
   * `aliases`: per column, the lower name of a grouped column that may name it alone (`header-names.ts`).
   */
  check(names: readonly string[], aliases?: readonly (string | undefined)[]): { missing: readonly string[]; named: number };
  /** The error when no row qualifies: `closest` is the row that came closest (its line and cells, what it lacks). */
  notFound(closest: HeaderCandidate, rowsSearched: number): Error;
}

/** A row that was looked at as a possible header row. */
export interface HeaderCandidate {
  line: number;
  cells: readonly string[];
  missing: readonly string[];
}

/** A table's header row and the rows above it, as the reader found them: how its columns are named, and what a page header printed again looks like. */
export interface HeadRows {
  /** The header row's cells as written. */
  cells: readonly string[];
  /** The rows above it that are not blank (the title block), with their cells, the nearest last. */
  above: readonly HeaderCandidate[];
}

export interface OpenTableOptions {
  /**
   * Which row is the header row: without it, the first row that is not blank (a first `{}` line
   * is a title); with it, the first row that `header.check` accepts.
   */
  header?: HeaderRule;
  /** `--header-row N`: the physical line (CSV) or sheet row (.xlsx) of the header row; rows above it are the title block. */
  headerRow?: number;
  /** CSV only: `--encoding`; default `auto` (docs/reading-rules.md). */
  encoding?: import('./encodings.ts').EncodingOption;
  /** CSV only: `--delimiter`; default `auto` (docs/reading-rules.md). */
  delimiter?: import('./delimiter.ts').DelimiterOption;
  /**
   * .xlsx only: the sheet to read (a hidden one too), or `all` (`ALL_SHEETS`): every visible sheet
   * with a header row. Default: with a `header` rule, the one visible sheet with a header row
   * (several are an error naming them); without, the first visible sheet.
   */
  sheet?: string;
  /** Stops reading between chunks; the iterator then throws `InterruptedError`. */
  signal?: AbortSignal;
}
