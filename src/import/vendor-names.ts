/**
 * The vendor names of a bill file as a plan reads its rows, without planning it: the import page's
 * first reading lists them in its vendor table (README, The import page) before any check. The
 * table is opened as `planBills` opens it (header row, sheet, hidden rows), and each row passes
 * the same row rules (totals, kinds and status, fill-down) before its vendor cell is read: a row a
 * plan leaves out (a total, a payment, a credit left out) names no vendor here either. Nothing
 * else of a row is read, so this costs one pass of the file's reader, less than a plan.
 */
import { BILL_COLUMNS, BILL_NUMBER_COLUMNS, billRowRules, CellValueError, colOf, parseText, resolveColumns, US_RULES, type VendorNameSink } from '../mapping/index.ts';
import { cellOf, formatOf } from '../mapping/column-cells.ts';
import { openTable } from '../tables/index.ts';
import { tableOptions, type PlanOptions } from './plan.ts';
import { combineReadingOptions } from './reading-rules.ts';
import { planRowRules, rowRuleOptions } from './row-pipeline.ts';
import { viewForImport } from './table-view.ts';

/** How far the names are read. */
export interface VendorNamesLimit {
  /** Data rows read at most; the rows after them are not read. */
  rows: number;
}

/**
 * Tells `sink` the vendor name of every row of `file` that a plan with `opts` would read as a
 * bill's row, in file order; `complete` false when `limit` stopped the reading first, `vendorColumn`
 * false when the file has no vendor-name column (nothing read). A file-level error is thrown as
 * a plan would throw it.
 */
export async function readBillVendorNames(file: string, opts: PlanOptions, sink: VendorNameSink, limit?: VendorNamesLimit): Promise<{ vendorColumn: boolean; complete: boolean }> {
  const reading = combineReadingOptions(opts, opts.mapping);
  const opened = await openTable(file, tableOptions(file, 'bills', opts, reading));
  const columns = resolveColumns(opened.headers, BILL_COLUMNS, opts.mapping, file, opened.headerLine, { aliases: opened.headerAliases });
  const vendor = colOf(columns, 'vendor');
  if (vendor === undefined) return { vendorColumn: false, complete: true };
  const table = await viewForImport(opened, columns, BILL_NUMBER_COLUMNS, opts);
  const rowOptions = rowRuleOptions('bills', opts, columns, table.headers);
  // The kinds and status rule reads no number: the reading rules are only its amounts' (not read here).
  const billRules = await billRowRules(table, columns, opts.mapping, US_RULES, opts);
  // A replay (no reading rules): the rows recognised and filled as a plan does, nothing checked.
  const rowRules = planRowRules('bills', file, columns, rowOptions, undefined, { afterTotals: (report) => billRules.kindsRule(report) });
  let rows = 0;
  for await (const batch of table.batches()) {
    for (const row of batch) {
      if (limit !== undefined && rows >= limit.rows) return { vendorColumn: true, complete: false };
      rows++;
      if (!rowRules.pass(row)) continue;
      const cell = cellOf(vendor, row.values);
      if (cell === null || cell === '') continue;
      let name: string | undefined;
      try {
        name = parseText(cell, formatOf(vendor, row.formats));
      } catch (err) {
        // A plan reports the cell invalid and names no vendor for the row.
        if (!(err instanceof CellValueError)) throw err;
      }
      if (name !== undefined) sink.seen(row.line, name);
    }
    // The rows the rules left out are a plan's to report.
    rowRules.report.take();
    opts.signal?.throwIfAborted();
  }
  rowRules.end();
  return { vendorColumn: true, complete: true };
}
