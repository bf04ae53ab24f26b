/**
 * Split lines and fill-down (docs/reading-rules.md). With `"fillDown": [columns]` (`--fill-down
 * COLS`), an empty cell of those columns takes the value of the row above, as filled; it stops
 * at a blank row, a total row, a section heading and a row with a kind of its own (a new
 * transaction). Without fill-down of `bill_ref`, a file with a bill_ref column whose empty
 * bill_ref sits under a filled one is a split line the tool cannot place: a row error that
 * stops the bill above and suggests `--fill-down bill_ref`.
 *
 * Decision where the contract is silent: a row that names its own project and vendor is a new
 * transaction even without a kind column (a bill of its own, keyed by its content, as before);
 * a split line is one that, as exports write them, leaves one of those empty too.
 */
import type { CellFormat, CellValue, SourceRow } from '../../tables/index.ts';
import { auxText } from '../aux-columns.ts';
import type { Col } from '../column-cells.ts';
import type { RowContext, RowReport, RowRule } from './row-rules.ts';
import type { ColumnsOf } from './totals.ts';

export class FillDown implements RowRule {
  private readonly cols: Col[];
  private readonly above: CellValue[];
  private readonly aboveFormat: Array<CellFormat | undefined>;

  constructor(columns: readonly string[], cols: ColumnsOf) {
    this.cols = columns.map(cols).filter((c): c is Col => c !== undefined && c.index >= 0);
    this.above = new Array(this.cols.length).fill(null);
    this.aboveFormat = new Array(this.cols.length).fill(undefined);
  }

  apply(row: SourceRow, ctx: RowContext): boolean {
    if (ctx.blankAbove || ctx.newTransaction || ctx.totalAbove) this.above.fill(null);
    if (ctx.total || ctx.heading) {
      this.above.fill(null);
      return true;
    }
    for (let i = 0; i < this.cols.length; i++) {
      const index = this.cols[i]!.index;
      const cell = row.values[index] ?? null;
      if (cell === null || (typeof cell === 'string' && cell.trim() === '')) {
        const above = this.above[i]!;
        if (above === null) continue;
        row.values[index] = above;
        const format = this.aboveFormat[i];
        if (format !== undefined) (row.formats ??= new Array<CellFormat | undefined>(row.values.length))[index] = format;
      } else {
        this.above[i] = cell;
        this.aboveFormat[i] = row.formats?.[index];
      }
    }
    return true;
  }
}

/** A replay's mark of a new transaction: a row whose kind cell (`index`) is not empty has a kind of its own. */
export class NewTransactions implements RowRule {
  constructor(private readonly index: number) {}

  apply(row: SourceRow, ctx: RowContext): boolean {
    if (hasOwnKind(row.values, this.index)) ctx.newTransaction = true;
    return true;
  }
}

/** A row has a kind of its own (a new transaction) when its kind cell is not empty; an empty one continues the transaction above. */
export function hasOwnKind(values: readonly unknown[], kindIndex: number): boolean {
  return auxText(values, kindIndex) !== '';
}

/** An empty bill_ref under a filled one, without fill-down of bill_ref: a split line, a row error. */
export class SplitLines implements RowRule {
  private aboveLine: number | undefined;
  private aboveRef = '';

  constructor(
    private readonly ref: Col,
    /** The columns of a bill's own project and vendor (a row giving one of each is a transaction of its own). */
    private readonly project: readonly Col[],
    private readonly vendor: readonly Col[],
    private readonly report: RowReport | undefined,
    private readonly file: string,
  ) {}

  apply(row: SourceRow, ctx: RowContext): boolean {
    if (ctx.total || ctx.heading || ctx.blankAbove) {
      this.aboveLine = undefined;
      return true;
    }
    const cell = row.values[this.ref.index] ?? null;
    const empty = cell === null || (typeof cell === 'string' && cell.trim() === '');
    if (!empty) {
      this.aboveLine = row.line;
      this.aboveRef = String(cell).trim();
      return true;
    }
    const above = this.aboveLine;
    if (above === undefined || ctx.newTransaction || (this.project.some((c) => filled(row, c)) && this.vendor.some((c) => filled(row, c)))) return true;
    // The row is stopped here; the next one is still under the same bill, and its amount is that bill's.
    ctx.splitOf = this.aboveRef;
    this.report?.stop(above, row.line, `bill ${this.aboveRef}`, [
      `${this.file}:${row.line} column ${this.ref.header}: the bill_ref is empty under bill ${JSON.stringify(this.aboveRef)} on line ${above}: a split line of that bill? `,
      { kind: 'fill-down-bill-ref' },
      ', or fill in the bill_ref; the bill is not sent',
    ], this.ref.header);
    return false;
  }
}

function filled(row: SourceRow, col: Col): boolean {
  const v = col.index < 0 ? col.constant : (row.values[col.index] ?? null);
  return v !== null && !(typeof v === 'string' && v.trim() === '');
}
