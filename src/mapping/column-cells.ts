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
  /** A name, description or note field: a number is read as the text its format shows (`SHOWN_TEXT_COLUMNS`). */
  shows: boolean;
}

/**
 * The name, description and note fields (docs/reading-rules.md "What a cell shows"): a number in
 * them is read as Excel shows it under any format (`#,##0.00 €` shows `355,232.32 €`). Never a
 * key, id, reference or code (`bill_ref`, `cost_code`, category and estimate names, which group
 * rows): those keep a number's digits unless its format pads or labels it.
 */
export const SHOWN_TEXT_COLUMNS: ReadonlySet<string> = new Set([
  'item', 'description', 'bid_notes', 'notes_teamlink', 'notes_bid', 'field_notes', 'notes_clientlink', 'notes_field', 'general_notes', 'notes_general', 'markup_name',
  'title', 'notes', 'item_name', 'item_description',
]);

export function colOf(columns: ColumnMap, column: string): Col | undefined {
  const s = columns.source(column);
  if (s === undefined) return undefined;
  // Every Col has the same shape (`shows` always set), for the groupers' hot loops.
  return { header: s.header, index: s.index, constant: s.constant ?? null, shows: SHOWN_TEXT_COLUMNS.has(column) };
}

/** The column's cell of a row: the constant, or the cell (null when the row is short). */
export function cellOf(col: Col | undefined, values: readonly CellValue[]): CellValue {
  if (col === undefined) return null;
  return col.index === -1 ? col.constant : (values[col.index] ?? null);
}

/** The number format of the column's cell: undefined for General, a constant and a row without formats. */
export function formatOf(col: Col | undefined, formats: SourceRow['formats']): CellFormat | undefined {
  if (formats === undefined || col === undefined || col.index < 0) return undefined;
  const format = formats[col.index];
  return format !== undefined && col.shows === true ? { ...format, shown: true } : format;
}
