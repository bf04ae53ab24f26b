/**
 * A row with category and item but no subcategory (README, "What is not a record"): without
 * `--layout sections` it is a row error that suggests mapping the item column to `subcategory`
 * (items live in subcategories, and a subcategory holds quantities and costs itself), in the
 * CLI's words and the import page's; never an item put somewhere the user did not say.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dryRunReportLines, planEstimates } from '../src/import/index.ts';
import { parseMappingFile } from '../src/mapping/index.ts';
import { messageFor } from '../src/errors/index.ts';

const ROWS = resolve(import.meta.dirname, 'fixtures', 'rows');
const FILE = join(ROWS, 'estimate-item-without-subcategory.csv');
const MAPPING = parseMappingFile(JSON.parse(readFileSync(join(ROWS, 'estimate-item-without-subcategory-mapping.json'), 'utf8')), 'mapping.json');

describe('category and item without subcategory', () => {
  it('is a row error suggesting to map the item column to subcategory; the estimate is not sent', async () => {
    const plan = await planEstimates(FILE, { mapping: MAPPING });
    expect(plan.records).toEqual([]);
    const lines = dryRunReportLines(plan);
    const advice = (item: string) => `${FILE}:${item === 'Remove cabinets' ? 2 : 3} column subcategory: item ${JSON.stringify(item)} has a category but no subcategory: items live in subcategories, and a subcategory holds quantities and costs itself; if "Line Item" names what you estimate, map it to subcategory ("columns": {"Line Item": "subcategory"} in the mapping file), or give the row its subcategory`;
    expect(lines.map((l) => [l.line, l.status, l.message])).toEqual([
      [2, 'invalid', advice('Remove cabinets')],
      [3, 'invalid', advice('Haul debris')],
    ]);
    const page = plan.statics.find((l) => l.line === 2)!;
    expect(messageFor(page, 'page')).toContain('if "Line Item" names what you estimate, choose subcategory for it under "Match columns" above');
  });

  it('mapped as the message says, the rows are subcategories with their own quantities and costs', async () => {
    const plan = await planEstimates(FILE, { mapping: { ...MAPPING, columns: { ...MAPPING.columns, 'Line Item': 'subcategory' } } });
    expect(plan.records.map((r) => r.payload)).toEqual([{
      NAME: 'Kitchen remodel', PROJECT_ID: 1042,
      CATS: [{ NAME: 'Demolition', SUBCATS: [{ NAME: 'Remove cabinets', UNIT: 'ea', QTY: 4, UNIT_COST: 50 }, { NAME: 'Haul debris', UNIT: 'load', QTY: 2, UNIT_COST: 125 }] }],
    }]);
  });
});
