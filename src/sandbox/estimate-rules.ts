/**
 * The estimate payload's rules (docs/service.md, Estimates, §4.3): required NAME and PROJECT_ID, NAME required on
 * every category, subcategory and item, defaults for the flags and for COMS.
 */
import { bad } from './rule-violation.ts';
import {
  copyFields, decimal, element, flag, identifier, isObject, optionalArray, present, requiredText, type FieldKind,
} from './field-values.ts';

/** Seed §2.2: created when COMS is omitted. VALUE 0 and MARKUP_TYPE 0 are the sandbox's choice. */
export const DEFAULT_MARKUP_NAMES = ['Company Overhead', 'Company Margin', 'Contingency', 'Other 1', 'Other 2'] as const;

const NOTE_FIELDS: Record<string, FieldKind> = {
  DESCRIPTION: 'text', COST_CODE: 'scalar', COST_CODE_ID: 'decimal', TRAFFIC_COLOR: 'scalar',
  BID_NOTES: 'text', NOTES_TEAMLINK: 'text', NOTES_BID: 'text', FIELD_NOTES: 'text',
  NOTES_CLIENTLINK: 'text', NOTES_FIELD: 'text', GENERAL_NOTES: 'text', NOTES_GENERAL: 'text',
};

const LINE_FIELDS: Record<string, FieldKind> = {
  ...NOTE_FIELDS,
  CLASSIFICATION: 'decimal', STATUS: 'scalar', UNIT: 'scalar', QTY: 'decimal', RATE_QTY: 'decimal',
  UNIT_COST: 'decimal', RATE: 'decimal',
  FIVE_COLUMN_MATERIAL: 'decimal', FIVE_COLUMN_LABOR: 'decimal', FIVE_COLUMN_EQUIPMENT: 'decimal',
  FIVE_COLUMN_SUB: 'decimal', FIVE_COLUMN_OTHER: 'decimal',
  LINE_ITEM_MARKUP: 'decimal', LINE_ITEM_MARKUP_TYPE: 'decimal', ADJUSTMENT: 'decimal', ACTUAL: 'decimal',
  COMMITTED_COSTS: 'decimal', INVOICED_AMOUNTS: 'decimal',
};

const MARKUP_FIELDS: Record<string, FieldKind> = { NAME: 'scalar', VALUE: 'decimal', MARKUP_TYPE: 'scalar' };

type Node = Record<string, unknown>;

export interface ParsedEstimate {
  projectId: number;
  /** The record without IDs; `withIds` completes it once the project checks passed. */
  body: Node;
  cats: Array<{ cat: Node; subcats: Array<{ subcat: Node; items: Node[] }> }>;
  coms: Node[];
}

/** Checks the payload and keeps only the fields the seed lists (others are ignored). */
export function parseEstimate(payload: unknown): ParsedEstimate {
  if (!isObject(payload)) throw bad('The request body must be a JSON object with the estimate.');
  const name = requiredText('NAME', payload.NAME);
  if (!present(payload.PROJECT_ID)) throw bad('PROJECT_ID is required.');
  const projectId = identifier('PROJECT_ID', payload.PROJECT_ID);
  const body: Node = {
    NAME: name,
    PROJECT_ID: projectId,
    ADVANCED_ESTIMATE: present(payload.ADVANCED_ESTIMATE) ? flag('ADVANCED_ESTIMATE', payload.ADVANCED_ESTIMATE) : false,
    FIVE_COLUMN_ESTIMATE: present(payload.FIVE_COLUMN_ESTIMATE) ? flag('FIVE_COLUMN_ESTIMATE', payload.FIVE_COLUMN_ESTIMATE) : false,
    TOTAL_PRICE: present(payload.TOTAL_PRICE) ? decimal('TOTAL_PRICE', payload.TOTAL_PRICE) : null,
  };

  const cats = (optionalArray('CATS', payload.CATS) ?? []).map((raw, i) => {
    const where = `CATS[${i}]`;
    const c = element(where, raw);
    const cat: Node = { NAME: requiredText(`${where}.NAME`, c.NAME) };
    copyFields(`${where}.`, c, NOTE_FIELDS, cat);
    const subcats = (optionalArray(`${where}.SUBCATS`, c.SUBCATS) ?? []).map((rawSub, j) => {
      const subWhere = `${where}.SUBCATS[${j}]`;
      const s = element(subWhere, rawSub);
      const subcat: Node = { NAME: requiredText(`${subWhere}.NAME`, s.NAME) };
      copyFields(`${subWhere}.`, s, LINE_FIELDS, subcat);
      const items = (optionalArray(`${subWhere}.ITEMS`, s.ITEMS) ?? []).map((rawItem, k) => {
        const itemWhere = `${subWhere}.ITEMS[${k}]`;
        const it = element(itemWhere, rawItem);
        const item: Node = { NAME: requiredText(`${itemWhere}.NAME`, it.NAME) };
        copyFields(`${itemWhere}.`, it, LINE_FIELDS, item);
        return item;
      });
      return { subcat, items };
    });
    return { cat, subcats };
  });

  // Seed §2.2: omitted COMS gives the five default rows; supplied COMS (even []) gives exactly those.
  const suppliedComs = optionalArray('COMS', payload.COMS);
  const coms = suppliedComs
    ? suppliedComs.map((raw, i) => {
        const row: Node = {};
        copyFields(`COMS[${i}].`, element(`COMS[${i}]`, raw), MARKUP_FIELDS, row);
        return row;
      })
    : DEFAULT_MARKUP_NAMES.map((n) => ({ NAME: n, VALUE: 0, MARKUP_TYPE: 0 }));

  return { projectId, body, cats, coms };
}

export interface EstimateMeta {
  id: number;
  nextChildId: () => number;
  userId: number;
  now: string;
}

/** The record answered on creation (its fields are the sandbox's choice, docs/service.md, Estimates "not shown"). */
export function estimateRecord(p: ParsedEstimate, meta: EstimateMeta): Node {
  return {
    ID: meta.id,
    ...p.body,
    CREATED_BY: meta.userId,
    DATE_CREATED: meta.now,
    LMOD: meta.now,
    CATS: p.cats.map(({ cat, subcats }) => {
      const catId = meta.nextChildId();
      return {
        ID: catId,
        ESTIMATE_ID: meta.id,
        ...cat,
        SUBCATS: subcats.map(({ subcat, items }) => {
          const subId = meta.nextChildId();
          return {
            ID: subId,
            CAT_ID: catId,
            ...subcat,
            ITEMS: items.map((item) => ({ ID: meta.nextChildId(), SUBCAT_ID: subId, ...item })),
          };
        }),
      };
    }),
    COMS: p.coms.map((row) => ({ ID: meta.nextChildId(), ESTIMATE_ID: meta.id, ...row })),
  };
}
