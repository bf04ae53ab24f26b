import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planBills, planEstimates } from '../src/import/index.ts';
import { parseMappingFile } from '../src/mapping/index.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'buildsync-formats-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cell formats through real files (docs/reading-rules.md)', () => {
  it('reads every boolean spelling, and a blank as not given', async () => {
    const file = path.join(dir, 'booleans.csv');
    const cells = ['true', 'FALSE', 'yes', 'No', 'y', 'n', '1', '0', 'x', ''];
    const rows = cells.map((b, i) => `${i + 1},E,C,${b}`);
    await writeFile(file, ['project_id,estimate_name,category,advanced_estimate', ...rows].join('\n'));
    const plan = await planEstimates(file, {});
    expect(plan.statics).toEqual([]);
    expect(plan.records.map((r) => r.payload.ADVANCED_ESTIMATE)).toEqual([true, false, true, false, true, false, true, false, true, undefined]);
  });

  it('reads numbers written $1,234.50, (12.00), 15% and 1,234.5 in a semicolon-separated Windows-1252 file: they prove the decimal point', async () => {
    const file = path.join(dir, 'numbers.csv');
    const text = ['project_id;estimate_name;category;subcategory;item;qty;unit_cost;line_item_markup', '1;Café;C;S;Tôle;1,234.5;$1,234.50;15%', '1;Café;C;S;Crédit;1;(12.00);'].join('\r\n');
    await writeFile(file, Buffer.from(text, 'latin1'));
    // A ;-separated file reads decimal commas unless its numbers prove the point, as these US amounts do.
    for (const opts of [{}, { decimalSeparator: '.' as const }]) {
      const plan = await planEstimates(file, opts);
      expect(plan.statics).toEqual([]);
      expect(plan.records[0]!.label).toBe('project 1 / Café');
      expect(plan.records[0]!.payload.CATS![0]!.SUBCATS![0]!.ITEMS).toEqual([
        { NAME: 'Tôle', QTY: 1234.5, UNIT_COST: 1234.5, LINE_ITEM_MARKUP: 15 },
        { NAME: 'Crédit', QTY: 1, UNIT_COST: -12 },
      ]);
    }
    // Told otherwise, they are refused, never misread.
    const told = await planEstimates(file, { decimalSeparator: ',' });
    expect(told.records).toEqual([]);
    expect(told.statics[0]!.message).toContain('column qty: expected a number like 1.234,50 (the decimal separator of this file is ","), got "1,234.5"');
  });

  it('sends dates from ISO, MM/DD/YYYY and .xlsx date cells as YYYY-MM-DDTHH:MM:SS; a plain number in a date column is a row error naming its cell', async () => {
    const file = path.join(dir, 'dates.xlsx');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Bills');
    ws.addRow(['bill_ref', 'project_id', 'vendor_id', 'invoice_date', 'due_date', 'received_date', 'approval_date', 'item_name', 'rate']);
    ws.addRow(['B-1', 1042, 55, '2026-03-01', '04/15/2026', new Date(Date.UTC(2026, 2, 3, 9, 30)), 46086, 'Item', 1250]);
    await wb.xlsx.writeFile(file);
    const plan = await planBills(file, {});
    expect(plan.statics.map((s) => s.message)).toEqual([
      `${file}:2 column approval_date (Bills!G2): expected a date like 2026-03-01, 2026-03-01T08:30:00 or 03/01/2026, got the number 46086: the cell is not formatted as a date, so Excel shows it as a number, not a date. Format the cell as a date (or type the date) and save the workbook again`,
    ]);
    const dated = await planBills(file, { mapping: parseMappingFile({ ignore: ['approval_date'] }, 'map.json') });
    expect(dated.records[0]!.payload).toMatchObject({
      INVOICE_DATE: '2026-03-01T00:00:00',
      DUE_DATE: '2026-04-15T00:00:00',
      RECIEVED_DATE: '2026-03-03T09:30:00',
      ITEMS: [{ NAME: 'Item', RATE: '1250' }],
    });
  });

  it('names the line and column of a bad date', async () => {
    const file = path.join(dir, 'bad-date.csv');
    await writeFile(file, 'project_id,vendor_id,due_date,item_name,rate\n1,55,2026-02-30,x,1\n');
    const plan = await planBills(file, {});
    expect(plan.statics[0]!.message).toBe(`${file}:2 column due_date: "2026-02-30" is not a calendar date (February 2026 has 28 days)`);
  });
});
