/**
 * A hand-written check of a finished estimate payload against `estimatePayloadSchema`
 * (src/api/estimate-schema.ts, seed §2.2), for the planning loop: zod's walk of a 100,000-estimate
 * plan costs more than the mapping that built it.
 *
 * The check is conservative: whenever it passes, the schema passes too
 * (test/mapping-estimate-check.test.ts compares both on generated payloads). When it fails, the
 * caller runs the schema itself, so the messages a user sees are zod's as before.
 */

type Kind = 'name' | 'text' | 'int' | 'num' | 'code' | 'bool' | 'projectId' | Level;

interface Level {
  fields: Map<string, Kind>;
  /** Keys the schema requires (not `.optional()`). */
  required: readonly string[];
}

function level(entries: Array<[string, Kind]>, required: readonly string[] = ['NAME']): Level {
  return { fields: new Map(entries), required };
}

const COMMON: Array<[string, Kind]> = [
  ['NAME', 'name'], ['DESCRIPTION', 'text'], ['COST_CODE', 'text'], ['COST_CODE_ID', 'int'], ['TRAFFIC_COLOR', 'code'],
  ['BID_NOTES', 'text'], ['NOTES_TEAMLINK', 'text'], ['NOTES_BID', 'text'], ['FIELD_NOTES', 'text'],
  ['NOTES_CLIENTLINK', 'text'], ['NOTES_FIELD', 'text'], ['GENERAL_NOTES', 'text'], ['NOTES_GENERAL', 'text'],
];
const LINE: Array<[string, Kind]> = [
  ...COMMON,
  ['CLASSIFICATION', 'num'], ['STATUS', 'code'], ['UNIT', 'text'], ['QTY', 'num'], ['RATE_QTY', 'num'], ['UNIT_COST', 'num'],
  ['RATE', 'num'], ['FIVE_COLUMN_MATERIAL', 'num'], ['FIVE_COLUMN_LABOR', 'num'], ['FIVE_COLUMN_EQUIPMENT', 'num'],
  ['FIVE_COLUMN_SUB', 'num'], ['FIVE_COLUMN_OTHER', 'num'], ['LINE_ITEM_MARKUP', 'num'], ['LINE_ITEM_MARKUP_TYPE', 'num'],
  ['ADJUSTMENT', 'num'], ['ACTUAL', 'num'], ['COMMITTED_COSTS', 'num'], ['INVOICED_AMOUNTS', 'num'],
];

/** Array-valued keys: the level of their elements. */
const ITEM = level(LINE);
const SUB = level([...LINE, ['ITEMS', ITEM]]);
const CAT = level([...COMMON, ['SUBCATS', SUB]]);
const MARKUP = level([['NAME', 'text'], ['VALUE', 'num'], ['MARKUP_TYPE', 'code']], []);
const TOP = level([
  ['NAME', 'name'], ['PROJECT_ID', 'projectId'], ['ADVANCED_ESTIMATE', 'bool'], ['FIVE_COLUMN_ESTIMATE', 'bool'],
  ['TOTAL_PRICE', 'num'], ['CATS', CAT], ['COMS', MARKUP],
], ['NAME', 'PROJECT_ID']);

/** True when `payload` certainly meets `estimatePayloadSchema`; false when the schema must decide. */
export function surelyValidEstimate(payload: unknown): boolean {
  return objectOk(payload, TOP);
}

function objectOk(value: unknown, lv: Level): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.getPrototypeOf(value) !== Object.prototype) return false;
  const node = value as Record<string, unknown>;
  for (let i = 0; i < lv.required.length; i++) if (node[lv.required[i]!] === undefined) return false;
  for (const key in node) {
    if (!Object.hasOwn(node, key)) return false;
    const kind = lv.fields.get(key);
    if (kind === undefined) return false; // strict objects: no other keys
    const v = node[key];
    if (v === undefined) continue; // optional, or required and refused above
    if (!valueOk(v, kind)) return false;
  }
  return true;
}

function valueOk(v: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'name':
      return typeof v === 'string' && v.trim().length > 0;
    case 'text':
      return typeof v === 'string';
    case 'int':
      return Number.isSafeInteger(v);
    case 'projectId':
      return Number.isSafeInteger(v) && (v as number) > 0;
    case 'num':
      return Number.isFinite(v);
    case 'code':
      return typeof v === 'string' || Number.isFinite(v);
    case 'bool':
      return typeof v === 'boolean';
    default: {
      if (!Array.isArray(v)) return false;
      for (let i = 0; i < v.length; i++) if (!objectOk(v[i], kind)) return false;
      return true;
    }
  }
}
