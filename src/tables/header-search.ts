import { UsageError } from '../errors/index.ts';
import type { HeaderCandidate, HeaderRule, IgnoredLine } from './types.ts';

/** docs/reading-rules.md: the header row is looked for among this many rows (blank rows not counted). */
export const HEADER_SEARCH_ROWS = 30;

/** A row that is looked at, with what makes one candidate closer than another. */
interface Scored extends HeaderCandidate {
  named: number;
  filled: number;
}

/**
 * Where the table starts (docs/reading-rules.md), decided row by row as the reader meets the rows above
 * it: the reader `offer`s each row until one is the header row; the rows offered before it are the
 * title block. One home for the rule, shared by the CSV and .xlsx readers:
 *  - `--header-row N` (`row`): the row at N is the header row, the rows above it are titles;
 *  - with a `rule` (an import): the first of the first 30 rows that are not blank in which the
 *    rule finds every required column; blank rows are skipped;
 *  - neither (a vendors file, a preview): the first row, blank or not, unless it is MYOB's `{}`.
 */
export class HeaderSearch {
  private readonly above: number[] = [];
  private best: Scored | undefined;
  private searched = 0;
  private lastLine = 0;

  constructor(
    private readonly file: string,
    private readonly rule: HeaderRule | undefined,
    private readonly row: number | undefined,
    /** How a user names a position of this file: `line` (CSV) or `row` (a sheet). */
    private readonly unit: 'line' | 'row',
  ) {}

  /** True when `cells` (the row at `line`) is the header row; otherwise it is noted as above the header. */
  offer(cells: readonly string[], line: number): boolean {
    this.lastLine = line;
    if (this.row !== undefined) {
      if (line === this.row) return true;
      if (line > this.row) throw this.noRowAtHeaderRow();
      if (!isBlank(cells)) this.above.push(line);
      return false;
    }
    if (this.rule === undefined) {
      if (!isBraces(cells)) return true;
      this.above.push(line);
      return false;
    }
    if (isBlank(cells)) return false;
    this.searched++;
    if (!isBraces(cells)) {
      const { missing, named } = this.rule.check(cells);
      if (missing.length === 0) return true;
      const scored = { line, cells, missing, named, filled: filledCells(cells) };
      if (this.best === undefined || closer(scored, this.best)) this.best = scored;
    }
    this.above.push(line);
    return false;
  }

  /** True once `HEADER_SEARCH_ROWS` rows were offered without a header row among them: throw `failure()`. */
  get exhausted(): boolean {
    return this.rule !== undefined && this.row === undefined && this.searched >= HEADER_SEARCH_ROWS;
  }

  /** The row that came closest so far (none when no row was looked at). */
  get closest(): Readonly<Scored> | undefined {
    return this.best;
  }

  /**
   * The error for a table without a header row: the search is exhausted, or the file ended first.
   * Undefined when nothing but blank rows were offered (the reader then says the file is empty).
   */
  failure(): Error | undefined {
    if (this.row !== undefined) return this.lastLine > 0 ? this.noRowAtHeaderRow() : undefined;
    if (this.rule === undefined || this.searched === 0) return undefined;
    if (this.best === undefined) {
      // Only `{}` lines: as close as anything, and lacking everything.
      return this.rule.notFound({ line: this.above[0]!, cells: ['{}'], missing: this.rule.check([]).missing }, this.searched);
    }
    return this.rule.notFound(this.best, this.searched);
  }

  /** The rows above the header row at `headerLine` that are not blank, as title lines of the report. */
  titles(headerLine: number): IgnoredLine[] {
    const message = `title above the header row (${this.unit} ${headerLine}): not part of the table`;
    return this.above.filter((l) => l < headerLine).map((line) => ({ line, reason: 'title', message }));
  }

  private noRowAtHeaderRow(): Error {
    const n = this.row!;
    return new UsageError([
      { kind: 'option', option: 'header-row', value: String(n) },
      `: ${this.unit} ${n} of ${this.file} holds no row (it is blank, past the end${this.unit === 'line' ? ', or inside a quoted field of the row above' : ''}). ` +
        `Give the ${this.unit} on which the header row is, as a spreadsheet numbers it.`,
    ]);
  }
}

/** Of several searches of one file (CSV: one per delimiter), the one whose closest row came closest. */
export function closestSearch(searches: readonly HeaderSearch[]): HeaderSearch {
  let best = searches[0]!;
  for (const s of searches) {
    const a = s.closest;
    const b = best.closest;
    if (a !== undefined && (b === undefined || closer(a, b))) best = s;
  }
  return best;
}

/** Fewer required columns lacking, then more known columns named, then more cells filled; the first of equals stays. */
function closer(a: Scored, b: Scored): boolean {
  if (a.missing.length !== b.missing.length) return a.missing.length < b.missing.length;
  if (a.named !== b.named) return a.named > b.named;
  return a.filled > b.filled;
}

function filledCells(cells: readonly string[]): number {
  let n = 0;
  for (const c of cells) if (c.trim() !== '') n++;
  return n;
}

function isBlank(cells: readonly string[]): boolean {
  for (const c of cells) if (c.trim() !== '') return false;
  return true;
}

/** MYOB starts its exports with a `{}` line: a title, never a header. */
function isBraces(cells: readonly string[]): boolean {
  return filledCells(cells) === 1 && cells[0]?.trim() === '{}';
}
