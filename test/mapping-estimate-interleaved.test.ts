import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planEstimates } from '../src/import/index.ts';

// The planner keeps only the estimate of the last row open and seals the others into their JSON
// (src/mapping/estimates.ts, `seal`); an estimate whose rows come back later is reopened from it.
// Interleaving rows must change nothing: payloads, hashes, lines, messages.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'buildsync-interleaved-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function csv(name: string, lines: string[]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

const HEAD = 'project_id,estimate_name,category,subcategory,item,description,unit,qty,unit_cost,cost_code_id,advanced_estimate,total_price,markup_name,markup_value,markup_type';
const KITCHEN = [
  '1042,Kitchen,Cabinets,,,Millwork package,,,,210,,,,,',
  '1042,Kitchen,Cabinets,Uppers,Wall cabinet,,ea,3,"$1,234.50",,,,,,',
  '1042,Kitchen,Cabinets,Uppers,,Soft close,,,,,yes,,,,',
  '1042,Kitchen,Demolition,Labor,Strip-out,,hr,16,65,,,,,,',
  '1042,Kitchen,,,,,,,,,,,Overhead,8%,1',
  '1042,Kitchen,Cabinets,Lowers,Sink base,,ea,1,(12.00),,,15000,,,',
];
const BATH = [
  '2001,Bath,Tile,Floor,Porcelain,,sf,40,4.25,,,,,,',
  '2001,Bath,Tile,,,Wet areas,,,,300,,,,,',
  '2001,Bath,Tile,Walls,Subway,,sf,120,3.5,,,,,,',
];

describe('rows of estimates in any order', () => {
  it('give the same payloads, hashes and report as the same rows grouped', async () => {
    const grouped = await planEstimates(await csv('grouped.csv', [HEAD, ...KITCHEN, ...BATH]));
    const mixed = await planEstimates(
      await csv('mixed.csv', [HEAD, KITCHEN[0]!, BATH[0]!, KITCHEN[1]!, KITCHEN[2]!, BATH[1]!, KITCHEN[3]!, KITCHEN[4]!, BATH[2]!, KITCHEN[5]!]),
    );
    expect(grouped.statics).toEqual([]);
    expect(mixed.statics).toEqual([]);
    const view = (p: typeof grouped) => p.records.map((r) => ({ key: r.key, label: r.label, hash: r.contentHash, payload: r.payload, json: r.payloadJson }));
    expect(view(mixed)).toEqual(view(grouped));
    expect(mixed.records.map((r) => r.lines)).toEqual([[2, 4, 5, 7, 8, 10], [3, 6, 9]]);
    expect(grouped.records[0]!.payloadJson).toBe(JSON.stringify(grouped.records[0]!.payload));
    expect(grouped.records[0]!.payload).toMatchObject({ ADVANCED_ESTIMATE: true, TOTAL_PRICE: 15000, COMS: [{ NAME: 'Overhead', VALUE: 8, MARKUP_TYPE: 1 }] });
  });

  it('names the earlier line of a reopened estimate when a later row disagrees with it', async () => {
    const file = await csv('disagree.csv', [
      HEAD,
      '1042,Kitchen,Cabinets,,,Millwork package,,,,210,,100,,,', // 2
      '2001,Bath,Tile,Floor,Porcelain,,sf,40,4.25,,,,,,', // 3: the kitchen is sealed here
      '1042,Kitchen,Cabinets,,,Other package,,,,,,,,,', // 4: reopened, disagrees with line 2
      '2001,Bath,Tile,Walls,Subway,,sf,120,3.5,,,,,,', // 5
      '1042,Kitchen,Cabinets,Uppers,Crown,,lf,10,15,,,120,,,', // 6: reopened again, total_price disagrees
    ]);
    const plan = await planEstimates(file);
    expect(plan.records.map((r) => r.label)).toEqual(['project 2001 / Bath']);
    const msg = new Map(plan.statics.map((s) => [s.line, s.message]));
    expect(msg.get(2)).toBe('not sent: lines 4, 6 of this estimate are invalid');
    expect(msg.get(4)).toBe(`${file}:4 column description: description of category "Cabinets" is "Other package" here but "Millwork package" on line 2; rows setting one category must agree (or leave it blank)`);
    expect(msg.get(6)).toBe(`${file}:6 column total_price: total_price is 120 here but 100 on line 2; every row of an estimate must agree on it (or leave it blank)`);
  });

  it('refuses a number too large to be finite in its cell, naming line and column', async () => {
    const huge = '9'.repeat(400); // digits only, but not a finite number
    const file = await csv('infinite.csv', [HEAD, `1042,Kitchen,Cabinets,Uppers,Crown,,lf,${huge},15,,,,,,`, '2001,Bath,Tile,Floor,Porcelain,,sf,40,4.25,,,,,,']);
    const plan = await planEstimates(file);
    expect(plan.records.map((r) => r.label)).toEqual(['project 2001 / Bath']);
    expect(plan.statics).toHaveLength(1);
    expect(plan.statics[0]!.line).toBe(2);
    expect(plan.statics[0]!.message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2 column qty: "9{57}\\.\\.\\." has 400 significant digits; a number keeps 15 \\(as Excel does\\), so the last ones would be lost\\. Check the value, or write it with 15 digits or fewer$`));
  });
});
