/**
 * The project record as both listings return it (docs/service.md, Project records), validated at the edge.
 *
 * Lenient on purpose: the seed shows one observed record, not a specification, so unknown fields
 * pass through untouched (the JSON Lines export writes the record as the service sent it), every
 * known field may be absent or null, and the fields the seed saw only as null accept any value.
 * Only what the tool relies on is required: ID (an integer, the record's identity) and NAME.
 * A known field with another type (LAT as a string, say) is refused, so a changed service is
 * noticed instead of exported wrongly.
 */
import * as z from 'zod';
import { ResponseInvalidError } from '../errors/index.ts';
import { PROJECT_FIELD_KINDS, type ProjectFieldKind } from './project-fields.ts';

export type ProjectRecord = Record<string, unknown> & { ID: number; NAME: string };

const KIND_SCHEMAS: Record<ProjectFieldKind, z.ZodType> = {
  integer: z.int().nullable().optional(),
  number: z.number().nullable().optional(),
  string: z.string().nullable().optional(),
  boolean: z.boolean().nullable().optional(),
  nullable: z.unknown().optional(),
};

const shape: Record<string, z.ZodType> = {};
for (const [name, kind] of PROJECT_FIELD_KINDS) shape[name] = KIND_SCHEMAS[kind];
shape.ID = z.int();
shape.NAME = z.string();

export const projectSchema = z.looseObject(shape) as unknown as z.ZodType<ProjectRecord>;

/** Validates one listed record; `index` is its position in the response, for the message. */
export function parseProject(value: unknown, index: number): ProjectRecord {
  if (conformsToShape(value)) return value;
  const result = projectSchema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.length ? issue.path.join('.') : undefined;
  const id = value !== null && typeof value === 'object' ? (value as { ID?: unknown }).ID : undefined;
  throw new ResponseInvalidError(
    `project record ${index}${typeof id === 'number' ? ` (ID ${id})` : ''} of the listing is invalid: ` +
      `${field ? `field ${field}: ` : ''}${issue?.message ?? 'not a project object'}`,
    { cause: result.error },
  );
}

/**
 * What `projectSchema` accepts, checked without zod for records laid out as the schema's output
 * is: the known fields in the seed's order (any may be missing), then unknown ones. For such a
 * record zod's result is a copy with the same fields in the same order, so the record itself is
 * returned. Why: zod's object parse was about an eighth of the 200,000-project export's CPU time
 * (issue 15); this costs a fraction of that. Anything else (another order, a `__proto__` key, a
 * value of the wrong kind) goes to zod, which decides and words the error: this check only ever
 * says yes to what zod says yes to (test/api-project-fast-check.test.ts compares them).
 */
const KIND_CHECKS: Record<ProjectFieldKind, (v: unknown) => boolean> = {
  integer: (v) => v === null || v === undefined || Number.isSafeInteger(v),
  number: (v) => v === null || v === undefined || (typeof v === 'number' && Number.isFinite(v)),
  string: (v) => v === null || v === undefined || typeof v === 'string',
  boolean: (v) => v === null || v === undefined || typeof v === 'boolean',
  nullable: () => true,
};

const FIELD_POSITION = new Map(PROJECT_FIELD_KINDS.map(([name], i) => [name, i]));

/** The keys of the last record layout that passed, in order, and each one's check. */
let layoutKeys: string[] = [];
let layoutChecks: ((v: unknown) => boolean)[] = [];

function conformsToShape(value: unknown): value is ProjectRecord {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  // for…in with `record[key]` is V8's fast path (the key's slot comes from the enum cache).
  let i = 0;
  const keys = layoutKeys;
  for (const key in record) {
    if (key !== keys[i] || !layoutChecks[i]!(record[key])) return conformsToNewLayout(record);
    i++;
  }
  return i === keys.length || conformsToNewLayout(record);
}

/** Learns the layout of a record whose keys differ from the last one's, and checks it. */
function conformsToNewLayout(record: Record<string, unknown>): boolean {
  if (Object.getPrototypeOf(record) !== Object.prototype) return false;
  const keys = Object.keys(record);
  const checks = layoutOf(keys);
  if (checks === undefined) return false;
  layoutKeys = keys;
  layoutChecks = checks;
  for (let i = 0; i < keys.length; i++) if (!checks[i]!(record[keys[i]!])) return false;
  return true;
}

/** The per-field checks for records with these keys, or undefined when zod would reorder them. */
function layoutOf(keys: string[]): ((v: unknown) => boolean)[] | undefined {
  const checks: ((v: unknown) => boolean)[] = [];
  let last = -1;
  let unknownSeen = false;
  let id = false;
  let name = false;
  for (const key of keys) {
    if (key === '__proto__') return undefined;
    const at = FIELD_POSITION.get(key);
    if (at === undefined) {
      unknownSeen = true;
      checks.push(KIND_CHECKS.nullable);
      continue;
    }
    if (unknownSeen || at < last) return undefined;
    last = at;
    if (key === 'ID') {
      id = true;
      checks.push(Number.isSafeInteger);
    } else if (key === 'NAME') {
      name = true;
      checks.push((v) => typeof v === 'string');
    } else {
      checks.push(KIND_CHECKS[PROJECT_FIELD_KINDS[at]![1]]);
    }
  }
  return id && name ? checks : undefined;
}
