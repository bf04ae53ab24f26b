/**
 * What the readers hand to the mapping layer. Rows are arrays aligned with `headers` rather than
 * objects keyed by header: the mapping layer resolves its columns to indexes once per file
 * (`resolveColumns` in `src/mapping/header.ts`), so no per-row object is built (a 1,000,000-row
 * import must stay close to raw csv-parse speed).
 */

/**
 * A cell that holds nothing that can be read as a value: an .xlsx error value (`#DIV/0!`,
 * `#N/A`, …) or a formula with no saved result. It is never read as empty nor as its text
 * (CONTRACT.md §3): every value parser refuses it with `reason`, so its row is invalid.
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
}

export type TableKind = 'csv' | 'xlsx';

export interface OpenedTable {
  /** The path as given by the user, used in every message. */
  file: string;
  /** The header row as written in the file (not normalised). */
  headers: string[];
  /** Line of the header row (1 unless blank lines or rows precede it). */
  headerLine: number;
  kind: TableKind;
  /**
   * CSV only: `utf-8`, `utf-8-bom`, `utf-16le`, `utf-16be` or `windows-1252`. Known from the
   * start of the file when `openTable` returns; a file that is pure ASCII up to a Windows-1252
   * letter far down reads as `utf-8` until `rows()` or `batches()` reaches that letter.
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
  /**
   * The rows above the header row that are not blank (a title block, CONTRACT.md §3a), as
   * `title` lines; a `sep=` line and blank lines are not among them.
   */
  titles: IgnoredLine[];
  /**
   * The footer below the last row (a blank row, then rows with at most one value), as `footer`
   * lines. Known once `rows()` or `batches()` has been read to the end (empty until then); those
   * rows are never handed out as data rows.
   */
  footers: IgnoredLine[];
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
  reason: 'title' | 'footer';
  /** What the report says of it. */
  message: string;
}

/**
 * How the reader tells the header row from a title block above it (CONTRACT.md §3a): the header
 * row is the first of the first `HEADER_SEARCH_ROWS` rows in which every required column is
 * found. The mapping layer knows which columns are required; the reader only asks.
 */
export interface HeaderRule {
  /** The required columns `cells` lacks as a header row (none: it is the header row), and how many known columns it names. */
  check(cells: readonly string[]): { missing: readonly string[]; named: number };
  /** The error when no row qualifies: `closest` is the row that came closest (its line and cells, what it lacks). */
  notFound(closest: HeaderCandidate, rowsSearched: number): Error;
}

/** A row that was looked at as a possible header row. */
export interface HeaderCandidate {
  line: number;
  cells: readonly string[];
  missing: readonly string[];
}

export interface OpenTableOptions {
  /**
   * Which row is the header row: without it, the first row that is not blank (a first `{}` line
   * is a title); with it, the first row that `header.check` accepts.
   */
  header?: HeaderRule;
  /** `--header-row N`: the physical line (CSV) or sheet row (.xlsx) of the header row; rows above it are the title block. */
  headerRow?: number;
  /** CSV only: `--encoding`; default `auto` (CONTRACT.md §3). */
  encoding?: import('./input-decoder.ts').EncodingOption;
  /** .xlsx only: the sheet to read; default the first sheet of the workbook. */
  sheet?: string;
  /** Stops reading between chunks; the iterator then throws `InterruptedError`. */
  signal?: AbortSignal;
}
