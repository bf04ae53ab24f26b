/**
 * Each known column's name in words, as the import page offers it beside the mapping's name
 * (`Bill number (bill_ref)`, `Unit cost (unit_cost)`; README, The import page). One table for
 * both kinds: a name the two kinds share means the same in both but where a kind says otherwise
 * (a bill's `rate` is its line's unit price).
 */
import { BILL_COLUMNS } from './bill-columns.ts';
import { ESTIMATE_COLUMNS } from './estimate-columns.ts';

const WORDS: Readonly<Record<string, string>> = {
  project_id: 'Project ID',
  project_number: 'Project number',
  project_name: 'Project name',
  currency: 'Currency',
  notes: 'Notes',
  traffic_color: 'Traffic color',
  cost_code_id: 'Cost code ID',
  qty: 'Quantity',
  unit: 'Unit',
  // Estimates
  estimate_name: 'Estimate name',
  category: 'Category',
  subcategory: 'Subcategory',
  item: 'Item',
  description: 'Description',
  cost_code: 'Cost code',
  bid_notes: 'Bid notes',
  notes_teamlink: 'TeamLink notes',
  notes_bid: 'Bid notes (second field)',
  field_notes: 'Field notes',
  notes_clientlink: 'ClientLink notes',
  notes_field: 'Field notes (second field)',
  general_notes: 'General notes',
  notes_general: 'General notes (second field)',
  classification: 'Classification',
  status: 'Status',
  rate_qty: 'Rate quantity',
  unit_cost: 'Unit cost',
  rate: 'Rate',
  line_item_markup: 'Line markup',
  line_item_markup_type: 'Line markup type',
  adjustment: 'Adjustment',
  actual: 'Actual cost',
  committed_costs: 'Committed costs',
  invoiced_amounts: 'Invoiced amounts',
  five_column_material: 'Material',
  five_column_labor: 'Labor',
  five_column_equipment: 'Equipment',
  five_column_sub: 'Subcontract',
  five_column_other: 'Other costs',
  advanced_estimate: 'Advanced estimate',
  five_column_estimate: 'Five-column estimate',
  total_price: 'Total price',
  markup_name: 'Markup name',
  markup_value: 'Markup value',
  markup_type: 'Markup type',
  // Bills
  bill_ref: 'Bill number',
  vendor_id: 'Vendor ID',
  vendor: 'Vendor name',
  title: 'Title',
  due_date: 'Due date',
  invoice_date: 'Invoice date',
  received_date: 'Received date',
  active: 'Active',
  ready_for_payment: 'Ready for payment',
  approver: 'Approver',
  approval_date: 'Approval date',
  trade: 'Trade',
  bill_type: 'Bill type',
  item_name: 'Item name',
  item_description: 'Item description',
  tax_type_id: 'Tax type ID',
  tax_percent: 'Tax percent',
  tax_amount: 'Tax amount',
};

/** Where a kind says a shared name otherwise. */
const BILL_WORDS: Readonly<Record<string, string>> = { rate: 'Unit price' };

/** `column`'s name in words for an import of `kind` (its own name when the table has none). */
export function columnWords(kind: 'estimates' | 'bills', column: string): string {
  return (kind === 'bills' ? BILL_WORDS[column] : undefined) ?? WORDS[column] ?? column;
}

/** The known columns the table does not word (none: a test keeps it so). */
export function unwordedColumns(): string[] {
  return [...new Set([...ESTIMATE_COLUMNS, ...BILL_COLUMNS])].filter((c) => WORDS[c] === undefined);
}
