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
import { keyText } from '../../values/key-text.ts';

/** The columns that say which record a row belongs to: a value never fills down into a row whose own key differs. */
const RECORD_KEYS = { bills: ['bill_ref'], estimates: ['project_id', 'project_number', 'project_name', 'estimate_name'] } as const;
/** The columns a record cannot do without (its key): a row cut off them by a blank line is not guessed. */
const NEEDED_KEYS = { bills: ['bill_ref', 'vendor', 'vendor_id', 'project_id', 'project_number', 'project_name'], estimates: ['project_id', 'project_number', 'project_name', 'estimate_name', 'category'] } as const;

export interface FillDownSetup {
  kind: 'bills' | 'estimates';
  file: string;
  /** Canonical columns to fill down. */
  columns: readonly string[];
  cols: ColumnsOf;
  /** Undefined: a replay (the rows are recognised, nothing reported). */
  report: RowReport | undefined;
}

/**
 * Fill-down, within one record: it stops at a blank row, a total, a heading and a new transaction,
 * and a row whose own key (bill_ref; project and estimate name) differs from the one above takes
 * nothing from above. A row after a blank row that lacks a key column the block filled down (a
 * blank line inside a block) is a row error, and so is the record above the blank line: a
 * blank line never splits a record silently.
 */
export class FillDown implements RowRule {
  private readonly cols: Col[];
  private readonly above: CellValue[];
  private readonly aboveFormat: Array<CellFormat | undefined>;
  /** Record key columns in the file, and the key each held on the last row (its own cell or filled). */
  private readonly keys: Col[];
  private readonly lastKey: CellValue[];
  /** Indexes in `cols` of the key columns a record needs. */
  private readonly needed: number[];
  /** The last row let through: the record a blank line would cut off. */
  private lastLine: number | undefined;
  /** A blank line cut rows off their keys: the line of the record above it, until a row gives its keys again. */
  private cutFrom: number | undefined;

  constructor(private readonly setup: FillDownSetup) {
    const { cols, columns, kind } = setup;
    const filled = columns.map((c) => [c, cols(c)] as const).filter((e): e is readonly [string, Col] => e[1] !== undefined && e[1].index >= 0);
    this.cols = filled.map(([, c]) => c);
    this.above = new Array(this.cols.length).fill(null);
    this.aboveFormat = new Array(this.cols.length).fill(undefined);
    this.keys = RECORD_KEYS[kind].map(cols).filter((c): c is Col => c !== undefined && c.index >= 0);
    this.lastKey = new Array(this.keys.length).fill(null);
    const needed: readonly string[] = NEEDED_KEYS[kind];
    this.needed = filled.flatMap(([c], i) => (needed.includes(c) ? [i] : []));
  }

  apply(row: SourceRow, ctx: RowContext): boolean {
    if (ctx.total || ctx.heading) {
      this.above.fill(null);
      this.cutFrom = undefined;
      return true;
    }
    const cut = this.cutOff(row, ctx);
    if (cut !== undefined) return this.stop(row, cut);
    if (ctx.blankAbove || ctx.newTransaction || ctx.totalAbove || this.otherRecord(row)) this.above.fill(null);
    this.cutFrom = undefined;
    for (let i = 0; i < this.cols.length; i++) {
      const index = this.cols[i]!.index;
      const cell = row.values[index] ?? null;
      if (isEmpty(cell)) {
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
    for (let k = 0; k < this.keys.length; k++) {
      const cell = row.values[this.keys[k]!.index] ?? null;
      if (!isEmpty(cell)) this.lastKey[k] = cell;
    }
    this.lastLine = row.line;
    return true;
  }

  /** True when a key cell of the row's own differs from the key of the row above: the row is another record's. */
  private otherRecord(row: SourceRow): boolean {
    for (let k = 0; k < this.keys.length; k++) {
      const cell = row.values[this.keys[k]!.index] ?? null;
      const last = this.lastKey[k]!;
      if (isEmpty(cell) || last === null || cell === last) continue;
      if (keyText(String(cell)) !== keyText(String(last))) return true;
    }
    return false;
  }

  /**
   * The header of the key column a blank line cut the row off (the block above filled it, the
   * row leaves it empty), or undefined. Rows after such a row that still lack it are cut off too.
   */
  private cutOff(row: SourceRow, ctx: RowContext): string | undefined {
    if (ctx.newTransaction || (!ctx.blankAbove && this.cutFrom === undefined)) return undefined;
    if (ctx.blankAbove) this.cutFrom = undefined;
    for (const i of this.needed) {
      if (!isEmpty(row.values[this.cols[i]!.index] ?? null)) continue;
      if (this.cutFrom !== undefined || this.above[i] !== null) return this.cols[i]!.header;
    }
    return undefined;
  }

  /** A row cut off its record's key: a row error, and the record above the blank line is not sent either. */
  private stop(row: SourceRow, header: string): boolean {
    if (this.cutFrom === undefined) {
      this.cutFrom = this.lastLine ?? row.line;
      this.above.fill(null);
    }
    const above = this.cutFrom;
    this.setup.report?.stop(above, row.line, '', [
      `${this.setup.file}:${row.line} column ${header}: empty, and fill-down stops at a blank line, so a blank line above cuts this row off the record of line ${above}; `,
      `delete the blank line, or fill in ${header}; that record is not sent either (a blank line never splits a record)`,
    ], header);
    return false;
  }
}

function isEmpty(cell: CellValue): boolean {
  return cell === null || (typeof cell === 'string' && cell.trim() === '');
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
