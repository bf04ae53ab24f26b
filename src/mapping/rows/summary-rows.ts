/**
 * Summary rows known by a column (docs/reading-rules.md, "Summary rows"): with the mapping key
 * `"summaryRows": {"column": "Main Line", "values": ["*"]}`, a bill row whose cell in that column
 * holds one of the values (without `values`: any value) repeats its bill's total (NetSuite's
 * "Main Line"; on the import page, `Summary rows` naming a column). It is a total row
 * (`ctx.total`: fill-down stops there, the kinds rules do not see it) and no line: the grouper
 * checks it against its bill's lines once the bill is complete, since such a row usually comes
 * first (`RowReport.summary`, `BillGrouper.summaryRow`), and reports it `ignored` (`total`) or
 * as a row error that holds its bill back.
 */
import type { SourceRow } from '../../tables/index.ts';
import { auxText } from '../aux-columns.ts';
import type { Col } from '../column-cells.ts';
import { keyText } from '../../values/key-text.ts';
import type { RowContext, RowReport, RowRule } from './row-rules.ts';

export class SummaryRowsByColumn implements RowRule {
  /** Undefined: any value marks a summary row. */
  private readonly values: ReadonlySet<string> | undefined;

  constructor(
    /** The column's index in the file, and its header as written. */
    private readonly index: number,
    private readonly header: string,
    values: readonly string[] | undefined,
    /** The bill_ref column: the bill a summary row holds (a streamed plan keeps it open until then). */
    private readonly ref: Col | undefined,
    /** Undefined: a replay, which recognises the rows and reports nothing. */
    private readonly report: RowReport | undefined,
  ) {
    this.values = values === undefined ? undefined : new Set(values.map(keyText));
  }

  apply(row: SourceRow, ctx: RowContext): boolean {
    const text = auxText(row.values, this.index);
    if (text === '' || (this.values !== undefined && !this.values.has(keyText(text)))) return true;
    ctx.total = true;
    const own = this.ref === undefined || this.ref.index < 0 ? '' : auxText(row.values, this.ref.index);
    ctx.totalRef = own === '' ? undefined : own;
    this.report?.summary(row, `${this.header} ${JSON.stringify(text)}`);
    return false;
  }
}
