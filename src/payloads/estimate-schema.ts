/**
 * The estimate creation payload (seed §2.2), strict: only the listed properties ("properties
 * outside the listed ones are not part of the interface", §4.3), NAME required on every level,
 * numbers as JSON numbers and notes/descriptions as strings, as in the observed request shape.
 * The seed does not type TRAFFIC_COLOR, STATUS or MARKUP_TYPE; they accept a string or a number.
 */
import { z } from 'zod';

const name = z.string().trim().min(1, 'NAME is required and may not be empty');
const num = z.number();
const text = z.string();
const code = z.union([z.string(), z.number()]);

/** Fields shared by categories, subcategories and items. */
const commonFields = {
  NAME: name,
  DESCRIPTION: text.optional(),
  COST_CODE: text.optional(),
  COST_CODE_ID: z.int().optional(),
  TRAFFIC_COLOR: code.optional(),
  BID_NOTES: text.optional(),
  NOTES_TEAMLINK: text.optional(),
  NOTES_BID: text.optional(),
  FIELD_NOTES: text.optional(),
  NOTES_CLIENTLINK: text.optional(),
  NOTES_FIELD: text.optional(),
  GENERAL_NOTES: text.optional(),
  NOTES_GENERAL: text.optional(),
};

/** Fields of subcategories and items (a line of the estimate). */
const lineFields = {
  ...commonFields,
  CLASSIFICATION: num.optional(),
  STATUS: code.optional(),
  UNIT: text.optional(),
  QTY: num.optional(),
  RATE_QTY: num.optional(),
  UNIT_COST: num.optional(),
  RATE: num.optional(),
  FIVE_COLUMN_MATERIAL: num.optional(),
  FIVE_COLUMN_LABOR: num.optional(),
  FIVE_COLUMN_EQUIPMENT: num.optional(),
  FIVE_COLUMN_SUB: num.optional(),
  FIVE_COLUMN_OTHER: num.optional(),
  LINE_ITEM_MARKUP: num.optional(),
  LINE_ITEM_MARKUP_TYPE: num.optional(),
  ADJUSTMENT: num.optional(),
  ACTUAL: num.optional(),
  COMMITTED_COSTS: num.optional(),
  INVOICED_AMOUNTS: num.optional(),
};

export const estimateItemSchema = z.strictObject(lineFields);

export const estimateSubcategorySchema = z.strictObject({
  ...lineFields,
  ITEMS: z.array(estimateItemSchema).optional(),
});

export const estimateCategorySchema = z.strictObject({
  ...commonFields,
  SUBCATS: z.array(estimateSubcategorySchema).optional(),
});

/** A markup row; every field optional (seed §2.2). */
export const estimateMarkupSchema = z.strictObject({
  NAME: text.optional(),
  VALUE: num.optional(),
  MARKUP_TYPE: code.optional(),
});

export const estimatePayloadSchema = z.strictObject({
  NAME: name,
  PROJECT_ID: z.int().positive(),
  ADVANCED_ESTIMATE: z.boolean().optional(),
  FIVE_COLUMN_ESTIMATE: z.boolean().optional(),
  TOTAL_PRICE: num.optional(),
  CATS: z.array(estimateCategorySchema).optional(),
  // Omitted COMS means five default rows; an empty array means none (seed §4.3 rule 5).
  COMS: z.array(estimateMarkupSchema).optional(),
});

export type EstimatePayload = z.infer<typeof estimatePayloadSchema>;
