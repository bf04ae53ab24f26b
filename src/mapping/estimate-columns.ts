/**
 * The columns of an estimate file: each payload field of
 * payloads/estimate-fields.ts, lower-cased, plus the columns that place a row (project, estimate,
 * category, subcategory, item) and the markup columns. How a field's cell is read follows its
 * wire type; STATUS and TRAFFIC_COLOR, which the seed does not type, are sent as written (text).
 */
import { ESTIMATE_COMMON_FIELDS, ESTIMATE_LINE_FIELDS, ESTIMATE_TOP_FIELDS, type EstimateFieldType } from '../payloads/index.ts';
import { PROJECT_REF_COLUMNS } from './project-refs.ts';

/** How the mapping reads a field's cell. */
export type FieldKind = 'text' | 'number' | 'id';

const KIND_OF: Record<Exclude<EstimateFieldType, 'bool'>, FieldKind> = { text: 'text', code: 'text', int: 'id', num: 'number' };

function columnsOf(list: ReadonlyArray<readonly [string, Exclude<EstimateFieldType, 'bool'>]>): ReadonlyArray<[string, FieldKind]> {
  return list.map(([field, type]) => [field.toLowerCase(), KIND_OF[type]]);
}

/** Fields every level has (docs/service.md, Estimates CATS element), column → kind. */
export const COMMON_FIELDS = columnsOf(ESTIMATE_COMMON_FIELDS);

/** Fields of subcategories and items only (docs/service.md, Estimates SUBCATS element). */
export const LINE_FIELDS = columnsOf(ESTIMATE_LINE_FIELDS);

/** The estimate's top-level fields, column → kind (`total_price` a number, the others booleans). */
export const TOP_FIELDS: ReadonlyArray<[string, 'number' | 'boolean']> = ESTIMATE_TOP_FIELDS.map(([field, type]) => [field.toLowerCase(), type === 'num' ? 'number' : 'boolean']);

export const MARKUP_COLUMNS = ['markup_name', 'markup_value', 'markup_type'] as const;

/** The estimate columns that hold numbers (how the errors file writes them back, README, Reports, re-runs and `unknown`). */
export const ESTIMATE_NUMBER_COLUMNS: readonly string[] = [
  ...[...LINE_FIELDS, ...TOP_FIELDS].filter(([, k]) => k === 'number').map(([c]) => c), 'markup_value', 'markup_type',
];

/** Every column an estimate file may have (docs/reading-rules.md), in the order messages list them. */
export const ESTIMATE_COLUMNS: readonly string[] = [
  ...PROJECT_REF_COLUMNS, 'estimate_name', 'category', 'subcategory', 'item',
  ...COMMON_FIELDS.map(([c]) => c), ...LINE_FIELDS.map(([c]) => c), ...TOP_FIELDS.map(([c]) => c), ...MARKUP_COLUMNS,
  // Checked against the account's currency, sent nowhere (currency-columns.ts).
  'currency',
];
