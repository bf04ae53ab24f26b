/**
 * The wire form of a bill: JSON in the `Info` query parameter of POST /api/Bills (docs/service.md, Bills),
 * written in the seed's observed request shape (§2.3): identifiers and RATE as JSON strings of
 * decimal text, RATE with exactly two decimals, booleans as the strings "true"/"false". Whether
 * the service accepts other encodings is unspecified, so the observed one is the safe one.
 */
import { billPayloadSchema, type BillItem, type BillPayload } from './bill-schema.ts';
import { fixedDecimalText } from '../values/index.ts';
import { payloadInvalid } from './payload-issues.ts';

/** The contract refuses a bill whose query string would pass this many characters (README, import bills). */
export const MAX_BILL_QUERY_LENGTH = 2000;

const idText = (n: number | undefined) => (n === undefined ? undefined : String(n));
const boolText = (b: boolean | undefined) => (b === undefined ? undefined : b ? 'true' : 'false');

function encodeItem(item: BillItem): Record<string, unknown> {
  // Keys in the seed's order; JSON.stringify drops the undefined ones.
  return {
    NAME: item.NAME,
    RATE: fixedDecimalText(item.RATE, 2),
    COST_CODE_ID: idText(item.COST_CODE_ID),
    TAX_TYPE_ID: idText(item.TAX_TYPE_ID),
    TAX_PERCENT: item.TAX_PERCENT,
    DESCRIPTION: item.DESCRIPTION,
    QTY: item.QTY,
    UNIT: item.UNIT,
  };
}

/** Validates the bill (RecordInvalidError naming each bad field) and returns the JSON text for Info. */
export function encodeBillInfo(bill: BillPayload): string {
  const parsed = billPayloadSchema.safeParse(bill);
  if (!parsed.success) throw payloadInvalid('bill', parsed.error);
  const b = parsed.data;
  return JSON.stringify({
    PRJ_ID: idText(b.PRJ_ID),
    VENDOR_ID: idText(b.VENDOR_ID),
    TITLE: b.TITLE,
    DUE_DATE: b.DUE_DATE,
    INVOICE_DATE: b.INVOICE_DATE,
    RECIEVED_DATE: b.RECIEVED_DATE,
    ACTIVE: boolText(b.ACTIVE),
    READY_FOR_PAYMENT: boolText(b.READY_FOR_PAYMENT),
    // An approver given as a user id is an identifier; a name stays as written.
    APPROVER: typeof b.APPROVER === 'number' ? String(b.APPROVER) : b.APPROVER,
    APPROVAL_DATE: b.APPROVAL_DATE,
    NOTES: b.NOTES,
    TRADE: b.TRADE,
    BILL_TYPE: b.BILL_TYPE,
    TRAFFIC_COLOR: b.TRAFFIC_COLOR,
    ITEMS: b.ITEMS.map(encodeItem),
  });
}

/** The query string as sent: `Info=` and the percent-encoded JSON. */
export function billQueryString(bill: BillPayload): string {
  return `Info=${encodeURIComponent(encodeBillInfo(bill))}`;
}
