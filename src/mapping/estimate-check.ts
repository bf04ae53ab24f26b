/**
 * A hand-written check of a finished estimate payload against `estimatePayloadSchema`
 * (src/payloads/estimate-schema.ts, docs/service.md, Estimates), for the planning loop: zod's walk of a 100,000-estimate
 * plan costs more than the mapping that built it.
 *
 * The check is conservative: whenever it passes, the schema passes too
 * (test/mapping-estimate-check.test.ts compares both on generated payloads). When it fails, the
 * caller runs the schema itself, so the messages a user sees are zod's as before.
 */
import { ESTIMATE_COMMON_FIELDS, ESTIMATE_LINE_FIELDS, ESTIMATE_MARKUP_FIELDS, ESTIMATE_TOP_FIELDS, type EstimateFieldType } from '../payloads/index.ts';

type Kind = 'name' | 'projectId' | EstimateFieldType | Level;

interface Level {
  /** By key, without a prototype: a property read is cheaper than a Map's lookup, and nothing is inherited. */
  fields: Record<string, Kind | undefined>;
  /** Keys the schema requires (not `.optional()`). */
  required: readonly string[];
}

function level(entries: ReadonlyArray<readonly [string, Kind]>, required: readonly string[] = ['NAME']): Level {
  const fields: Record<string, Kind | undefined> = Object.create(null);
  for (const [key, kind] of entries) fields[key] = kind;
  return { fields, required };
}

// The same lists as the schema's (payloads/estimate-fields.ts), with the schema's own additions.
const COMMON: Array<readonly [string, Kind]> = [['NAME', 'name'], ...ESTIMATE_COMMON_FIELDS];
const LINE: Array<readonly [string, Kind]> = [...COMMON, ...ESTIMATE_LINE_FIELDS];

/** Array-valued keys: the level of their elements. */
const ITEM = level(LINE);
const SUB = level([...LINE, ['ITEMS', ITEM]]);
const CAT = level([...COMMON, ['SUBCATS', SUB]]);
const MARKUP = level(ESTIMATE_MARKUP_FIELDS, []);
const TOP = level([['NAME', 'name'], ['PROJECT_ID', 'projectId'], ...ESTIMATE_TOP_FIELDS, ['CATS', CAT], ['COMS', MARKUP]], ['NAME', 'PROJECT_ID']);

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
    const kind = lv.fields[key];
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
