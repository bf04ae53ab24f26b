/**
 * The estimate creation payload (docs/service.md, Estimates), strict: only the listed properties ("properties
 * outside the listed ones are not part of the interface", §4.3), NAME required on every level,
 * each field typed as estimate-fields.ts lists it.
 */
import * as z from 'zod';
import { ESTIMATE_COMMON_FIELDS, ESTIMATE_LINE_FIELDS, ESTIMATE_MARKUP_FIELDS, ESTIMATE_TOP_FIELDS, type EstimateFieldType } from './estimate-fields.ts';

const name = z.string().trim().min(1, 'NAME is required and may not be empty');

/** The zod type of each field type of estimate-fields.ts. */
const TYPES = {
  text: z.string(),
  int: z.int(),
  num: z.number(),
  code: z.union([z.string(), z.number()]),
  bool: z.boolean(),
} as const satisfies Record<EstimateFieldType, z.ZodType>;

type FieldList = ReadonlyArray<readonly [string, EstimateFieldType]>;
type OptionalShape<L extends FieldList> = { [F in L[number] as F[0]]: z.ZodOptional<(typeof TYPES)[F[1]]> };

/** The fields of `list`, each optional, in the list's order. */
function optionalShape<L extends FieldList>(list: L): OptionalShape<L> {
  return Object.fromEntries(list.map(([key, type]) => [key, TYPES[type].optional()])) as OptionalShape<L>;
}

/** Fields shared by categories, subcategories and items. */
const commonFields = { NAME: name, ...optionalShape(ESTIMATE_COMMON_FIELDS) };

/** Fields of subcategories and items (a line of the estimate). */
const lineFields = { ...commonFields, ...optionalShape(ESTIMATE_LINE_FIELDS) };

export const estimateItemSchema = z.strictObject(lineFields);

export const estimateSubcategorySchema = z.strictObject({
  ...lineFields,
  ITEMS: z.array(estimateItemSchema).optional(),
});

export const estimateCategorySchema = z.strictObject({
  ...commonFields,
  SUBCATS: z.array(estimateSubcategorySchema).optional(),
});

/** A markup row; every field optional (docs/service.md, Estimates). */
export const estimateMarkupSchema = z.strictObject(optionalShape(ESTIMATE_MARKUP_FIELDS));

export const estimatePayloadSchema = z.strictObject({
  NAME: name,
  PROJECT_ID: z.int().positive(),
  ...optionalShape(ESTIMATE_TOP_FIELDS),
  CATS: z.array(estimateCategorySchema).optional(),
  // Omitted COMS means five default rows; an empty array means none (docs/service.md, Estimates rule 5).
  COMS: z.array(estimateMarkupSchema).optional(),
});

export type EstimatePayload = z.infer<typeof estimatePayloadSchema>;
