import type { MappingFile } from './mapping-file.ts';

/**
 * `--mapping quickbooks` (CONTRACT.md §4): the columns of a QuickBooks bill export ("Bill No.",
 * "Vendor", "Line Amount", …) read as bill columns. A QuickBooks line has no quantity: its
 * "Line Amount" is the line's total and becomes RATE (the service then takes one unit).
 *
 * Editions outside the US write `Supplier` where the US edition writes `Vendor`, and `Bill No`
 * without the period; header matching ignores `.` (`normalizeHeader`), so the one `Bill No.`
 * entry reads both. A preset names alternatives, so its entries for headers a file does not
 * have are allowed (`resolveColumns` is lenient with built-in presets).
 *
 * Decision: QuickBooks exports also carry bookkeeping columns that have no field on the
 * service's bill (seed §2.3): `Account`, `Terms`, `Class`, `Open Balance`, `Type`. The preset
 * ignores those few by name; any other unknown column is still an error, as with any mapping.
 */
export const QUICKBOOKS_MAPPING: MappingFile = {
  columns: {
    'Bill No.': 'bill_ref',
    Vendor: 'vendor',
    Supplier: 'vendor',
    'Bill Date': 'invoice_date',
    'Due Date': 'due_date',
    Memo: 'notes',
    'Line Description': 'item_name',
    'Line Amount': 'rate',
    Customer: 'project_name',
    Project: 'project_name',
  },
  ignore: ['Account', 'Terms', 'Class', 'Open Balance', 'Type'],
  constants: {},
};
