/**
 * What kind of value each known column holds, as the import page lists its columns and judges its
 * guesses (README, The import page): a column whose values are no numbers is never proposed for a
 * number field, one whose values are no dates never for a date field. The kinds follow how the
 * groupers read each field (bill-columns.ts, estimate-columns.ts).
 */
import type { CellValue } from '../tables/index.ts';
import { BILL_FIELDS, ITEM_FIELDS, type FieldKind as BillFieldKind } from './bill-columns.ts';
import { COMMON_FIELDS, LINE_FIELDS, TOP_FIELDS } from './estimate-columns.ts';
import { isBlank, parseBoolean, parseDate, parseId, parseNumber, type ReadingRules } from './values.ts';

export type ColumnType = 'text' | 'number' | 'date' | 'boolean' | 'id';

const PROJECT_TYPES: ReadonlyArray<[string, ColumnType]> = [['project_id', 'id'], ['project_number', 'text'], ['project_name', 'text']];

const BILL_TYPE_OF: Record<BillFieldKind, ColumnType> = { text: 'text', ref: 'text', approver: 'text', date: 'date', boolean: 'boolean', id: 'id', number: 'number', decimal: 'number', amount: 'number' };

const BILL_TYPES: ReadonlyMap<string, ColumnType> = new Map<string, ColumnType>([
  ['bill_ref', 'text'], ...PROJECT_TYPES, ['vendor_id', 'id'], ['vendor', 'text'],
  ...[...BILL_FIELDS, ...ITEM_FIELDS].map(([c, , k]): [string, ColumnType] => [c, BILL_TYPE_OF[k]]), ['currency', 'text'],
]);

const ESTIMATE_TYPES: ReadonlyMap<string, ColumnType> = new Map<string, ColumnType>([
  ...PROJECT_TYPES, ['estimate_name', 'text'], ['category', 'text'], ['subcategory', 'text'], ['item', 'text'],
  ...[...COMMON_FIELDS, ...LINE_FIELDS, ...TOP_FIELDS],
  ['markup_name', 'text'], ['markup_value', 'number'], ['markup_type', 'number'], ['currency', 'text'],
]);

/** The type of each known column of an import of `kind`. */
export function columnTypes(kind: 'estimates' | 'bills'): ReadonlyMap<string, ColumnType> {
  return kind === 'bills' ? BILL_TYPES : ESTIMATE_TYPES;
}

/** Either order and either decimal mark: a value that reads under one of them is of the type. */
const READINGS: readonly ReadingRules[] = [
  { decimalSeparator: '.', dateOrder: 'MDY' },
  { decimalSeparator: ',', dateOrder: 'DMY' },
];

/** True when `read` accepts the cell under one of the readings. */
function readsUnder(read: (rules: ReadingRules) => unknown): boolean {
  for (const rules of READINGS) {
    try {
      read(rules);
      return true;
    } catch {
      // the next reading
    }
  }
  return false;
}

/** True when a field of `type` can hold the (non-blank) cell: text holds anything; a blank cell fits every type. */
export function cellFits(type: ColumnType, cell: CellValue): boolean {
  if (isBlank(cell)) return true;
  switch (type) {
    case 'text': return true;
    case 'number': return readsUnder((rules) => parseNumber(cell, rules));
    case 'date': return cell instanceof Date || (typeof cell === 'string' && readsUnder((rules) => parseDate(cell, rules)));
    case 'boolean': return readsUnder(() => parseBoolean(cell));
    case 'id': return readsUnder(() => parseId(cell));
  }
}
