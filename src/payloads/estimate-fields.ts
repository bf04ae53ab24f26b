/**
 * The fields of an estimate payload (docs/service.md, Estimates), in one list each level reads: the payload schema
 * (estimate-schema.ts), the planner's hand check (mapping/estimate-check.ts) and the estimate
 * file's columns (mapping/estimate-columns.ts, each field lower-cased) all derive from it, so a
 * field added here is a column the importer accepts, a key the schema allows and one the hand
 * check knows.
 *
 * Types follow the seed's observed request shape: amounts and quantities are JSON numbers,
 * COST_CODE_ID a whole number, notes and descriptions strings. The seed does not type
 * TRAFFIC_COLOR, STATUS or MARKUP_TYPE; they accept a string or a number (`code`).
 *
 * The order of COMMON then LINE is the key order of a planned payload's canonical JSON, whose hash
 * is the record's contentHash (the ledger's way to tell a changed estimate on a re-run), and the
 * order in which an estimate file's columns are listed: moving a field changes both.
 */

/** How a field's value is typed on the wire. */
export type EstimateFieldType = 'text' | 'int' | 'num' | 'code' | 'bool';

/** Fields shared by categories, subcategories and items (besides NAME, required on every level). */
export const ESTIMATE_COMMON_FIELDS = [
  ['DESCRIPTION', 'text'], ['COST_CODE', 'text'], ['COST_CODE_ID', 'int'], ['TRAFFIC_COLOR', 'code'],
  ['BID_NOTES', 'text'], ['NOTES_TEAMLINK', 'text'], ['NOTES_BID', 'text'], ['FIELD_NOTES', 'text'],
  ['NOTES_CLIENTLINK', 'text'], ['NOTES_FIELD', 'text'], ['GENERAL_NOTES', 'text'], ['NOTES_GENERAL', 'text'],
] as const satisfies ReadonlyArray<readonly [string, EstimateFieldType]>;

/** Fields of subcategories and items only (a line of the estimate). */
export const ESTIMATE_LINE_FIELDS = [
  ['CLASSIFICATION', 'num'], ['STATUS', 'code'], ['UNIT', 'text'], ['QTY', 'num'], ['RATE_QTY', 'num'],
  ['UNIT_COST', 'num'], ['RATE', 'num'], ['LINE_ITEM_MARKUP', 'num'], ['LINE_ITEM_MARKUP_TYPE', 'num'],
  ['ADJUSTMENT', 'num'], ['ACTUAL', 'num'], ['COMMITTED_COSTS', 'num'], ['INVOICED_AMOUNTS', 'num'],
  ['FIVE_COLUMN_MATERIAL', 'num'], ['FIVE_COLUMN_LABOR', 'num'], ['FIVE_COLUMN_EQUIPMENT', 'num'],
  ['FIVE_COLUMN_SUB', 'num'], ['FIVE_COLUMN_OTHER', 'num'],
] as const satisfies ReadonlyArray<readonly [string, EstimateFieldType]>;

/** The estimate's own optional fields, after NAME and PROJECT_ID. */
export const ESTIMATE_TOP_FIELDS = [
  ['ADVANCED_ESTIMATE', 'bool'], ['FIVE_COLUMN_ESTIMATE', 'bool'], ['TOTAL_PRICE', 'num'],
] as const satisfies ReadonlyArray<readonly [string, EstimateFieldType]>;

/** A markup row (COMS element); every field optional. */
export const ESTIMATE_MARKUP_FIELDS = [
  ['NAME', 'text'], ['VALUE', 'num'], ['MARKUP_TYPE', 'code'],
] as const satisfies ReadonlyArray<readonly [string, EstimateFieldType]>;
