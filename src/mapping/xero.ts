import type { MappingFile } from './mapping-file.ts';

/**
 * `--mapping xero` (README, import bills): the columns of Xero's bill export (the same layout as its
 * bill import template) read as bill columns. One row is one line of a bill; rows with the same
 * `InvoiceNumber` (and contact) are one bill, as in Xero.
 *
 * Xero marks its required columns with a leading `*` (`*ContactName`, `*InvoiceNumber`) in its
 * templates and leaves it out in some exports. Header matching does not drop `*`
 * (`normalizeHeader` ignores only spaces, `_`, `-` and `.`, docs/reading-rules.md), so every column that
 * Xero may star is listed in both spellings; a preset's entries for headers a file does not have
 * are allowed (`resolveColumns` is lenient with built-in presets).
 *
 * Xero has no project: the user adds a `project_id`, `project_number` or `project_name` column,
 * which is read as is. Xero's other columns (contact e-mail and addresses, totals, item code,
 * account and tax codes, tracking) have no field on the service's bill (docs/service.md, Bills) and are
 * ignored. `LineAmount` (quantity times unit amount, less discount) is ignored too: the bill's
 * lines carry the quantity and the unit amount.
 *
 * `TaxAmount` is the line's tax, sent as its `TAX_PERCENT` (`tax-amount.ts`). `Currency` and
 * `Discount` are listed under `ignore` so that no field reads them, but a preset's `ignore` never
 * silences them: the amount rules read them (`amount-rules.ts`, `currency-columns.ts`).
 * `Type` and `Status` say which rows are bills (README, "Kinds of rows"): `ACCPAY` is a bill,
 * `ACCPAYCREDIT` a credit; `DRAFT`, `SUBMITTED`, `AUTHORISED` and `PAID` are kept, `VOIDED` and
 * `DELETED` ignored; any other value (a sales invoice, `ACCREC`) is a row error naming it.
 */
const READ: Record<string, string> = {
  ContactName: 'vendor',
  InvoiceNumber: 'bill_ref',
  InvoiceDate: 'invoice_date',
  DueDate: 'due_date',
  Reference: 'notes',
  Description: 'item_name',
  Quantity: 'qty',
  UnitAmount: 'rate',
  // Sent as the line's TAX_PERCENT (tax-amount.ts): the percentage that gives Xero's rounded amount.
  TaxAmount: 'tax_amount',
};

const IGNORED = [
  'EmailAddress',
  'POAddressLine1', 'POAddressLine2', 'POAddressLine3', 'POAddressLine4', 'POCity', 'PORegion', 'POPostalCode', 'POCountry',
  'SAAddressLine1', 'SAAddressLine2', 'SAAddressLine3', 'SAAddressLine4', 'SACity', 'SARegion', 'SAPostalCode', 'SACountry',
  'PlannedDate', 'Total', 'TaxTotal', 'InvoiceAmountPaid', 'InvoiceAmountDue',
  'InventoryItemCode', 'Discount', 'LineAmount', 'AccountCode', 'TaxType',
  'TrackingName1', 'TrackingOption1', 'TrackingName2', 'TrackingOption2',
  'Currency', 'LineAmountTypes', 'BrandingTheme', 'Sent',
];

/** Both spellings of each name: as written and with Xero's leading `*`. */
const starred = (name: string): string[] => [name, `*${name}`];

export const XERO_MAPPING: MappingFile = {
  columns: Object.fromEntries(Object.entries(READ).flatMap(([header, column]) => starred(header).map((h) => [h, column]))),
  ignore: IGNORED.flatMap(starred),
  constants: {},
  kinds: { column: 'Type', bill: ['ACCPAY'], credit: ['ACCPAYCREDIT'], ignore: [] },
  status: { column: 'Status', keep: ['DRAFT', 'SUBMITTED', 'AUTHORISED', 'PAID'], ignore: ['VOIDED', 'DELETED'] },
};
