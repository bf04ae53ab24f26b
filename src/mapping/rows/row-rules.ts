/**
 * The rules a data row passes before a grouper sees it (docs/reading-rules.md "Which rows are
 * records"), one place for their order: total rows are recognised first, then (a hook for) kinds
 * and status, then fill-down, then section headings; last, the totals note what each row that
 * stays adds up to. A rule may stop a row (it reports it: `ignored`, or invalid) or change its
 * cells (fill-down, a section's category), and may stop the record of an earlier row
 * (`RecordStopper`) or of the next row the rules let through (`RowReport.stopWithNext`, applied
 * once the grouper has that row: `RowRules.joined`). The same rules, without their checks, replay
 * a file for the first pass of a streamed plan and for the errors file, which writes filled-down
 * and section cells as read.
 */
import type { SourceRow } from '../../tables/index.ts';
import type { Worded } from '../../errors/index.ts';
import { staticLine, type IgnoredReason, type StaticLine } from '../report-line.ts';
import { invalidLine } from '../row-errors.ts';

/** What the rules before it found out about the row being passed. */
export interface RowContext {
  /** A total row (by its label or its formulas). */
  total: boolean;
  /** With `total`: the bill_ref (as written) of the bill the total names or holds. */
  totalRef: string | undefined;
  /** A section heading. */
  heading: boolean;
  /** A row with a kind of its own: a new transaction (set by the kinds rule, `afterTotals`). */
  newTransaction: boolean;
  /** A blank row (or several) lies between this row and the one before. */
  blankAbove: boolean;
  /** A total row lies between this row and the last row the rules let through (fill-down stops there). */
  totalAbove: boolean;
  /** A split line stopped for want of its bill_ref: the bill_ref of the bill above, whose amount it belongs to. */
  splitOf: string | undefined;
}

export interface RowRule {
  /** False: the row goes no further (the rule reported it, or holds it back). */
  apply(row: SourceRow, ctx: RowContext): boolean;
  /** After the last row. */
  end?(): void;
}

/** The grouper's side: makes the record holding `closedLine` invalid, `line` its invalid row (false: no open record holds it). */
export interface RecordStopper {
  stopRecordOf(closedLine: number, line: number, message: Worded, column?: string): boolean;
  /** Bills: a summary row known by the mapping's `"summaryRows"` (`shown`: its column and value), checked against its bill once complete. */
  summaryRow?(row: SourceRow, shown: string): void;
}

/** A stop held for the record the next row let through joins (`RowReport.stopWithNext`). */
interface HeldStop {
  line: number;
  record: string;
  message: Worded;
  column: string | undefined;
  /** A record was stopped already (the one of the row before). */
  stopped: boolean;
}

/** Where the rules report the rows they stop. */
export class RowReport {
  private lines: StaticLine[] = [];
  private held: HeldStop[] = [];
  stopper: RecordStopper | undefined;

  ignored(line: number, reason: Extract<IgnoredReason, 'total' | 'heading' | 'tax' | 'kind' | 'credit'>, message: Worded): void {
    this.lines.push(staticLine(line, '', 'ignored', message, reason));
  }

  /** A summary row known by the mapping (`rows/summary-rows.ts`): the grouper checks and reports it. */
  summary(row: SourceRow, shown: string): void {
    if (this.stopper?.summaryRow === undefined) throw new Error(`row rules: summary row on line ${row.line} with no grouper to check it`);
    this.stopper.summaryRow(row, shown);
  }

  /** `column`: the header of the cell the message is about, if one. */
  invalid(line: number, record: string, message: Worded, column?: string): void {
    this.lines.push(invalidLine(line, record, message, column));
  }

  /** The record holding `closedLine` is not sent, `line` its invalid row; with no such record open, `line` is an invalid row of its own. */
  stop(closedLine: number | undefined, line: number, record: string, message: Worded, column?: string): void {
    if (closedLine !== undefined && this.stopper?.stopRecordOf(closedLine, line, message, column) === true) return;
    this.invalid(line, record, message, column);
  }

  /**
   * `stop`, and the record the next row let through joins is not sent either, `line` one of its
   * invalid rows (a row that heads the rows after it: an empty section heading). The stop is held
   * until the grouper has that row (`joined`); `line` is an invalid row of its own only when
   * neither record is open.
   */
  stopWithNext(closedLine: number | undefined, line: number, record: string, message: Worded, column?: string): void {
    const stopped = closedLine !== undefined && this.stopper?.stopRecordOf(closedLine, line, message, column) === true;
    this.held.push({ line, record, message, column, stopped });
  }

  /** The grouper has the row at `line`, the last one the rules let through: the held stops stop its record. */
  joined(line: number): void {
    if (this.held.length === 0) return;
    for (const h of this.held) {
      if (this.stopper?.stopRecordOf(line, h.line, h.message, h.column) === true || h.stopped) continue;
      this.invalid(h.line, h.record, h.message, h.column);
    }
    this.held = [];
  }

  /** After the last row: a held stop that stopped no record is an invalid row of its own. */
  end(): void {
    for (const h of this.held) if (!h.stopped) this.invalid(h.line, h.record, h.message, h.column);
    this.held = [];
  }

  take(): StaticLine[] {
    const out = this.lines;
    this.lines = [];
    return out;
  }
}

/** The rules of one file, in order. */
export class RowRules {
  private readonly ctx: RowContext = { total: false, totalRef: undefined, heading: false, newTransaction: false, blankAbove: false, totalAbove: false, splitOf: undefined };
  private previous: SourceRow | undefined;
  /** A total row was stopped since the last row let through. */
  private totalSince = false;

  /**
   * `rules` in order; `lastly` also sees the rows a rule stopped that are still lines of a record
   * (not totals, not headings: a split line stopped as an error still adds to its bill's total).
   */
  constructor(private readonly rules: readonly RowRule[], readonly report: RowReport = new RowReport(), private readonly lastly?: RowRule) {}

  /** True when no rule applies (nothing to pay per row). */
  get empty(): boolean {
    return this.rules.length === 0 && this.lastly === undefined;
  }

  /** Passes `row` through the rules: true when it goes on to the grouper. */
  pass(row: SourceRow): boolean {
    const ctx = this.ctx;
    ctx.total = false;
    ctx.totalRef = undefined;
    ctx.heading = false;
    ctx.newTransaction = false;
    ctx.splitOf = undefined;
    ctx.blankAbove = this.previous !== undefined && blankBetween(this.previous, row);
    ctx.totalAbove = this.totalSince;
    this.previous = row;
    for (let i = 0; i < this.rules.length; i++) {
      if (this.rules[i]!.apply(row, ctx)) continue;
      if (ctx.total) this.totalSince = true;
      else if (!ctx.heading) this.lastly?.apply(row, ctx);
      return false;
    }
    this.totalSince = false;
    this.lastly?.apply(row, ctx);
    return true;
  }

  /** The context of the row last passed. */
  get last(): Readonly<RowContext> {
    return this.ctx;
  }

  /** The grouper has `row`, which `pass` let through (a stop held for the record it joins is applied: `RowReport.stopWithNext`). */
  joined(row: SourceRow): void {
    this.report.joined(row.line);
  }

  end(): void {
    for (const r of this.rules) r.end?.();
    this.report.end();
  }
}

/**
 * Whether a blank row lies between two rows: their lines are further apart than the line breaks
 * inside the first row's cells (a CSV field may span lines) account for.
 */
function blankBetween(above: SourceRow, row: SourceRow): boolean {
  const gap = row.line - above.line - 1;
  if (gap <= 0) return false;
  let breaks = 0;
  for (const v of above.values) if (typeof v === 'string' && v.includes('\n')) breaks += v.split('\n').length - 1;
  return gap > breaks;
}
