import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planEstimates } from '../src/import/index.ts';
import { ESTIMATE_COLUMNS, ESTIMATE_NUMBER_COLUMNS } from '../src/mapping/index.ts';
import { surelyValidEstimate } from '../src/mapping/estimate-check.ts';
import { ESTIMATE_COMMON_FIELDS, ESTIMATE_LINE_FIELDS, ESTIMATE_MARKUP_FIELDS, ESTIMATE_TOP_FIELDS, estimatePayloadSchema, type EstimateFieldType } from '../src/payloads/index.ts';
import { estimateCategorySchema, estimateItemSchema, estimateMarkupSchema, estimateSubcategorySchema } from '../src/payloads/estimate-schema.ts';

// One list of estimate fields (src/payloads/estimate-fields.ts): the schema, the hand check and
// the file's columns all derive from it, so they can never disagree on which fields exist.
const keys = (list: ReadonlyArray<readonly [string, EstimateFieldType]>): string[] => list.map(([k]) => k);
const columns = (list: ReadonlyArray<readonly [string, EstimateFieldType]>): string[] => list.map(([k]) => k.toLowerCase());

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'buildsync-estimate-fields-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the estimate field list is the one definition of the estimate fields', () => {
  it('gives the schema its keys on every level, in the list order', () => {
    const common = ['NAME', ...keys(ESTIMATE_COMMON_FIELDS)];
    const line = [...common, ...keys(ESTIMATE_LINE_FIELDS)];
    expect(Object.keys(estimateItemSchema.shape)).toEqual(line);
    expect(Object.keys(estimateSubcategorySchema.shape)).toEqual([...line, 'ITEMS']);
    expect(Object.keys(estimateCategorySchema.shape)).toEqual([...common, 'SUBCATS']);
    expect(Object.keys(estimateMarkupSchema.shape)).toEqual(keys(ESTIMATE_MARKUP_FIELDS));
    expect(Object.keys(estimatePayloadSchema.shape)).toEqual(['NAME', 'PROJECT_ID', ...keys(ESTIMATE_TOP_FIELDS), 'CATS', 'COMS']);
  });

  it('gives the estimate file its field columns (lower-cased) and its number columns', () => {
    const placing = ['project_id', 'project_number', 'project_name', 'estimate_name', 'category', 'subcategory', 'item'];
    const markup = ['markup_name', 'markup_value', 'markup_type'];
    // `currency` is read from the file and checked against the account's currency; it is no payload field.
    expect(ESTIMATE_COLUMNS).toEqual([...placing, ...columns(ESTIMATE_COMMON_FIELDS), ...columns(ESTIMATE_LINE_FIELDS), ...columns(ESTIMATE_TOP_FIELDS), ...markup, 'currency']);
    const numbers = [...ESTIMATE_LINE_FIELDS, ...ESTIMATE_TOP_FIELDS].filter(([, t]) => t === 'num');
    expect(ESTIMATE_NUMBER_COLUMNS).toEqual([...columns(numbers), 'markup_value', 'markup_type']);
  });

  it('a file giving every listed field plans a payload with all of them that the hand check and the schema accept, sent as it was hashed', async () => {
    // One value per type, as a cell and as the payload holds it (`code` fields are read as text).
    const sample: Record<EstimateFieldType, [string, unknown]> = { text: ['note', 'note'], code: ['amber', 'amber'], int: ['7', 7], num: ['1.5', 1.5], bool: ['true', true] };
    const cells = (list: ReadonlyArray<readonly [string, EstimateFieldType]>) => list.map(([, t]) => sample[t][0]);
    const values = (list: ReadonlyArray<readonly [string, EstimateFieldType]>) => Object.fromEntries(list.map(([k, t]) => [k, sample[t][1]]));
    const blank = (list: readonly unknown[]) => list.map(() => '');
    const header = ['project_id', 'estimate_name', 'category', 'subcategory', 'item', ...columns(ESTIMATE_COMMON_FIELDS), ...columns(ESTIMATE_LINE_FIELDS), ...columns(ESTIMATE_TOP_FIELDS)];
    const rows = [
      ['1042', 'Kitchen', 'Cabinets', '', '', ...cells(ESTIMATE_COMMON_FIELDS), ...blank(ESTIMATE_LINE_FIELDS), ...cells(ESTIMATE_TOP_FIELDS)],
      ['1042', 'Kitchen', 'Cabinets', 'Uppers', '', ...cells(ESTIMATE_COMMON_FIELDS), ...cells(ESTIMATE_LINE_FIELDS), ...blank(ESTIMATE_TOP_FIELDS)],
      ['1042', 'Kitchen', 'Cabinets', 'Uppers', 'Hinge', ...cells(ESTIMATE_COMMON_FIELDS), ...cells(ESTIMATE_LINE_FIELDS), ...blank(ESTIMATE_TOP_FIELDS)],
    ];
    const file = path.join(dir, 'every-field.csv');
    await writeFile(file, [header, ...rows].map((r) => `${r.join(',')}\r\n`).join(''));

    const plan = await planEstimates(file, {});
    expect(plan.statics).toEqual([]);
    expect(plan.records).toHaveLength(1);
    const expected = {
      NAME: 'Kitchen',
      PROJECT_ID: 1042,
      ...values(ESTIMATE_TOP_FIELDS),
      CATS: [{
        NAME: 'Cabinets',
        ...values(ESTIMATE_COMMON_FIELDS),
        SUBCATS: [{
          NAME: 'Uppers',
          ...values(ESTIMATE_COMMON_FIELDS),
          ...values(ESTIMATE_LINE_FIELDS),
          ITEMS: [{ NAME: 'Hinge', ...values(ESTIMATE_COMMON_FIELDS), ...values(ESTIMATE_LINE_FIELDS) }],
        }],
      }],
    };
    const record = plan.records[0]!;
    // The planned JSON is in the list order, key for key.
    expect(record.payloadJson).toBe(JSON.stringify(expected));
    expect(surelyValidEstimate(expected)).toBe(true);
    // The client sends the schema's output: the same text that was hashed.
    expect(JSON.stringify(estimatePayloadSchema.parse(record.payload))).toBe(record.payloadJson);
  });
});
