/**
 * A mapped column of a file as the groupers read it: where its cells are, its cell of a row, and
 * that cell's .xlsx number format (`SourceRow.formats`), which the value parsers need to read a
 * cell as it shows (`values.ts`). Rows without formats (every CSV row, most .xlsx rows) pay one
 * comparison.
 */
import type { CellFormat, CellValue, SourceRow } from '../tables/index.ts';
import type { ColumnMap } from './header.ts';

/** A mapped column: the header it was found under and its index, or the mapping file's constant (`index` -1). */
export interface Col {
  header: string;
  index: number;
  constant: CellValue;
}

export function colOf(columns: ColumnMap, column: string): Col | undefined {
  const s = columns.source(column);
  return s === undefined ? undefined : { header: s.header, index: s.index, constant: s.constant ?? null };
}

/** The column's cell of a row: the constant, or the cell (null when the row is short). */
export function cellOf(col: Col | undefined, values: readonly CellValue[]): CellValue {
  if (col === undefined) return null;
  return col.index === -1 ? col.constant : (values[col.index] ?? null);
}

/** The number format of the column's cell: undefined for General, a constant and a row without formats. */
export function formatOf(col: Col | undefined, formats: SourceRow['formats']): CellFormat | undefined {
  return formats === undefined || col === undefined || col.index < 0 ? undefined : formats[col.index];
}
