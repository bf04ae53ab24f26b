/**
 * Estimate exports as their programs write them (README, "Tax lines of estimates" and
 * "Markups"), planned in process as an import plans them: a Buildertrend estimate whose markups
 * are percents (sent as the number) and one flat `$150.00` (a row error in the README's words,
 * its estimate not sent); a Houzz Pro estimate whose last line is `Sales Tax (8.25%)` (the file
 * stops, nothing planned; with `--ignore-tax` the line is `ignored`, `tax`); an item named
 * "Tax credit study", which is an item.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planEstimates } from '../src/import/index.ts';
import { parseMappingFile } from '../src/mapping/index.ts';
import { isTaxLabel } from '../src/mapping/rows/tax-lines.ts';
import { STYLE, writeExcelXlsx } from './helpers/excel-xml.ts';

const dir = mkdtempSync(join(tmpdir(), 'buildsync-estimate-tax-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
const lines = (statics: ReadonlyArray<{ line: number; status: string; message: string; reason?: string }>) => statics.map((s) => [s.line, s.status, s.reason, s.message]);

// Buildertrend's estimate export (Excel's CSV of it: UTF-8 with a BOM, CRLF), the user's project_id column added first.
const BUILDERTREND = write('buildertrend-estimate.csv', `\uFEFF${[
  'project_id,Cost Code,Title,Description,Quantity,Unit,Unit Cost,Cost Type,Markup,Builder Cost,Owner Price',
  '1042,01 - Demolition,Interior demo,Remove drywall and flooring,1,LS,"$4,500.00",Labor,15.00%,"$4,500.00","$5,175.00"',
  '1042,02 - Framing,Wall framing,2x6 exterior walls,320,LF,$12.50,Material,10.00%,"$4,000.00","$4,400.00"',
  '1042,02 - Framing,Framing labor,Crew of three,40,HR,$65.00,Labor,$150.00,"$2,600.00","$2,750.00"',
  '2051,03 - Electrical,Rough-in,Panel and circuits,1,LS,"$3,200.00",Subcontractor,8.5%,"$3,200.00","$3,472.00"',
].join('\r\n')}\r\n`);
const BUILDERTREND_MAPPING = parseMappingFile({
  columns: { 'Cost Code': 'category', Title: 'subcategory', Description: 'description', Quantity: 'qty', Unit: 'unit', 'Unit Cost': 'unit_cost', Markup: 'line_item_markup' },
  ignore: ['Cost Type', 'Builder Cost', 'Owner Price'],
  constants: { estimate_name: 'Base bid' },
}, 'buildertrend.json');

describe('Buildertrend markups: percents are sent as the number, a flat amount is a row error', () => {
  it('15.00 %, 10.00 % and 8.5 % are sent as 15, 10 and 8.5; $150.00 without a markup type stops its estimate', async () => {
    const plan = await planEstimates(BUILDERTREND, { mapping: BUILDERTREND_MAPPING, accountCurrency: 'USD' });
    expect(plan.records.map((r) => r.payload)).toEqual([{
      PROJECT_ID: 2051, NAME: 'Base bid',
      CATS: [{ NAME: '03 - Electrical', SUBCATS: [{ NAME: 'Rough-in', DESCRIPTION: 'Panel and circuits', UNIT: 'LS', QTY: 1, UNIT_COST: 3200, LINE_ITEM_MARKUP: 8.5 }] }],
    }]);
    expect(lines(plan.statics)).toEqual([
      [2, 'invalid', undefined, 'not sent: line 4 of this estimate is invalid'],
      [3, 'invalid', undefined, 'not sent: line 4 of this estimate is invalid'],
      [4, 'invalid', undefined, `${BUILDERTREND}:4 column Markup: Markup "$150.00": a flat markup cannot be sent: the service's type codes are not documented; enter it as a percent or as an item`],
    ]);
  });

  it('the same estimate as an .xlsx: a percent cell (0.15 shown 15.00%) is 15, a currency cell ($150.00) without a type is a row error', async () => {
    const strings = ['project_id', 'Cost Code', 'Title', 'Quantity', 'Unit Cost', 'Markup', '02 - Framing', 'Wall framing', 'Framing labor'];
    const s = (i: number, ref: string) => `<c r="${ref}" t="s"><v>${i}</v></c>`;
    const n = (v: number, ref: string, style: number = STYLE.general) => `<c r="${ref}"${style === STYLE.general ? '' : ` s="${style}"`}><v>${v}</v></c>`;
    const header = `<row r="1">${[0, 1, 2, 3, 4, 5].map((i, c) => s(i, `${'ABCDEF'[c]}1`)).join('')}</row>`;
    const percent = `<row r="2">${n(1042, 'A2')}${s(6, 'B2')}${s(7, 'C2')}${n(320, 'D2')}${n(12.5, 'E2', STYLE.currency)}${n(0.15, 'F2', STYLE.percent2)}</row>`;
    const flat = `<row r="3">${n(1042, 'A3')}${s(6, 'B3')}${s(8, 'C3')}${n(40, 'D3')}${n(65, 'E3', STYLE.currency)}${n(150, 'F3', STYLE.currency)}</row>`;
    const mapping = parseMappingFile({ columns: { 'Cost Code': 'category', Title: 'subcategory', Quantity: 'qty', 'Unit Cost': 'unit_cost', Markup: 'line_item_markup' }, constants: { estimate_name: 'Base bid' } }, 'm.json');
    const workbook = (name: string, rows: string): string => {
      const file = join(dir, name);
      writeExcelXlsx(file, { sheets: [{ name: 'Estimate', rows }], sharedStrings: strings, deflate: true });
      return file;
    };

    const percentOnly = await planEstimates(workbook('buildertrend-percent.xlsx', header + percent), { mapping });
    expect(percentOnly.statics).toEqual([]);
    expect(percentOnly.records.map((r) => r.payload)).toEqual([{ PROJECT_ID: 1042, NAME: 'Base bid', CATS: [{ NAME: '02 - Framing', SUBCATS: [{ NAME: 'Wall framing', QTY: 320, UNIT_COST: 12.5, LINE_ITEM_MARKUP: 15 }] }] }]);

    const flatFile = workbook('buildertrend-flat.xlsx', header + percent + flat);
    const withFlat = await planEstimates(flatFile, { mapping });
    expect(withFlat.records).toEqual([]);
    expect(withFlat.statics.map((l) => [l.line, l.status])).toEqual([[2, 'invalid'], [3, 'invalid']]);
    expect(withFlat.statics[1]!.message).toBe(`${flatFile}:3 column Markup (Estimate!F3): Markup "150": a flat markup cannot be sent: the service's type codes are not documented; enter it as a percent or as an item`);
  });

  it('the same line with a line_item_markup_type is sent as written', async () => {
    const file = write('buildertrend-typed.csv', 'project_id,Cost Code,Title,Quantity,Unit Cost,Markup,Markup Type\r\n1042,02 - Framing,Framing labor,40,$65.00,$150.00,2\r\n');
    const plan = await planEstimates(file, { mapping: parseMappingFile({ columns: { 'Cost Code': 'category', Title: 'subcategory', Quantity: 'qty', 'Unit Cost': 'unit_cost', Markup: 'line_item_markup', 'Markup Type': 'line_item_markup_type' }, constants: { estimate_name: 'Base bid' } }, 'm.json') });
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.payload)).toEqual([{ PROJECT_ID: 1042, NAME: 'Base bid', CATS: [{ NAME: '02 - Framing', SUBCATS: [{ NAME: 'Framing labor', QTY: 40, UNIT_COST: 65, LINE_ITEM_MARKUP: 150, LINE_ITEM_MARKUP_TYPE: 2 }] }] }]);
  });

  it('a markup row whose value is a currency amount without markup_type is a row error too', async () => {
    const file = write('markup-row-flat.csv', 'project_id,estimate_name,category,subcategory,qty,unit_cost,markup_name,markup_value\r\n1042,Base bid,Framing,Walls,1,100,,\r\n1042,Base bid,,,,,Overhead,$150.00\r\n');
    const plan = await planEstimates(file, {});
    expect(plan.records).toEqual([]);
    expect(plan.statics[1]!.message).toBe(`${file}:3 column markup_value: markup_value "$150.00": a flat markup cannot be sent: the service's type codes are not documented; enter it as a percent or as an item`);
  });
});

// Houzz Pro's estimate export: a line per item, the sales tax as the last line.
const HOUZZ = write('houzz-estimate.csv', [
  'Category,Item Name,Description,Quantity,Unit,Unit Cost,Markup,Total',
  'Cabinetry,Base cabinets,Shaker white,12,EA,$450.00,20%,"$6,480.00"',
  'Countertops,Quartz countertop,Calacatta,45,SF,$85.00,20%,"$4,590.00"',
  ',Sales Tax (8.25%),,,,,,$913.28',
].join('\n') + '\n');
const HOUZZ_MAPPING = parseMappingFile({
  columns: { Category: 'category', 'Item Name': 'subcategory', Description: 'description', Quantity: 'qty', Unit: 'unit', 'Unit Cost': 'unit_cost', Markup: 'line_item_markup' },
  ignore: ['Total'],
  constants: { project_id: 1042, estimate_name: 'Kitchen remodel' },
}, 'houzz.json');

describe('Houzz Pro: a tax line is no item', () => {
  it('Sales Tax (8.25%) stops the file, suggesting a markup row or --ignore-tax; nothing is planned', async () => {
    await expect(planEstimates(HOUZZ, { mapping: HOUZZ_MAPPING })).rejects.toThrow(
      `${HOUZZ}:4: "Sales Tax (8.25%)" is a tax line, not an item: sent as an item it would be a cost of the estimate. Enter it as a markup row (markup_name / markup_value, no category), or pass --ignore-tax (mapping key "ignoreTax": true) to leave tax lines out; nothing was sent.`,
    );
  });

  it('with --ignore-tax the tax line is ignored (tax) and the estimate planned without it', async () => {
    const plan = await planEstimates(HOUZZ, { mapping: HOUZZ_MAPPING, ignoreTax: true });
    expect(plan.records.map((r) => r.payload)).toEqual([{
      PROJECT_ID: 1042, NAME: 'Kitchen remodel',
      CATS: [
        { NAME: 'Cabinetry', SUBCATS: [{ NAME: 'Base cabinets', DESCRIPTION: 'Shaker white', UNIT: 'EA', QTY: 12, UNIT_COST: 450, LINE_ITEM_MARKUP: 20 }] },
        { NAME: 'Countertops', SUBCATS: [{ NAME: 'Quartz countertop', DESCRIPTION: 'Calacatta', UNIT: 'SF', QTY: 45, UNIT_COST: 85, LINE_ITEM_MARKUP: 20 }] },
      ],
    }]);
    expect(lines(plan.statics)).toEqual([[4, 'ignored', 'tax', 'tax line "Sales Tax (8.25%)": left out (--ignore-tax)']]);
  });

  it('"ignoreTax": true in the mapping file does the same', async () => {
    const plan = await planEstimates(HOUZZ, { mapping: { ...HOUZZ_MAPPING, ignoreTax: true } });
    expect(plan.records).toHaveLength(1);
    expect(plan.statics.map((s) => [s.line, s.reason])).toEqual([[4, 'tax']]);
  });
});

describe('what a tax line is', () => {
  it('an item named "Tax credit study" is an item', async () => {
    const file = write('tax-credit-study.csv', 'project_id,estimate_name,category,subcategory,item,qty,unit_cost\r\n1042,Solar retrofit,Consulting,Incentives,Tax credit study,1,850.00\r\n');
    const plan = await planEstimates(file, {});
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.payload)).toEqual([{ PROJECT_ID: 1042, NAME: 'Solar retrofit', CATS: [{ NAME: 'Consulting', SUBCATS: [{ NAME: 'Incentives', ITEMS: [{ NAME: 'Tax credit study', QTY: 1, UNIT_COST: 850 }] }] }] }]);
  });

  it('the tax words alone or with a rate; nothing else', () => {
    for (const label of ['Tax', 'Sales Tax', 'sales  tax', 'VAT', 'GST', 'HST', 'PST', 'Sales Tax (8.25%)', 'VAT 20%', 'GST (5 %)', 'HST 13%', 'VAT @ 20%']) expect(isTaxLabel(label), label).toBe(true);
    for (const label of ['Tax credit study', 'Taxable materials', 'VAT return prep', 'Sales', 'GST 5', 'Tax 2026']) expect(isTaxLabel(label), label).toBe(false);
  });
});
