/**
 * The bill's rules (docs/service.md, Bills, §4.4): PRJ_ID, VENDOR_ID and ITEMS required, NAME and RATE on each
 * item. Identifiers and RATE arrive as strings of decimal text in the observed shape; JSON
 * numbers are accepted too (DECISIONS.md).
 */
import { bad } from './rule-violation.ts';
import {
  copyFields, decimal, element, identifier, isObject, present, requiredText, type FieldKind,
} from './field-values.ts';

const BILL_FIELDS: Record<string, FieldKind> = {
  TITLE: 'text', DUE_DATE: 'date', INVOICE_DATE: 'date', RECIEVED_DATE: 'date', ACTIVE: 'flag',
  READY_FOR_PAYMENT: 'flag', APPROVER: 'scalar', APPROVAL_DATE: 'date', NOTES: 'text', TRADE: 'scalar',
  BILL_TYPE: 'scalar', TRAFFIC_COLOR: 'scalar', LMOD: 'date', LMOD_BY: 'identifier', DATE_CREATED: 'date',
  CREATED_BY: 'identifier',
};

const ITEM_FIELDS: Record<string, FieldKind> = {
  COST_CODE_ID: 'identifier', TAX_TYPE_ID: 'identifier', TAX_PERCENT: 'decimal', DESCRIPTION: 'text',
  QTY: 'decimal', UNIT: 'scalar',
};

type Node = Record<string, unknown>;

export interface ParsedBill {
  projectId: number;
  body: Node;
  items: Node[];
}

/** `info` is the decoded `Info` query value. */
export function parseBill(info: string | null): ParsedBill {
  if (info === null || info.trim() === '') throw bad('The Info query parameter is required: a JSON object with the bill.');
  let payload: unknown;
  try {
    payload = JSON.parse(info);
  } catch {
    throw bad('The Info query parameter is not valid JSON.');
  }
  if (!isObject(payload)) throw bad('The Info query parameter must be a JSON object with the bill.');
  if (!present(payload.PRJ_ID)) throw bad('PRJ_ID is required.');
  if (!present(payload.VENDOR_ID)) throw bad('VENDOR_ID is required.');
  if (!present(payload.ITEMS)) throw bad('ITEMS is required.');
  const projectId = identifier('PRJ_ID', payload.PRJ_ID);
  const body: Node = { PRJ_ID: projectId, VENDOR_ID: identifier('VENDOR_ID', payload.VENDOR_ID) };
  copyFields('', payload, BILL_FIELDS, body);
  if (!Array.isArray(payload.ITEMS) || payload.ITEMS.length === 0) {
    throw bad('ITEMS must be a non-empty array of bill items.');
  }
  const items = payload.ITEMS.map((raw, i) => {
    const where = `ITEMS[${i}]`;
    const it = element(where, raw);
    const item: Node = { NAME: requiredText(`${where}.NAME`, it.NAME) };
    if (!present(it.RATE)) throw bad(`${where}.RATE is required.`);
    item.RATE = decimal(`${where}.RATE`, it.RATE);
    copyFields(`${where}.`, it, ITEM_FIELDS, item);
    return item;
  });
  return { projectId, body, items };
}

export interface BillMeta {
  id: number;
  nextChildId: () => number;
  userId: number;
  now: string;
}

/** The record answered on creation (its fields are the sandbox's choice, docs/service.md, Bills "not shown"). */
export function billRecord(p: ParsedBill, meta: BillMeta): Node {
  const items: Node[] = p.items.map((item) => ({ ID: meta.nextChildId(), BILL_ID: meta.id, ...item }));
  const total = items.reduce((sum, it) => sum + (it.RATE as number) * ((it.QTY as number | null) ?? 1), 0);
  return {
    ID: meta.id,
    ...p.body,
    ACTIVE: p.body.ACTIVE ?? true,
    READY_FOR_PAYMENT: p.body.READY_FOR_PAYMENT ?? false,
    LMOD: p.body.LMOD ?? meta.now,
    LMOD_BY: p.body.LMOD_BY ?? meta.userId,
    DATE_CREATED: p.body.DATE_CREATED ?? meta.now,
    CREATED_BY: p.body.CREATED_BY ?? meta.userId,
    TOTAL: Math.round(total * 100) / 100,
    ITEMS: items,
  };
}
