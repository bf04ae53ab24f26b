/**
 * How `BillGrouper.add` (bills.ts) keys a row's bill_ref, for a first pass over the file that
 * finds each bill_ref's last row (`BillGrouper.closeBillsAfter`).
 */
import type { SourceRow } from '../tables/index.ts';
import { cellOf, colOf, formatOf } from './column-cells.ts';
import type { ColumnMap } from './header.ts';
import { keyText, parseRef } from './record-key.ts';
import { CellValueError } from './values.ts';

/**
 * How `BillGrouper.add` keys a row's bill_ref (its `keyText`; undefined: none, or a cell that
 * cannot be read, which makes the row a bill of its own), for a first pass over the file that
 * finds each bill_ref's last row (`BillGrouper.closeBillsAfter`). Undefined when the file has no bill_ref.
 */
export function billRefReader(columns: ColumnMap): ((row: SourceRow) => string | undefined) | undefined {
  const ref = colOf(columns, 'bill_ref');
  if (ref === undefined) return undefined;
  return ({ values, formats }) => {
    const cell = cellOf(ref, values);
    if (cell === null || cell === '') return undefined;
    try {
      const text = parseRef(cell, formatOf(ref, formats));
      return text === undefined ? undefined : keyText(text);
    } catch (err) {
      if (err instanceof CellValueError) return undefined;
      throw err;
    }
  };
}
