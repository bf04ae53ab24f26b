/**
 * The project record as both listings return it (seed §2.1), validated at the edge.
 *
 * Lenient on purpose: the seed shows one observed record, not a specification, so unknown fields
 * pass through untouched (the JSON Lines export writes the record as the service sent it), every
 * known field may be absent or null, and the fields the seed saw only as null accept any value.
 * Only what the tool relies on is required: ID (an integer, the record's identity) and NAME.
 * A known field with another type (LAT as a string, say) is refused, so a changed service is
 * noticed instead of exported wrongly.
 */
import { z } from 'zod';
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
