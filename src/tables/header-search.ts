import { UsageError } from '../errors/index.ts';
import { headerNames, type HeaderNames } from './header-names.ts';
import type { CellRange, HeaderCandidate, HeaderRule, IgnoredLine } from './types.ts';

/** docs/reading-rules.md: the header row is looked for among this many rows (blank rows not counted). */
export const HEADER_SEARCH_ROWS = 30;

/** A row that is looked at, with what makes one candidate closer than another. */
interface Scored extends HeaderCandidate {
  named: number;
  filled: number;
}

/**
 * Where the table starts (docs/reading-rules.md), decided from the rows the reader meets: the reader
 * `offer`s each row; once `settled` says which row is the header row, the rows offered before it
 * are the title block. One home for the rule, shared by the CSV and .xlsx readers:
 *  - `--header-row N` (`row`): the row at N is the header row, the rows above it are titles;
 *  - with a `rule` (an import): of the first 30 rows that are not blank, the one that names the
 *    most columns (`rule.check`'s `named`) among those that lack no required column; ties go to
 *    the first, and a row that names no column is never the header row (a title line
 *    "Estimate ES-1042" is none, even when the mapping's constants give every required column).
 *    So the search is settled only when 30 rows were offered, or the table ended first (`end`);
 *  - neither (a vendors file, a preview): the first row, blank or not, unless it is MYOB's `{}`.
 */
export class HeaderSearch {
  private readonly above: number[] = [];
  /** Every row offered that is not blank, in order (at most `HEADER_SEARCH_ROWS`): the title block, and the rows a group row is looked for among. */
  private readonly offered: HeaderCandidate[] = [];
  private best: Scored | undefined;
  private chosen: Scored | undefined;
  private decided: HeaderCandidate | undefined;
  private searched = 0;
  private lastLine = 0;

  constructor(
    private readonly file: string,
    private readonly rule: HeaderRule | undefined,
    private readonly row: number | undefined,
    /** How a user names a position of this file: `line` (CSV) or `row` (a sheet). */
    private readonly unit: 'line' | 'row',
    /** .xlsx: the sheet's merged ranges (a group row merged over the header's columns). */
    private readonly merged: readonly CellRange[] = [],
  ) {}

  /**
   * Takes the row at `line`. True when it is the header row and that is known at once (`--header-row`,
   * or no rule); with a rule, the header row is known once `settled` is (after `HEADER_SEARCH_ROWS`
   * rows, or `end()`).
   */
  offer(cells: readonly string[], line: number): boolean {
    this.lastLine = line;
    if (this.row !== undefined) {
      if (line === this.row) return this.decide({ line, cells, missing: [] });
      if (line > this.row) throw this.noRowAtHeaderRow();
      if (!isBlank(cells)) this.keep(line, cells);
      return false;
    }
    if (this.rule === undefined) {
      if (!isBraces(cells)) return this.decide({ line, cells, missing: [] });
      this.keep(line, cells);
      return false;
    }
    if (isBlank(cells) || this.decided !== undefined) return false;
    this.searched++;
    const above = this.offered.slice();
    this.keep(line, cells);
    if (!isBraces(cells)) {
      const view = headerNames(cells, line, above, this.merged);
      const { missing, named } = this.rule.check(view.names, view.aliases);
      const scored = { line, cells, missing, named, filled: filledCells(cells) };
      if (this.best === undefined || closer(scored, this.best)) this.best = scored;
      // The header row names the most columns of the rows that lack none; the first of equals stays.
      if (missing.length === 0 && named > 0 && (this.chosen === undefined || named > this.chosen.named)) this.chosen = scored;
    }
    if (this.searched >= HEADER_SEARCH_ROWS && this.chosen !== undefined) this.decide(this.chosen);
    return false;
  }

  /** The table ends (or the rows read end) before the search has looked at 30 rows: the best row so far is the header row. */
  end(): void {
    if (this.decided === undefined && this.chosen !== undefined) this.decide(this.chosen);
  }

  /** The header row, once it is known. */
  get settled(): HeaderCandidate | undefined {
    return this.decided;
  }

  /** The names of the columns of the header row `head` (`header-names.ts`: groups above it, repeated names). */
  namesOf(head: HeaderCandidate): HeaderNames {
    return headerNames(head.cells, head.line, this.rowsAbove(head.line), this.merged);
  }

  /** The rows offered before the header row at `line` that are not blank (the nearest last), with their cells. */
  rowsAbove(line: number): readonly HeaderCandidate[] {
    return this.offered.filter((r) => r.line < line);
  }

  /** True once `HEADER_SEARCH_ROWS` rows were offered without a header row among them: throw `failure()`. */
  get exhausted(): boolean {
    return this.rule !== undefined && this.row === undefined && this.searched >= HEADER_SEARCH_ROWS && this.decided === undefined;
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
      return this.rule.notFound({ line: this.above[0]!, cells: ['{}'], missing: this.rule.check([], []).missing }, this.searched);
    }
    return this.rule.notFound(this.best, this.searched);
  }

  /** The rows above the header row at `headerLine` that are not blank, as title lines of the report. */
  titles(headerLine: number): IgnoredLine[] {
    const message = `title above the header row (${this.unit} ${headerLine}): not part of the table`;
    return this.above.filter((l) => l < headerLine).map((line) => ({ line, reason: 'title', message }));
  }

  private keep(line: number, cells: readonly string[]): void {
    this.above.push(line);
    if (this.offered.length < HEADER_SEARCH_ROWS) this.offered.push({ line, cells, missing: [] });
  }

  private decide(candidate: HeaderCandidate): true {
    this.decided = candidate;
    return true;
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

/**
 * For the stop when no row is the header row: a row that names a column before one that names
 * none, then fewer required columns lacking, then more columns named, then more cells filled;
 * the first of equals stays.
 */
function closer(a: Scored, b: Scored): boolean {
  if (a.named > 0 !== b.named > 0) return a.named > 0;
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
