import { describe, expect, it } from 'vitest';
import { ResponseInvalidError } from '../src/errors/index.ts';
import { projectSchema } from '../src/api/index.ts';
import { estimatePayloadSchema } from '../src/payloads/index.ts';
import { parseProject } from '../src/api/project-schema.ts';

describe('the estimate payload schema is strict (docs/service.md, Estimates)', () => {
  const estimate = {
    NAME: 'Kitchen remodel',
    PROJECT_ID: 1042,
    ADVANCED_ESTIMATE: false,
    TOTAL_PRICE: 1000,
    CATS: [
      {
        NAME: 'Cabinets',
        COST_CODE_ID: 12,
        SUBCATS: [{ NAME: 'Uppers', QTY: 3, UNIT_COST: 100.5, ITEMS: [{ NAME: 'Hinge', QTY: 12, GENERAL_NOTES: 'soft close' }] }],
      },
    ],
    COMS: [{ NAME: 'Company Margin', VALUE: 10, MARKUP_TYPE: 1 }],
  };

  it('accepts the listed fields', () => {
    expect(estimatePayloadSchema.parse(estimate)).toEqual(estimate);
    expect(estimatePayloadSchema.parse({ NAME: 'x', PROJECT_ID: 1, COMS: [] })).toEqual({ NAME: 'x', PROJECT_ID: 1, COMS: [] });
  });

  it('requires NAME on every level and PROJECT_ID at the top', () => {
    const r = estimatePayloadSchema.safeParse({ CATS: [{ SUBCATS: [{ ITEMS: [{ QTY: 1 }] }] }] });
    expect(r.success).toBe(false);
    const paths = r.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['NAME', 'PROJECT_ID', 'CATS.0.NAME', 'CATS.0.SUBCATS.0.NAME', 'CATS.0.SUBCATS.0.ITEMS.0.NAME']));
  });

  it('refuses unknown properties, numbers as text and notes as numbers', () => {
    expect(estimatePayloadSchema.safeParse({ ...estimate, EXTRA: 1 }).success).toBe(false);
    expect(estimatePayloadSchema.safeParse({ NAME: 'x', PROJECT_ID: 1, CATS: [{ NAME: 'c', SUBCATS: [{ NAME: 's', QTY: '3' }] }] }).success).toBe(false);
    expect(estimatePayloadSchema.safeParse({ NAME: 'x', PROJECT_ID: 1, CATS: [{ NAME: 'c', DESCRIPTION: 5 }] }).success).toBe(false);
    expect(estimatePayloadSchema.safeParse({ NAME: 'x', PROJECT_ID: 1, CATS: [{ NAME: 'c', ITEMS: [] }] }).success).toBe(false);
    expect(estimatePayloadSchema.safeParse({ NAME: 'x', PROJECT_ID: 1.5 }).success).toBe(false);
  });
});

describe('the project schema is lenient but requires ID and NAME (docs/service.md, Project records)', () => {
  it('passes unknown fields through and accepts nulls', () => {
    const record = { ID: 7, NAME: 'My Documents', NEW_FIELD: { any: 'thing' }, LAT: null, ADDRESS: null, ATTACH_FOLDER_ID: 'x', IS_ARCHIVED: false };
    expect(projectSchema.parse(record)).toEqual(record);
  });

  it('names the record index and field of an invalid record', () => {
    expect(() => parseProject({ ID: 7, NAME: 'p', LAT: '45.1' }, 12)).toThrow(ResponseInvalidError);
    expect(() => parseProject({ ID: 7, NAME: 'p', LAT: '45.1' }, 12)).toThrow(/^project record 12 \(ID 7\) of the listing is invalid: field LAT: /);
    expect(() => parseProject({ ID: '7', NAME: 'p' }, 3)).toThrow(/^project record 3 of the listing is invalid: field ID: /);
    expect(() => parseProject({ ID: 8 }, 0)).toThrow(/field NAME/);
    expect(() => parseProject([1, 2], 4)).toThrow(/^project record 4 of the listing is invalid: /);
  });
});
