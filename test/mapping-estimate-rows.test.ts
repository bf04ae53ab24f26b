import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planEstimates, projectResolverFromListing } from '../src/import/index.ts';
import type { StaticLine } from '../src/mapping/report-line.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'buildsync-estimates-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function csv(name: string, lines: string[]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `${lines.join('\r\n')}\r\n`);
  return file;
}

function byLine(statics: StaticLine[]): Map<number, StaticLine> {
  return new Map(statics.map((s) => [s.line, s]));
}

const HEAD = 'project_id,estimate_name,category,subcategory,item,description,unit,qty,unit_cost,cost_code_id,general_notes,advanced_estimate,total_price,markup_name,markup_value,markup_type';

describe('estimate rows become one payload per (project, estimate name)', () => {
  it('maps category, subcategory and item rows to their own level, merging in order of first appearance across non-adjacent rows', async () => {
    const file = await csv('shapes.csv', [
      HEAD,
      '1042,Kitchen remodel,Cabinets,Uppers,Wall cabinet,,ea,3,"$1,234.50",,,,,,,', // line 2: an item
      '2001,Bath,Tile,Floor,Porcelain,,sf,40,4.25,,,,,,,', // line 3: another estimate in between
      '1042,Kitchen remodel,Demolition,,,Strip-out,,,,100,,,,,,', // line 4: category fields
      '1042,Kitchen remodel,Cabinets,,,Millwork package,,,,210,,,,,,', // line 5: fields of an existing category
      '1042,Kitchen remodel,Cabinets,Uppers,,,,,,,Soft close,,,,,', // line 6: subcategory fields
      '1042,Kitchen remodel,Cabinets,Lowers,Sink base,,ea,1,(12.00),,,,,,,', // line 7: a negative amount
      '1042,Kitchen remodel,Cabinets,Uppers,Crown,,lf,"1,200",15%,,,,,,,', // line 8: back to Uppers
    ]);
    const plan = await planEstimates(file, {});
    expect(plan.statics).toEqual([]);
    expect(plan.rows).toBe(7);
    expect(plan.records.map((r) => [r.key, r.label, r.lines])).toEqual([
      ['estimate:project:1042', 'project 1042 / Kitchen remodel', [2, 4, 5, 6, 7, 8]],
      ['estimate:project:2001', 'project 2001 / Bath', [3]],
    ]);
    expect(plan.records[0]!.payload).toEqual({
      NAME: 'Kitchen remodel',
      PROJECT_ID: 1042,
      CATS: [
        {
          NAME: 'Cabinets',
          DESCRIPTION: 'Millwork package',
          COST_CODE_ID: 210,
          SUBCATS: [
            {
              NAME: 'Uppers',
              GENERAL_NOTES: 'Soft close',
              ITEMS: [
                { NAME: 'Wall cabinet', UNIT: 'ea', QTY: 3, UNIT_COST: 1234.5 },
                { NAME: 'Crown', UNIT: 'lf', QTY: 1200, UNIT_COST: 15 },
              ],
            },
            { NAME: 'Lowers', ITEMS: [{ NAME: 'Sink base', UNIT: 'ea', QTY: 1, UNIT_COST: -12 }] },
          ],
        },
        { NAME: 'Demolition', DESCRIPTION: 'Strip-out', COST_CODE_ID: 100 },
      ],
    });
    // No markup rows: COMS is left out, so the service makes its five default rows (docs/service.md, Estimates rule 5).
    expect('COMS' in plan.records[0]!.payload).toBe(false);
    expect(plan.records[0]!.contentHash).toMatch(/^[0-9a-f]{16}$/);
  });

  it('sends exactly the markup rows given, and top-level fields from any row of the estimate', async () => {
    const file = await csv('markup.csv', [
      HEAD,
      '1042,Kitchen,Demo,,,,,,,,,,,Company Overhead,8%,1',
      '1042,Kitchen,,,,,,,,,,,,Company Overhead,8%,1',
      '1042,Kitchen,Demo,Labor,Haul,,load,2,350,,,yes,"$12,500.00",,,',
      '1042,Kitchen,,,,,,,,,,,,Contingency,5,0',
    ].filter((_, i) => i !== 1));
    const plan = await planEstimates(file, {});
    expect(plan.statics).toEqual([]);
    const p = plan.records[0]!.payload;
    expect(p.COMS).toEqual([
      { NAME: 'Company Overhead', VALUE: 8, MARKUP_TYPE: 1 },
      { NAME: 'Contingency', VALUE: 5, MARKUP_TYPE: 0 },
    ]);
    expect(p.ADVANCED_ESTIMATE).toBe(true);
    expect(p.TOTAL_PRICE).toBe(12500);
    // Canonical key order: the seed's, whatever the row order.
    expect(Object.keys(p)).toEqual(['NAME', 'PROJECT_ID', 'ADVANCED_ESTIMATE', 'TOTAL_PRICE', 'CATS', 'COMS']);
  });

  it('rows that fill an estimate out of the seed\'s key order give the JSON and content hash of the same estimate filled in order', async () => {
    const head = 'project_id,estimate_name,category,subcategory,item,description,cost_code_id,unit,qty,unit_cost,general_notes,total_price,markup_name,markup_value,markup_type';
    const inOrder = await csv('keys-in-order.csv', [
      head,
      '7,Deck,Framing,,,Framing desc,55,,,,cat notes,,,,',
      '7,Deck,Framing,Lumber,,Lumber desc,102,lf,,,sub notes,,,,',
      '7,Deck,Framing,Lumber,Joists,Joists 2x10,101,lf,100,$2.50,,,,,',
      '7,Deck,Framing,,,,,,,,,1000,,,',
      '7,Deck,,,,,,,,,,,Margin,12.5,1',
    ]);
    // A markup before the lines, an item before its subcategory's fields and a subcategory before
    // its category's, a later field before an earlier one, the top-level field last.
    const outOfOrder = await csv('keys-out-of-order.csv', [
      head,
      '7,Deck,,,,,,,,,,,Margin,12.5,1',
      '7,Deck,Framing,Lumber,Joists,Joists 2x10,101,lf,100,$2.50,,,,,',
      '7,Deck,Framing,,,,,,,,cat notes,,,,',
      '7,Deck,Framing,,,Framing desc,55,,,,,,,,',
      '7,Deck,Framing,Lumber,,Lumber desc,102,lf,,,sub notes,,,,',
      '7,Deck,Framing,,,,,,,,,1000,,,',
    ]);
    const [a, b] = await Promise.all([planEstimates(inOrder, {}), planEstimates(outOfOrder, {})]);
    expect([a.statics, b.statics]).toEqual([[], []]);
    expect(b.records[0]!.payloadJson).toBe(a.records[0]!.payloadJson);
    expect(b.records[0]!.contentHash).toBe(a.records[0]!.contentHash);
    const p = JSON.parse(b.records[0]!.payloadJson!) as { CATS: Array<{ SUBCATS: object[] }> };
    expect(Object.keys(p)).toEqual(['NAME', 'PROJECT_ID', 'TOTAL_PRICE', 'CATS', 'COMS']);
    expect(Object.keys(p.CATS[0]!)).toEqual(['NAME', 'DESCRIPTION', 'COST_CODE_ID', 'GENERAL_NOTES', 'SUBCATS']);
    expect(Object.keys(p.CATS[0]!.SUBCATS[0]!)).toEqual(['NAME', 'DESCRIPTION', 'COST_CODE_ID', 'GENERAL_NOTES', 'UNIT', 'ITEMS']);
  });

  it('gives the same content hash when the columns come in another order', async () => {
    const a = await csv('order-a.csv', ['project_id,estimate_name,category,subcategory,item,qty,unit', '7,E,C,S,I,2,ea', '7,E,C,,,,']);
    const b = await csv('order-b.csv', ['unit,qty,item,subcategory,category,estimate_name,project_id', 'ea,2,I,S,C,E,7', ',,,,C,E,7']);
    const [pa, pb] = await Promise.all([planEstimates(a, {}), planEstimates(b, {})]);
    expect(pa.records[0]!.contentHash).toBe(pb.records[0]!.contentHash);
  });
});

describe('invalid estimate rows', () => {
  it('reports each bad row with file, line, column and what was expected, and sends nothing of its estimate', async () => {
    const file = await csv('invalid.csv', [
      HEAD,
      ',Kitchen,Demo,,,,,,,,,,,,,', // 2: missing project
      '1042,,Demo,,,,,,,,,,,,,', // 3: missing estimate name
      '1042,Kitchen,,,,,,,,,,,,,,', // 4: missing category on a line row
      '1042,Kitchen,Demo,Labor,Haul,,load,two,350,,,,,,,', // 5: bad number
      '1042,Kitchen,Demo,Labor,Dumpster,,load,1,650,,,,,,,', // 6: fine, but its estimate is not sent
      '3003,Deck,Framing,Joists,2x10,,ea,12,9.5,,,,100,,,', // 7: total_price 100
      '3003,Deck,Framing,Joists,2x8,,ea,12,7.25,,,,120,,,', // 8: total_price 120 disagrees
      '4004,Shed,Framing,,,,ea,1,,,,,,,,', // 9: qty on a category row
      '4004,Shed,Framing,,Door,,ea,1,300,,,,,,,', // 10: item without a subcategory
    ]);
    const plan = await planEstimates(file, {});
    expect(plan.records).toEqual([]);
    const s = byLine(plan.statics);
    expect([...s.keys()].sort((x, y) => x - y)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const l of s.values()) expect(l.status).toBe('invalid');
    expect(s.get(2)!.message).toMatch(/invalid\.csv:2: the project is missing: fill project_id/);
    expect(s.get(2)!.record).toBe('project ? / Kitchen');
    expect(s.get(3)!.message).toMatch(/invalid\.csv:3 column estimate_name: the estimate name is missing/);
    expect(s.get(4)!.message).toMatch(/invalid\.csv:4 column category: category is required on a line row/);
    expect(s.get(4)!.record).toBe('project 1042 / Kitchen');
    expect(s.get(5)!.message).toBe(`${file}:5 column qty: expected a number like 1,234.50, got "two"`);
    expect(s.get(6)!.message).toBe('not sent: lines 4, 5 of this estimate are invalid');
    expect(s.get(7)!.message).toBe('not sent: line 8 of this estimate is invalid');
    expect(s.get(8)!.message).toBe(`${file}:8 column total_price: total_price is 120 here but 100 on line 7; every row of an estimate must agree on it (or leave it blank)`);
    expect(s.get(9)!.message).toMatch(/:9: unit, qty cannot be set on a category .*add a subcategory/);
    expect(s.get(10)!.message).toBe(`${file}:10 column subcategory: item "Door" has a category but no subcategory: items live in subcategories, and a subcategory holds quantities and costs itself; if "item" names what you estimate, map it to subcategory ("columns": {"item": "subcategory"} in the mapping file), or give the row its subcategory`);
  });

  it('refuses a second estimate for the same project, pointing at the first', async () => {
    const file = await csv('two-for-one.csv', [
      HEAD,
      '1042,Kitchen,Demo,,,,,,,,,,,,,',
      '1042,Kitchen v2,Demo,,,,,,,,,,,,,',
      '1042,Kitchen,Cabinets,,,,,,,,,,,,,',
      '1042,Kitchen v2,Cabinets,,,,,,,,,,,,,',
    ]);
    const plan = await planEstimates(file, {});
    expect(plan.records.map((r) => [r.label, r.lines])).toEqual([['project 1042 / Kitchen', [2, 4]]]);
    expect(plan.statics.map((s) => [s.line, s.record, s.status])).toEqual([
      [3, 'project 1042 / Kitchen v2', 'invalid'],
      [5, 'project 1042 / Kitchen v2', 'invalid'],
    ]);
    expect(plan.statics[0]!.message).toMatch(/^not sent: project 1042 already gets estimate "Kitchen" from line 2 of this file/);
  });

  it('refuses a file with an unknown column unless the mapping ignores it, and one without estimate_name', async () => {
    const file = await csv('unknown.csv', ['project_id,estimate_name,category,Colour', '1,E,C,red']);
    await expect(planEstimates(file, {})).rejects.toMatchObject({ code: 'BUILDSYNC_FILE_UNREADABLE', message: expect.stringMatching(/unknown column "Colour"/) });
    const plan = await planEstimates(file, { mapping: { columns: {}, ignore: ['colour'], constants: {} } });
    expect(plan.records).toHaveLength(1);
    const noName = await csv('no-name.csv', ['project_id,category', '1,C']);
    await expect(planEstimates(noName, {})).rejects.toThrow(/missing column: estimate_name/);
  });
});

describe('projects named by number or name go through the listing', () => {
  const listing = [
    { ID: 10001, NAME: 'My Documents', PROJECT_NUMBER: '' },
    { ID: 10008, NAME: 'Copper Hill Restaurant', PROJECT_NUMBER: 'P-2023-0003' },
    { ID: 10031, NAME: 'Riverside Clinic Expansion', PROJECT_NUMBER: '' },
    { ID: 10032, NAME: 'Riverside Clinic Expansion', PROJECT_NUMBER: 'P-2021-0019' },
    { ID: 10040, NAME: 'My Documents', PROJECT_NUMBER: '' },
  ];
  const resolver = projectResolverFromListing(listing);

  it('resolves, and says why not: My Documents, ambiguous, unknown, not visible', async () => {
    const file = await csv('refs.csv', [
      'project_id,project_number,project_name,estimate_name,category',
      ',p-2023-0003,,By number,Demo', // 2: case-insensitive number
      ',,Riverside Clinic Expansion,Ambiguous,Demo', // 3
      ',,Nowhere Plaza,Unknown,Demo', // 4
      '10001,,,Docs,Demo', // 5: My Documents by ID
      ',,My Documents,Docs by name,Demo', // 6
      '99999,,,Hidden,Demo', // 7
      '10032,P-2021-0019,,Both,Demo', // 8: two columns naming one project
      '10008,P-2021-0019,,Clash,Demo', // 9: two columns naming two projects
    ]);
    const plan = await planEstimates(file, { resolver });
    expect(plan.records.map((r) => r.key)).toEqual(['estimate:project:10008', 'estimate:project:10032']);
    const s = byLine(plan.statics);
    expect(s.get(3)!.message).toMatch(/project_name "Riverside Clinic Expansion" matches 2 projects \(IDs 10031, 10032\); use project_id/);
    expect(s.get(3)!.record).toBe('project "Riverside Clinic Expansion" / Ambiguous');
    expect(s.get(4)!.message).toMatch(/no project visible to this account has project_name "Nowhere Plaza"/);
    expect(s.get(5)!.message).toMatch(/project 10001 is a "My Documents" record .*not a valid target/);
    expect(s.get(6)!.message).toMatch(/project_name "My Documents" is a "My Documents" record .*not a valid target/);
    expect(s.get(7)!.message).toMatch(/project 99999 is not visible to this account/);
    expect(s.get(9)!.message).toMatch(/project_number "P-2021-0019" is project 10032, but 10008 on the same row is project 10008/);
  });

  it('takes project_id as written when there is no listing, and cannot resolve names then', async () => {
    const file = await csv('no-listing.csv', ['project_id,project_name,estimate_name,category', '99999,,E,C', ',Copper Hill Restaurant,F,C']);
    const plan = await planEstimates(file, {});
    expect(plan.records.map((r) => r.key)).toEqual(['estimate:project:99999']);
    expect(plan.statics[0]!.message).toMatch(/can only be resolved through the service's project listing/);
  });
});
