/**
 * The columns of a bill file and the fields they fill (README, "import bills"; docs/service.md,
 * Bills), and the bill object's canonical key order: the one definition the grouper, the
 * errors file and the templates read.
 */
import type { BillPayload } from '../payloads/index.ts';
import { PROJECT_REF_COLUMNS } from './project-refs.ts';
import { colOf, type Col } from './column-cells.ts';
import type { ColumnMap } from './header.ts';
import { PERCENT_COLUMNS } from './values.ts';

/** `decimal`: a rate (at most two decimals, decimal text); `amount`: an amount as decimal text (`tax_amount`, sent as TAX_PERCENT). */
export type FieldKind = 'text' | 'date' | 'boolean' | 'id' | 'number' | 'decimal' | 'amount' | 'approver' | 'ref';

/** Bill-level columns → field (docs/service.md, Bills; received_date → RECIEVED_DATE, spelled so). */
export const BILL_FIELDS: ReadonlyArray<[string, string, FieldKind]> = [
  ['title', 'TITLE', 'text'], ['due_date', 'DUE_DATE', 'date'], ['invoice_date', 'INVOICE_DATE', 'date'],
  ['received_date', 'RECIEVED_DATE', 'date'], ['active', 'ACTIVE', 'boolean'], ['ready_for_payment', 'READY_FOR_PAYMENT', 'boolean'],
  ['approver', 'APPROVER', 'approver'], ['approval_date', 'APPROVAL_DATE', 'date'], ['notes', 'NOTES', 'text'],
  ['trade', 'TRADE', 'text'], ['bill_type', 'BILL_TYPE', 'text'], ['traffic_color', 'TRAFFIC_COLOR', 'text'],
];

/** The bill columns that hold dates: the ones whose day/month order a file must settle. */
export const BILL_DATE_COLUMNS: readonly string[] = BILL_FIELDS.filter(([, , kind]) => kind === 'date').map(([c]) => c);

/** Item columns → field; item_name and rate are required. */
export const ITEM_FIELDS: ReadonlyArray<[string, string, FieldKind]> = [
  ['item_name', 'NAME', 'text'], ['rate', 'RATE', 'decimal'], ['qty', 'QTY', 'number'], ['unit', 'UNIT', 'text'],
  ['item_description', 'DESCRIPTION', 'text'], ['cost_code_id', 'COST_CODE_ID', 'id'], ['tax_type_id', 'TAX_TYPE_ID', 'id'],
  ['tax_percent', 'TAX_PERCENT', 'number'], ['tax_amount', 'TAX_PERCENT', 'amount'],
];

/** The bill columns that hold numbers (how the errors file writes them back, README, Reports, re-runs and `unknown`). */
export const BILL_NUMBER_COLUMNS: readonly string[] = ITEM_FIELDS.filter(([, , k]) => k === 'number' || k === 'decimal' || k === 'amount').map(([c]) => c);

/** Every column a bill file may have (README, import bills). */
export const BILL_COLUMNS: readonly string[] = [
  'bill_ref', ...PROJECT_REF_COLUMNS, 'vendor_id', 'vendor', ...BILL_FIELDS.map(([c]) => c), ...ITEM_FIELDS.map(([c]) => c), 'currency',
];

/**
 * Key order of the bill object: the seed's (§2.3). Items are built in ITEM_FIELDS order; the
 * bill's own fields, which several rows may fill, are put in this order once the file is read,
 * so the payload's JSON (and its hash) does not depend on the order of columns or rows.
 */
const BILL_ORDER = ['PRJ_ID', 'VENDOR_ID', ...BILL_FIELDS.map(([, f]) => f), 'ITEMS'];

export function ordered(bill: BillPayload & Record<string, unknown>): BillPayload {
  const out: Record<string, unknown> = {};
  for (const k of BILL_ORDER) if (bill[k] !== undefined) out[k] = bill[k];
  return out as BillPayload;
}

/** A mapped bill column as the grouper reads it: the field it fills and how its cell is read. */
export interface FieldCol extends Col {
  column: string;
  field: string;
  kind: FieldKind;
  /** A percent field (`PERCENT_COLUMNS`): a percent-formatted .xlsx cell reads as the percentage it shows. */
  percent: boolean;
}

export function fieldCols(columns: ColumnMap, list: ReadonlyArray<[string, string, FieldKind]>): FieldCol[] {
  const out: FieldCol[] = [];
  for (const [column, field, kind] of list) {
    const c = colOf(columns, column);
    if (c !== undefined) out.push({ ...c, column, field, kind, percent: PERCENT_COLUMNS.has(column) });
  }
  return out;
}
