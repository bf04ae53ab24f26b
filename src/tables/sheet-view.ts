import { FileError, MAX_LISTED, listAtMost, wordedLine } from '../errors/index.ts';
import { combineSheets } from './workbook-sheets.ts';
import { flatten } from './flatten.ts';
import { UnreadableCell, type CellFormat, type CellRange, type CellValue, type IgnoredLine, type OpenedTable, type SourceRow } from './types.ts';
import { columnLetter, describeValue, sheetRefName } from './xlsx-cell.ts';

/*
 * A sheet read as people see it (docs/reading-rules.md), not as its cells are stored:
 *  - a merged range shows its value in every cell it covers, but the file holds it in the
 *    top-left cell only: the other cells are filled with it. A range over several rows in a
 *    numeric field is a row error on each of its rows (a lump sum is not repeated);
 *  - hidden rows (by hand or by a filter) and hidden columns the mapping reads are what a person
 *    does not see: reading them silently sends what nobody checked, leaving them out silently
 *    drops what somebody typed. So they stop the import unless `--hidden include` (read them as
 *    any row) or `--hidden skip` (each hidden row `ignored`, reason `hidden`; a hidden column
 *    read as empty). Hidden columns the mapping does not read never matter.
 * The facts come from a pass of their own (`sheetFacts`, .xlsx only); the rows are changed as
 * they pass, so every pass over the table (reading rules, grouping) sees the same rows.
 */

export type HiddenOption = 'include' | 'skip';

export interface SheetViewOptions {
  /** `--hidden`; undefined: hidden rows and used hidden columns stop the import. */
  hidden?: HiddenOption;
  /** Header indexes the mapping reads. */
  used: readonly number[];
  /** Header indexes of numeric fields, with the field's name. */
  numeric: ReadonlyMap<number, string>;
}

/** `table` as people see it; a CSV, or a sheet with nothing merged or hidden, is returned as it is. */
export async function viewTable(table: OpenedTable, opts: SheetViewOptions): Promise<OpenedTable> {
  if (table.parts !== undefined) {
    const parts: OpenedTable[] = [];
    for (const part of table.parts) parts.push(await viewTable(part, opts));
    return combineSheets(table.file, parts, table.sheetsNotRead ?? []);
  }
  if (table.kind !== 'xlsx' || table.sheetFacts === undefined) return table;
  const facts = await table.sheetFacts();
  const below = (r: number): boolean => r > table.headerLine;
  const merged = facts.merged.filter((m) => m.top > table.headerLine);
  const hiddenRows = new Set(facts.hiddenRows.filter(below));
  const byFilter = new Set(facts.filterHiddenRows);
  const hiddenColumns = facts.hiddenColumns.filter((c) => opts.used.includes(c - 1));
  if (merged.length === 0 && hiddenRows.size === 0 && hiddenColumns.length === 0) return table;
  const sheet = table.workbook?.sheet ?? '';
  let hiddenLines: IgnoredLine[] = [];
  async function* batches(): AsyncGenerator<SourceRow[]> {
    const fill = new MergeFill(table.file, merged, opts.numeric, sheetRefName(sheet));
    const seen: number[] = [];
    const left: IgnoredLine[] = [];
    for await (const batch of table.batches()) {
      const out: SourceRow[] = [];
      for (const row of batch) {
        // A merged value in a hidden row still holds for the rows of its range that are shown.
        fill.apply(row);
        if (hiddenRows.has(row.line)) {
          if (opts.hidden === undefined) seen.push(row.line);
          else if (opts.hidden === 'skip') {
            left.push({ line: row.line, reason: 'hidden', ...wordedLine([byFilter.has(row.line) ? 'row hidden by the filter: not read (' : 'hidden row: not read (', { kind: 'hidden-skip' }, ')']) });
            continue;
          }
        }
        if (opts.hidden === 'skip') for (const c of hiddenColumns) if (c - 1 < row.values.length) row.values[c - 1] = null;
        out.push(row);
      }
      if (out.length > 0) yield out;
    }
    if (opts.hidden === undefined && (seen.length > 0 || hiddenColumns.length > 0)) throw hiddenStop(table, sheet, seen, byFilter, hiddenColumns);
    hiddenLines = left;
  }
  return {
    ...table,
    get footers() {
      return table.footers;
    },
    set footers(lines: IgnoredLine[]) {
      table.footers = lines;
    },
    get hiddenLines() {
      return hiddenLines;
    },
    get repeatedHeaders() {
      return table.repeatedHeaders;
    },
    batches,
    rows: () => flatten(batches()),
  };
}

/** The stop for hidden rows and used hidden columns without `--hidden`. */
function hiddenStop(table: OpenedTable, sheet: string, rows: number[], byFilter: ReadonlySet<number>, columns: number[]): FileError {
  const filtered = rows.filter((r) => byFilter.has(r));
  const byHand = rows.filter((r) => !byFilter.has(r));
  const parts: string[] = [];
  if (byHand.length > 0) parts.push(`hidden ${byHand.length === 1 ? 'row' : 'rows'} ${listAtMost(byHand)}`);
  if (filtered.length > 0) parts.push(`${filtered.length === 1 ? 'row' : 'rows'} ${listAtMost(filtered)} hidden by the filter`);
  if (columns.length > 0) {
    const named = columns.slice(0, MAX_LISTED).map((c) => `${columnLetter(c)} "${table.headers[c - 1] ?? ''}"`);
    parts.push(`hidden ${columns.length === 1 ? 'column' : 'columns'} ${listAtMost(named, columns.length)}`);
  }
  return new FileError(table.file, [`${table.file}: sheet "${sheet}" holds what its reader does not see: ${parts.join('; ')}. `, { kind: 'hidden' }]);
}

/** Fills the cells of merged ranges with the value of their top-left cell, row by row (rows come in ascending order). */
class MergeFill {
  private readonly pending: CellRange[];
  private active: Array<{ range: CellRange; value: CellValue; format: CellFormat | undefined; lump?: UnreadableCell }> = [];
  /**
   * For each column of the table (1 = A), the active range that covers it. Merged ranges never
   * overlap in a workbook a spreadsheet program wrote; refusing those that do keeps each row's
   * filling within the row's own cells (overlapping ranges would fill one cell once per range:
   * work that grows with ranges times rows).
   */
  private readonly cover: Array<CellRange | undefined> = [];

  constructor(
    private readonly file: string,
    merged: CellRange[],
    private readonly numeric: ReadonlyMap<number, string>,
    private readonly prefix: string,
  ) {
    this.pending = [...merged].sort((a, b) => b.top - a.top);
  }

  apply(row: SourceRow): void {
    while (this.pending.length > 0 && this.pending[this.pending.length - 1]!.top <= row.line) {
      const range = this.pending.pop()!;
      // A range whose top row holds nothing was never handed out: it has no value to fill.
      if (range.top === row.line) {
        const value = row.values[range.left - 1] ?? null;
        if (value !== null) {
          this.claim(range, row.values.length);
          this.active.push({ range, value, format: row.formats?.[range.left - 1] });
        }
      }
    }
    if (this.active.length === 0) return;
    this.active = this.active.filter((a) => a.range.bottom >= row.line);
    for (const a of this.active) {
      const { range } = a;
      for (let c = range.left; c <= range.right && c <= row.values.length; c++) {
        const i = c - 1;
        const field = range.bottom > range.top ? this.numeric.get(i) : undefined;
        if (field !== undefined) row.values[i] = (a.lump ??= this.lumpSum(range, a.value, field));
        else if (c !== range.left || row.line !== range.top) {
          row.values[i] = a.value;
          if (a.format !== undefined) (row.formats ??= new Array<CellFormat | undefined>(row.values.length))[i] = a.format;
        }
      }
    }
  }

  /** Marks the table's columns `range` covers as its own; a column an active range already covers is an overlap. */
  private claim(range: CellRange, width: number): void {
    for (let c = range.left; c <= range.right && c <= width; c++) {
      const other = this.cover[c];
      if (other !== undefined && other.bottom >= range.top) {
        throw new FileError(this.file, `${this.file}: the merged ranges ${this.prefix}!${other.ref} and ${this.prefix}!${range.ref} overlap, which no spreadsheet program writes: the workbook is damaged. Open it in Excel or LibreOffice and save it again as .xlsx, or export the sheet as CSV.`);
      }
      this.cover[c] = range;
    }
  }

  private lumpSum(range: CellRange, value: CellValue, field: string): UnreadableCell {
    const ref = `${this.prefix}!${range.ref}`;
    return new UnreadableCell(
      ref,
      `${ref} is one cell merged over rows ${range.top} to ${range.bottom} holding ${describeValue(value)} in the numeric field ${field}: a lump sum is not repeated on each row. Unmerge it and put the amount on one row, or split it over the rows`,
      value instanceof Date ? value.toISOString().slice(0, 10) : String(value),
    );
  }
}
