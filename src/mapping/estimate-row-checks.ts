/**
 * What an estimate row may not hold however its cells read (README, "Amounts the service cannot
 * hold" and "Markups"): a currency column naming another currency than the account's
 * (`currency-columns.ts`), and a markup written as a currency amount without its type.
 *
 * The service's coding of `LINE_ITEM_MARKUP_TYPE` and `MARKUP_TYPE` is not documented
 * (docs/service.md, Estimates): a markup written as a percent (`15%`, a percent cell) or a plain
 * number is sent as that number; one written as a currency amount (`$150.00`, an .xlsx cell in a
 * currency format) while the row gives no type is a row error, never sent as 150 (which reads as
 * 150 %). A row that gives the type has said what its number means.
 */
import type { Worded } from '../errors/index.ts';
import type { CellFormat, CellValue, SourceRow } from '../tables/index.ts';
import { writtenCurrency } from '../values/written-currency.ts';
import { cellOf, colOf, formatOf, type Col } from './column-cells.ts';
import type { CurrencyColumns } from './currency-columns.ts';
import type { ColumnMap } from './header.ts';
import { isBlank } from './values.ts';

export const FLAT_MARKUP = "a flat markup cannot be sent: the service's type codes are not documented; enter it as a percent or as an item";

/** A currency symbol in a number format's code, outside quotes or inside them (`"$"#,##0.00`, `[$€-407]`, `#,##0.00 €`). */
const CURRENCY_IN_FORMAT = /[$€£¥₹₩₪₺₽]|\[\$[^\]-]/;

/** True when the cell writes a currency amount: a symbol or code in the text, or a currency number format. */
export function writtenAsMoney(cell: CellValue, format: CellFormat | undefined): boolean {
  if (typeof cell === 'string') return writtenCurrency(cell) !== undefined;
  return typeof cell === 'number' && format !== undefined && format.kind !== 'percent' && format.kind !== 'date' && CURRENCY_IN_FORMAT.test(format.code);
}

export class EstimateRowChecks {
  /** [markup column, its type column] pairs the file maps. */
  private readonly markups: Array<[Col, Col | undefined]> = [];
  private readonly problems: Array<[string, Worded]> = [];

  constructor(columns: ColumnMap, private readonly currencies: CurrencyColumns | undefined) {
    for (const [value, type] of [['line_item_markup', 'line_item_markup_type'], ['markup_value', 'markup_type']] as const) {
      const col = colOf(columns, value);
      if (col !== undefined) this.markups.push([col, colOf(columns, type)]);
    }
  }

  /** The row's problems as [header, message] (the same array each call: read it before the next). */
  check(row: SourceRow): ReadonlyArray<[string, Worded]> {
    const problems = this.problems;
    if (problems.length !== 0) problems.length = 0;
    this.currencies?.check(row.values, problems);
    for (const [value, type] of this.markups) {
      const cell = cellOf(value, row.values);
      if (isBlank(cell) || !isBlank(cellOf(type, row.values))) continue;
      if (writtenAsMoney(cell, formatOf(value, row.formats))) problems.push([value.header, `${value.header} ${JSON.stringify(shown(cell))}: ${FLAT_MARKUP}`]);
    }
    return problems;
  }
}

function shown(cell: CellValue): string {
  return typeof cell === 'string' ? cell.trim() : String(cell);
}
