/**
 * The bill as the mapping layer builds it (docs/service.md, Bills), before wire encoding (`bill-info.ts`).
 * Strict: required PRJ_ID, VENDOR_ID and a non-empty ITEMS with NAME and RATE on each; only the
 * listed properties. RATE is decimal text so that no amount ever passes through binary floating
 * point on its way to the two-decimal wire form. The seed's LMOD, LMOD_BY, DATE_CREATED and
 * CREATED_BY are the service's bookkeeping, not something an import sets, so they are refused.
 */
import * as z from 'zod';
import { fitsDecimalPlaces, isDecimalText } from '../values/index.ts';

const id = z.int().positive();
const dateTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/, "expected a date-time 'YYYY-MM-DDTHH:MM:SS' without zone");
const decimalText = z.string().refine(isDecimalText, "expected plain decimal text such as '1250.5' (no exponent, separators or currency)");
/** RATE goes on the wire with exactly two decimals (README, import bills); more that are not zeros are refused, never rounded. */
const rateText = decimalText.refine((t) => fitsDecimalPlaces(t, 2), 'expected at most two decimals (a rate is never rounded)');
const numberOrDecimalText = z.union([z.number(), decimalText]);

export const billItemSchema = z.strictObject({
  NAME: z.string().trim().min(1, 'NAME is required and may not be empty'),
  RATE: rateText,
  QTY: numberOrDecimalText.optional(),
  UNIT: z.string().optional(),
  DESCRIPTION: z.string().optional(),
  COST_CODE_ID: id.optional(),
  TAX_TYPE_ID: id.optional(),
  TAX_PERCENT: numberOrDecimalText.optional(),
});

export const billPayloadSchema = z.strictObject({
  PRJ_ID: id,
  VENDOR_ID: id,
  ITEMS: z.array(billItemSchema).min(1, 'a bill needs at least one item'),
  TITLE: z.string().optional(),
  DUE_DATE: dateTime.optional(),
  INVOICE_DATE: dateTime.optional(),
  // Spelled so by the service (docs/service.md, Bills).
  RECIEVED_DATE: dateTime.optional(),
  ACTIVE: z.boolean().optional(),
  READY_FOR_PAYMENT: z.boolean().optional(),
  APPROVER: z.union([id, z.string()]).optional(),
  APPROVAL_DATE: dateTime.optional(),
  NOTES: z.string().optional(),
  TRADE: z.string().optional(),
  BILL_TYPE: z.union([z.string(), z.number()]).optional(),
  TRAFFIC_COLOR: z.union([z.string(), z.number()]).optional(),
});

export type BillItem = z.infer<typeof billItemSchema>;
export type BillPayload = z.infer<typeof billPayloadSchema>;
