/**
 * The row rules of one import (row-rules.ts), built in the contract's order (docs/reading-rules.md):
 * totals (and the summary rows the mapping names), then the kinds/status rules (`afterTotals`: bill-row-rules.ts), fill-down (and,
 * for bills without fill-down of bill_ref, the split-line check), sections (estimates), and the
 * totals' sums last.
 */
import type { ReadingRules } from '../values.ts';
import type { Col } from '../column-cells.ts';
import { FillDown, NewTransactions, SplitLines } from './fill-down.ts';
import { RowReport, RowRules, type RowRule } from './row-rules.ts';
import { Sections, SectionsGuard } from './sections.ts';
import { BillSections } from './bill-sections.ts';
import { TaxLines } from './tax-lines.ts';
import { SummaryRowsByColumn } from './summary-rows.ts';
import { TotalLabels } from './total-labels.ts';
import { Totals, type ColumnsOf } from './totals.ts';

export { RowReport, RowRules, type RecordStopper, type RowContext, type RowRule } from './row-rules.ts';
export type { ColumnsOf } from './totals.ts';

/** What the user said about the rows (flags and mapping keys). */
export interface RowRuleOptions {
  /** `--fill-down COLS` / `"fillDown"`: canonical columns. */
  fillDown?: readonly string[];
  /** `--layout sections` / `"layout": "sections"`. */
  layout?: 'sections';
  /** Estimates: `--ignore-tax` / `"ignoreTax": true`: tax lines are `ignored` (`tax`) rather than stopping the file. */
  ignoreTax?: boolean;
  /** `"totalLabels"`: more labels of total rows. */
  totalLabels?: readonly string[];
  /** Bills: `"summaryRows"` of the mapping (a column and its values marking summary rows, or `none`). */
  summaryRows?: 'none' | { column: string; values?: readonly string[] };
  /**
   * With fill-down: the header of the mapping's kind column (`"kinds"`) as the file writes it. A
   * replay (the errors file, a streamed plan's first pass) stops fill-down at a row with a kind
   * of its own as the import did, without the kinds rules themselves.
   */
  kindColumn?: string;
}

export interface RowRulesSetup {
  kind: 'estimates' | 'bills';
  file: string;
  /** The file's columns (with the section columns of `sectionColumns` added). */
  cols: ColumnsOf;
  numberColumns: readonly string[];
  /** Indexes that are no part of the table's data (an errors file's own columns). */
  skip: readonly number[];
  /** The indexes the mapping reads: a cell of an ignored column never stops an estimate's section heading (PlanSwift writes a folder's total beside its name). */
  read?: ReadonlySet<number>;
  options: RowRuleOptions;
  /** Undefined: a replay, which recognises rows and fills cells but checks and reports nothing. */
  rules: ReadingRules | undefined;
  /**
   * Rules between the totals and fill-down: kinds and status, which set `ctx.newTransaction` for
   * a row with a kind of its own and report the rows they leave out to `report`.
   */
  afterTotals?: (report: RowReport) => readonly RowRule[];
  /** A replay's stand-in for the kinds rule: the index of the kind column (`kindColumn`), whose non-empty cell starts a new transaction. */
  kindIndex?: number;
  /** More label columns of total rows (a bill export's kind column). */
  labelColumns?: readonly string[];
  /** Bills: false when the file is known to hold no total row (`TotalsSetup.sumsByBill`). */
  sumsByBill?: boolean;
  /** Bills with `summaryRows` naming a column: its index in the file (-1: the file has none). */
  summaryIndex?: number;
}

/**
 * Where a sectioned estimate's category and subcategory, or sectioned bills' vendor, go when the
 * file has no such columns: after the file's own (`width` = its number of columns). Empty when not sectioned.
 */
export function sectionColumns(kind: 'estimates' | 'bills', options: RowRuleOptions, has: (column: string) => boolean, width: number): Array<{ column: string; header: string; index: number }> {
  if (options.layout !== 'sections') return [];
  const out: Array<{ column: string; header: string; index: number }> = [];
  for (const column of kind === 'estimates' ? ['category', 'subcategory'] : ['vendor']) if (!has(column)) out.push({ column, header: column, index: width + out.length });
  return out;
}

export function buildRowRules(setup: RowRulesSetup): RowRules {
  const { kind, file, cols, options } = setup;
  const report = new RowReport();
  const checking = setup.rules === undefined ? undefined : report;
  const totals = new Totals({ kind, cols, labels: new TotalLabels(options.totalLabels), labelColumns: setup.labelColumns, rules: setup.rules, report, sumsByBill: setup.sumsByBill });
  const rules: RowRule[] = [totals.classify];
  const summary = options.summaryRows;
  if (kind === 'bills' && summary !== undefined && summary !== 'none' && setup.summaryIndex !== undefined && setup.summaryIndex >= 0) {
    rules.push(new SummaryRowsByColumn(setup.summaryIndex, summary.column, summary.values, cols('bill_ref'), checking));
  }
  // Bills in sections: a heading names the vendor before the kinds rules read the row (a heading has no kind).
  if (kind === 'bills' && options.layout === 'sections') rules.push(new BillSections(file, cols('vendor') as Col, setup.skip, checking));
  rules.push(...(setup.afterTotals?.(report) ?? []));
  if (setup.afterTotals === undefined && setup.kindIndex !== undefined && setup.kindIndex >= 0) rules.push(new NewTransactions(setup.kindIndex));
  if (kind === 'estimates') rules.push(new TaxLines(file, cols('item'), cols('subcategory'), checking, options.ignoreTax === true));
  const fill = options.fillDown ?? [];
  if (fill.length > 0) rules.push(new FillDown({ kind, file, columns: fill, cols, report: checking }));
  const ref = cols('bill_ref');
  if (kind === 'bills' && ref !== undefined && ref.index >= 0 && !fill.includes('bill_ref')) {
    const some = (list: string[]): Col[] => list.map(cols).filter((c): c is Col => c !== undefined);
    rules.push(new SplitLines(ref, some(['project_id', 'project_number', 'project_name']), some(['vendor_id', 'vendor']), checking, file));
  }
  if (kind === 'estimates') {
    if (options.layout === 'sections') {
      const category = cols('category') as Col;
      const subcategory = cols('subcategory') as Col;
      rules.push(new Sections({ file, cols, numberColumns: setup.numberColumns, skip: setup.skip, read: setup.read, category, subcategory, report: checking }));
    } else if (!fill.includes('category') && setup.rules !== undefined) rules.push(new SectionsGuard(file, cols, setup.numberColumns, setup.skip, setup.read));
  }
  return new RowRules(rules, report, setup.rules === undefined ? undefined : totals.observe);
}
