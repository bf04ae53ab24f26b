import type { MappingFile } from './mapping-file.ts';

/**
 * `--mapping quickbooks` (README, import bills): the columns of a QuickBooks bill export ("Bill No.",
 * "Vendor", "Line Amount", …) read as bill columns. A QuickBooks line has no quantity: its
 * "Line Amount" is the line's total and becomes RATE (the service then takes one unit).
 *
 * Editions outside the US write `Supplier` where the US edition writes `Vendor`, and `Bill No`
 * without the period; header matching ignores `.` (`normalizeHeader`), so the one `Bill No.`
 * entry reads both. A preset names alternatives, so its entries for headers a file does not
 * have are allowed (`resolveColumns` is lenient with built-in presets).
 *
 * Decision: QuickBooks exports also carry bookkeeping columns that have no field on the
 * service's bill (docs/service.md, Bills): `Account`, `Terms`, `Class`, `Open Balance`. The preset ignores
 * those few by name; any other unknown column is still an error, as with any mapping.
 *
 * Alternative headers (README, "The presets' rules"): `Num` for `Bill No.`, `Date` for `Bill
 * Date`, `Amount` for `Line Amount`, `Transaction Type` for `Type`. A file has one or the other;
 * one that has both reads the first listed (a bill's `Amount` beside its `Line Amount` is the
 * bill's total, not a line's) and leaves the other unread (`presetPrefers`).
 *
 * A transaction list has a `Type` column (README, "Kinds of rows"): `Bill` rows are bills;
 * `Vendor Credit` and `Credit Card Credit` are credits (ignored unless `--credits negative`);
 * payments, checks, expenses, journal entries, deposits and transfers are no bills and are
 * ignored; any other type is a row error naming it. A row with an empty `Type` is a split line
 * of the transaction above: QuickBooks writes the bill's number, vendor, dates, memo and customer
 * on its first line only, so those fill down (`fillDown`, the columns of them the file has; a
 * user-added project_id or project_number column fills down as the customer would), stopping at
 * a row with a type of its own, a blank row and a total row. A file without a `Type` column
 * fills nothing down (`presetFillDown`, src/import/row-pipeline.ts): without it no row is known to
 * be a split line.
 */
export const QUICKBOOKS_KIND_COLUMNS: readonly string[] = ['Type', 'Transaction Type'];

export const QUICKBOOKS_MAPPING: MappingFile = {
  columns: {
    'Bill No.': 'bill_ref',
    Num: 'bill_ref',
    Vendor: 'vendor',
    Supplier: 'vendor',
    'Bill Date': 'invoice_date',
    Date: 'invoice_date',
    'Due Date': 'due_date',
    Memo: 'notes',
    'Line Description': 'item_name',
    'Line Amount': 'rate',
    Amount: 'rate',
    Customer: 'project_name',
    Project: 'project_name',
  },
  ignore: ['Account', 'Terms', 'Class', 'Open Balance'],
  constants: {},
  fillDown: ['bill_ref', 'vendor', 'invoice_date', 'due_date', 'notes', 'project_name', 'project_id', 'project_number'],
  kinds: {
    column: 'Type',
    bill: ['Bill'],
    credit: ['Vendor Credit', 'Credit Card Credit'],
    ignore: ['Bill Payment (Check)', 'Bill Payment (Credit Card)', 'Check', 'Expense', 'Credit Card Expense', 'Journal Entry', 'Deposit', 'Transfer'],
  },
};
