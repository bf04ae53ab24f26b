/**
 * Only real records are sent (README, "Which rows are records"): total rows, split lines and
 * fill-down, sectioned estimates, in files shaped as the programs write them, through the spawned
 * CLI's dry run: the exact payloads, the `ignored` rows and their reasons, the exit codes.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onlyJson, runCli } from './helpers/cli.ts';
import { writeExcelXlsx, xmlEscape } from './helpers/excel-xml.ts';
import { freeProjectIds, parseReport, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { planEstimates, streamBills, streamEstimates } from '../src/import/index.ts';
import { openTable } from '../src/tables/index.ts';
import type { MappedRecord, StaticLine } from '../src/mapping/index.ts';

const ENV = { REDIS_URL: 'redis://127.0.0.1:1', LOG_LEVEL: 'warn', BUILDSYNC_LIMITS: 'none' };
const SAMPLES = resolve(import.meta.dirname, '..', 'samples');
const WORKBOOKS = resolve(import.meta.dirname, 'fixtures', 'workbooks');
const dir = mkdtempSync(join(tmpdir(), 'totals-sections-'));
let seq = 0;

function file(name: string, text: string): string {
  const path = join(dir, `${++seq}-${name}`);
  writeFileSync(path, text);
  return path;
}

async function dryRun(kind: 'bills' | 'estimates', path: string, ...more: string[]) {
  const r = await runCli(['import', kind, path, '--dry-run', '--print-payloads', ...more], ENV, { cwd: dir });
  const payloads = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as unknown);
  const report = r.code === 2 ? [] : parseReport(readFileSync(`${path}.report.csv`, 'utf8'));
  return { ...r, payloads, report, ignored: report.filter((l) => l.status === 'ignored').map((l) => [l.line, l.message]) };
}

/** A QuickBooks bill report: Bill No., vendor, date, memo and project on a bill's first line only, a total under each bill, a closing TOTAL. */
const QB_MAPPING = JSON.stringify({
  columns: { 'Bill No.': 'bill_ref', Vendor: 'vendor', 'Bill Date': 'invoice_date', Memo: 'notes', 'Line Description': 'item_name', 'Line Amount': 'rate', 'Project ID': 'project_id' },
  dateFormat: 'MDY',
});
function qbReport(total3004 = '"1,335.00"'): string {
  return [
    'Bill No.,Vendor,Bill Date,Memo,Line Description,Line Amount,Project ID',
    'QB-3004,Summit Lumber & Millwork,03/02/2026,Framing package,"2x6 studs, 16ft","1,250.00",1042',
    ',,,,Delivery,85.00,',
    `Total for QB-3004,,,,,${total3004},`,
    'QB-3005,Keystone Electric,03/09/2026,Panel upgrade,200A panel,"3,480.00",1042',
    'Total for QB-3005,,,,,"3,480.00",',
    'TOTAL,,,,,"4,815.00",',
    '',
  ].join('\n');
}
const qbArgs = (...more: string[]) => ['--mapping', file('qb-map.json', QB_MAPPING), '--vendors', join(SAMPLES, 'vendors.csv'), ...more];
const QB_FILL = ['--fill-down', 'bill_ref,vendor,invoice_date,notes,project_id'];

describe('bills: total rows and split lines', () => {
  it('a QuickBooks report with split lines: filled down, each total checked and ignored, every bill at its value', async () => {
    const r = await dryRun('bills', file('qb.csv', qbReport()), ...qbArgs(...QB_FILL));
    expect(r.code, r.stderr).toBe(0);
    expect(r.payloads).toEqual([
      { PRJ_ID: '1042', VENDOR_ID: '56', INVOICE_DATE: '2026-03-02T00:00:00', NOTES: 'Framing package', ITEMS: [{ NAME: '2x6 studs, 16ft', RATE: '1250.00' }, { NAME: 'Delivery', RATE: '85.00' }] },
      { PRJ_ID: '1042', VENDOR_ID: '57', INVOICE_DATE: '2026-03-09T00:00:00', NOTES: 'Panel upgrade', ITEMS: [{ NAME: '200A panel', RATE: '3480.00' }] },
    ]);
    expect(r.ignored).toEqual([
      ['4', 'total row: "Total for QB-3004", 1335.00 = the sum of bill "QB-3004"'],
      ['6', 'total row: "Total for QB-3005", 3480.00 = the sum of bill "QB-3005"'],
      ['7', 'total row: "TOTAL", 4815.00 = the sum of every line since the previous total'],
    ]);
    expect(r.stderr).toContain('3 rows ignored: total 3');
  });

  it('split lines without --fill-down: a row error that suggests it, and the bill is not sent', async () => {
    const r = await dryRun('bills', file('qb.csv', qbReport()), ...qbArgs());
    expect(r.code, r.stderr).toBe(1);
    expect(r.payloads).toEqual([{ PRJ_ID: '1042', VENDOR_ID: '57', INVOICE_DATE: '2026-03-09T00:00:00', NOTES: 'Panel upgrade', ITEMS: [{ NAME: '200A panel', RATE: '3480.00' }] }]);
    const line3 = r.report.find((l) => l.line === '3')!;
    expect(line3).toMatchObject({ status: 'invalid', record: 'bill QB-3004 / project 1042 / vendor 56' });
    expect(line3.message).toContain('the bill_ref is empty under bill "QB-3004" on line 2');
    expect(line3.message).toContain('--fill-down bill_ref');
    expect(r.report.find((l) => l.line === '2')).toMatchObject({ status: 'invalid', message: 'not sent: line 3 of this bill is invalid' });
    // The split line's amount still counts toward its bill's total: the totals check.
    expect(r.ignored.map(([line]) => line)).toEqual(['4', '6', '7']);
  });

  it('a total that does not check: a row error naming both sums, and its bill is not sent', async () => {
    const r = await dryRun('bills', file('qb.csv', qbReport('"1,345.00"')), ...qbArgs(...QB_FILL));
    expect(r.code, r.stderr).toBe(1);
    expect(r.payloads).toHaveLength(1);
    expect(r.report.find((l) => l.line === '4')).toMatchObject({
      status: 'invalid',
      record: 'bill QB-3004 / project 1042 / vendor 56',
      message: 'total row "Total for QB-3004" says 1345.00 but the lines it closes (bill "QB-3004") add up to 1335.00; not sent: correct the amounts, or the total',
    });
    expect(r.report.filter((l) => l.line === '2' || l.line === '3').map((l) => l.status)).toEqual(['invalid', 'invalid']);
  });

  it('a total over a line whose amount cannot be read is not checked, and says so instead of naming a partial sum', async () => {
    const r = await dryRun('bills', file('qb.csv', qbReport().replace(',,,,Delivery,85.00,', ',,,,Delivery,eighty-five,')), ...qbArgs(...QB_FILL));
    expect(r.code, r.stderr).toBe(1);
    expect(r.payloads).toHaveLength(1);
    expect(r.report.find((l) => l.line === '3')).toMatchObject({ status: 'invalid' });
    expect(r.report.find((l) => l.line === '4')).toMatchObject({
      status: 'invalid',
      message: 'total row "Total for QB-3004" says 1335.00; not checked, since line 3 of the lines it closes (bill "QB-3004") cannot be read: correct it and run again',
    });
    expect(r.report.map((l) => l.message).join('\n')).not.toContain('add up to');
  });

  it('a streamed plan keeps a bill open until its total, and the errors file writes the filled-down keys', async () => {
    const path = file('qb.csv', qbReport('"1,345.00"'));
    const records: MappedRecord[] = [];
    const statics: StaticLine[] = [];
    const mapping = { columns: JSON.parse(QB_MAPPING).columns as Record<string, string>, ignore: [], constants: {}, dateFormat: 'MDY' as const };
    await streamBills(path, { mapping, vendorsFile: join(SAMPLES, 'vendors.csv'), fillDown: ['bill_ref', 'vendor', 'invoice_date', 'notes', 'project_id'] }, {
      async add(r, st) {
        records.push(...r);
        statics.push(...st);
      },
    });
    expect(records.map((r) => r.label)).toEqual(['bill QB-3005 / project 1042 / vendor 57']);
    expect(statics.filter((l) => l.status === 'invalid').map((l) => l.line).sort()).toEqual([2, 3, 4]);
    expect(statics.filter((l) => l.status === 'ignored').map((l) => [l.line, l.reason])).toEqual([[6, 'total'], [7, 'total']]);

    const r = await dryRun('bills', path, ...qbArgs(...QB_FILL));
    expect(r.code).toBe(1);
    const errors = readFileSync(`${path}.errors.csv`, 'utf8').replace(/^\uFEFF/, '').trim().split('\n');
    expect(errors[2]).toMatch(/^QB-3004,Summit Lumber & Millwork,2026-03-02,Framing package,Delivery,85.00,1042,3,/);
  });

  it('an Excel invoice whose "Invoice total" line is a SUM formula: ignored, not a fourth line', async () => {
    const path = join(dir, `${++seq}-invoice.xlsx`);
    const s = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(text)}</t></is></c>`;
    const n = (ref: string, v: number) => `<c r="${ref}"><v>${v}</v></c>`;
    const line = (r: number, item: string, rate: number) => `<row r="${r}">${s(`A${r}`, 'INV-7')}${n(`B${r}`, 1042)}${n(`C${r}`, 55)}${s(`D${r}`, item)}${n(`E${r}`, rate)}</row>`;
    writeExcelXlsx(path, {
      sheets: [{
        name: 'Invoice',
        rows: `<row r="1">${['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate'].map((h, i) => s(`${'ABCDE'[i]}1`, h)).join('')}</row>` +
          line(2, 'Slab pour', 1200) + line(3, 'Pump truck', 480) +
          `<row r="4">${s('D4', 'Invoice total')}<c r="E4"><f>SUM(E2:E3)</f><v>1680</v></c></row>`,
      }],
    });
    const r = await dryRun('bills', path);
    expect(r.code, r.stderr).toBe(0);
    expect(r.payloads).toEqual([{ PRJ_ID: '1042', VENDOR_ID: '55', ITEMS: [{ NAME: 'Slab pour', RATE: '1200.00' }, { NAME: 'Pump truck', RATE: '480.00' }] }]);
    expect(r.ignored).toEqual([['4', 'total row: "Invoice total", its amounts SUM formulas over the rows above']]);
  });

  it('the same invoice as LibreOffice writes it', async () => {
    const path = join(dir, `${++seq}-invoice-lo.xlsx`);
    writeFileSync(path, readFileSync(join(WORKBOOKS, 'invoice-sum-total.xlsx')));
    const r = await runCli(['import', 'bills', path, '--dry-run', '--json'], ENV, { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(onlyJson(r.stdout)).toMatchObject({ records: 1, ignored: { total: 1 } });
    const plain = await dryRun('bills', path);
    expect(plain.payloads).toEqual([{ PRJ_ID: '1042', VENDOR_ID: '55', ITEMS: [{ NAME: 'Ready-mix 4000 psi', RATE: '1250.00' }, { NAME: 'Pump truck', RATE: '480.00' }, { NAME: 'Short-load fee', RATE: '85.00' }] }]);
  });
});

/** An estimator's sheet in sections: headings, items, subtotals, a grand total. */
const SECTIONED = [
  'project_id,estimate_name,item,unit,qty,unit_cost',
  ',,02 - Demolition,,,',
  '1042,Kitchen remodel,Remove cabinets,ea,4,50',
  '1042,Kitchen remodel,Haul debris,load,2,125',
  ',,Subtotal Demolition,,,450',
  ',,03 - Roofing,,,',
  ',,03.10 - Shingles,,,',
  '1042,Kitchen remodel,Asphalt shingles,sq,10,95',
  ',,Subtotal Roofing,,,950',
  ',,GRAND TOTAL,,,1400',
  '',
].join('\n');
const SECTIONED_PAYLOAD = {
  NAME: 'Kitchen remodel', PROJECT_ID: 1042,
  CATS: [
    { NAME: '02 - Demolition', SUBCATS: [{ NAME: '02 - Demolition', ITEMS: [{ NAME: 'Remove cabinets', UNIT: 'ea', QTY: 4, UNIT_COST: 50 }, { NAME: 'Haul debris', UNIT: 'load', QTY: 2, UNIT_COST: 125 }] }] },
    { NAME: '03 - Roofing', SUBCATS: [{ NAME: '03.10 - Shingles', ITEMS: [{ NAME: 'Asphalt shingles', UNIT: 'sq', QTY: 10, UNIT_COST: 95 }] }] },
  ],
};

describe('estimates: sections and subtotals', () => {
  it('without --layout sections the file stops before anything is sent, saying how to read it', async () => {
    const r = await dryRun('estimates', file('sections.csv', SECTIONED));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"02 - Demolition" looks like a section heading, and line 3 holds an item without a category');
    expect(r.stderr).toContain('--layout sections');
    expect(r.payloads).toEqual([]);
  });

  it('with --layout sections: headings are the categories, the subtotals and grand total are checked and ignored', async () => {
    const r = await dryRun('estimates', file('sections.csv', SECTIONED), '--layout', 'sections');
    expect(r.code, r.stderr).toBe(0);
    expect(r.payloads).toEqual([SECTIONED_PAYLOAD]);
    expect(r.report.filter((l) => l.status === 'ignored').map((l) => [l.line, l.message])).toEqual([
      ['2', 'section heading: category "02 - Demolition" of the rows under it'],
      ['5', 'total row: "Subtotal Demolition", 450.00 = the sum of category "02 - Demolition"'],
      ['6', 'section heading: category "03 - Roofing" of the rows under it'],
      ['7', 'section heading: subcategory "03.10 - Shingles" of the rows under it'],
      ['9', 'total row: "Subtotal Roofing", 950.00 = the sum of category "03 - Roofing"'],
      ['10', 'total row: "GRAND TOTAL", 1400.00 = the sum of project 1042 / Kitchen remodel'],
    ]);
    expect(r.stderr).toContain('6 rows ignored: total 3, heading 3');
  });

  it('a subtotal that does not check stops the estimate; a heading with no items is a row error', async () => {
    const wrong = await dryRun('estimates', file('sections.csv', SECTIONED.replace(',,,450', ',,,500')), '--layout', 'sections');
    expect(wrong.code).toBe(1);
    expect(wrong.payloads).toEqual([]);
    expect(wrong.report.find((l) => l.line === '5')?.message).toBe('total row "Subtotal Demolition" says 500.00 but the lines it closes (category "02 - Demolition") add up to 450.00; not sent: correct the amounts, or the total');

    const empty = await dryRun('estimates', file('sections.csv', SECTIONED.replace(',,03 - Roofing,,,', ',,04 - Electrical,,,\n,,05 - Roofing,,,').replace('03.10', '05.10')), '--layout', 'sections');
    expect(empty.code).toBe(1);
    expect(empty.payloads).toEqual([]);
    expect(empty.report.find((l) => l.line === '6')).toMatchObject({ status: 'invalid', record: 'project 1042 / Kitchen remodel' });
    expect(empty.report.find((l) => l.line === '6')?.message).toContain('section heading "04 - Electrical" has no item row under it before the next heading');
  });

  it('the errors file writes the section categories, so that it imports on its own', async () => {
    const path = file('sections.csv', SECTIONED.replace('Haul debris,load,2,125', 'Haul debris,load,two,125').replace(',,,450', ',,,200'));
    const r = await dryRun('estimates', path, '--layout', 'sections');
    expect(r.code).toBe(1);
    const errors = readFileSync(`${path}.errors.csv`, 'utf8').replace(/^\uFEFF/, '').trim().split('\n');
    expect(errors[0]).toBe('project_id,estimate_name,item,unit,qty,unit_cost,category,subcategory,source_line,error');
    expect(errors[1]).toMatch(/^1042,Kitchen remodel,Remove cabinets,ea,4,50,02 - Demolition,02 - Demolition,3,/);
    expect(errors[2]).toMatch(/^1042,Kitchen remodel,Haul debris,load,two,125,02 - Demolition,02 - Demolition,4,/);
  });

  it('an .xlsx estimate whose subtotals and grand total are SUM formulas', async () => {
    const path = join(dir, `${++seq}-sections.xlsx`);
    const s = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(text)}</t></is></c>`;
    const n = (ref: string, v: number) => `<c r="${ref}"><v>${v}</v></c>`;
    const f = (ref: string, formula: string, v: number) => `<c r="${ref}"><f>${formula}</f><v>${v}</v></c>`;
    const item = (r: number, name: string, qty: number, cost: number) => `<row r="${r}">${n(`A${r}`, 1042)}${s(`B${r}`, 'Kitchen remodel')}${s(`C${r}`, name)}${n(`D${r}`, qty)}${n(`E${r}`, cost)}${f(`F${r}`, `D${r}*E${r}`, qty * cost)}</row>`;
    writeExcelXlsx(path, {
      sheets: [{
        name: 'Estimate',
        rows: `<row r="1">${['project_id', 'estimate_name', 'item', 'qty', 'unit_cost', 'Amount'].map((h, i) => s(`${'ABCDEF'[i]}1`, h)).join('')}</row>` +
          `<row r="2">${s('C2', '02 - Demolition')}</row>` + item(3, 'Remove cabinets', 4, 50) + item(4, 'Haul debris', 2, 125) +
          `<row r="5">${s('C5', 'Subtotal Demolition')}${f('F5', 'SUM(F3:F4)', 450)}</row>` +
          `<row r="6">${s('C6', '03 - Roofing')}</row>` + item(7, 'Asphalt shingles', 10, 95) +
          `<row r="8">${s('C8', 'Subtotal Roofing')}${f('F8', 'SUBTOTAL(9,F7:F7)', 950)}</row>` +
          `<row r="9">${s('C9', 'GRAND TOTAL')}${f('F9', 'SUM(F5,F8)', 1400)}</row>`,
      }],
    });
    const map = file('map.json', JSON.stringify({ ignore: ['Amount'], layout: 'sections' }));
    const r = await dryRun('estimates', path, '--mapping', map);
    expect(r.code, r.stderr).toBe(0);
    expect(r.payloads).toEqual([{
      NAME: 'Kitchen remodel', PROJECT_ID: 1042,
      CATS: [
        { NAME: '02 - Demolition', SUBCATS: [{ NAME: '02 - Demolition', ITEMS: [{ NAME: 'Remove cabinets', QTY: 4, UNIT_COST: 50 }, { NAME: 'Haul debris', QTY: 2, UNIT_COST: 125 }] }] },
        { NAME: '03 - Roofing', SUBCATS: [{ NAME: '03 - Roofing', ITEMS: [{ NAME: 'Asphalt shingles', QTY: 10, UNIT_COST: 95 }] }] },
      ],
    }]);
    expect(r.ignored.map(([line, message]) => [line, message!.split(':')[0]])).toEqual([
      ['2', 'section heading'], ['5', 'total row'], ['6', 'section heading'], ['8', 'total row'], ['9', 'total row'],
    ]);
  });

  it('a category written bare after its numbered form adds to the numbered one, whose sum its subtotal checks', async () => {
    const path = file('numbered-and-bare.csv', [
      'project_id,estimate_name,category,subcategory,item,qty,unit_cost',
      '1,Kitchen,Demolition,Labor,Tear out,2,10',
      '1,Kitchen,02 - Demolition,Labor,Haul,1,5',
      '1,Kitchen,Demolition,Labor,Sweep,3,2.5',
      '1,Kitchen,Subtotal Demolition,,,,12.5',
      '',
    ].join('\n'));
    const plan = await planEstimates(path, {});
    expect(plan.records.map((rec) => [rec.label, rec.lines])).toEqual([['project 1 / Kitchen', [2, 3, 4]]]);
    expect(plan.statics).toEqual([{ line: 5, record: '', status: 'ignored', reason: 'total', message: 'total row: "Subtotal Demolition", 12.50 = the sum of category "02 - Demolition"' }]);
  });

  it('--fill-down names columns the tool knows', async () => {
    const r = await runCli(['import', 'bills', file('qb.csv', qbReport()), '--dry-run', ...qbArgs('--fill-down', 'bill_no')], ENV, { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--fill-down bill_no: there is no bill column "bill_no"');
  });
});

/**
 * An estimator's sheet whose first heading has no item row under it: "Cabinets" is most likely an
 * unnumbered sub-heading of "Demolition", which the tool cannot know. Sent as read, the estimate
 * would hold "Cabinets" as a category, and the ledger would keep a re-run from fixing it.
 */
const KITCHEN = [
  'project_id,estimate_name,item,qty,unit_cost',
  '10039,Kitchen,Demolition,,',
  '10039,Kitchen,Cabinets,,',
  '10039,Kitchen,Remove base cabinets,12,45',
  '10039,Kitchen,Remove wall cabinets,8,40',
  '10039,Kitchen,Flooring,,',
  '10039,Kitchen,Tear out vinyl,200,1.5',
  '',
].join('\n');
const kitchenMessage = (path: string) =>
  `${path}:2: section heading "Demolition" has no item row under it before the next heading ("Cabinets" on line 3): if "Cabinets" is a sub-heading of it, number them (1 Demolition, 1.1 Cabinets: numbered sub-headings are read as subcategories) or give the subcategory column; else add its items or delete the heading`;
/** A second estimate, under headings that all have items. */
const bath = (project: number) => [`${project},Bath,Plumbing,,`, `${project},Bath,Remove tub,1,300`, ''].join('\n');

describe('estimates: a section heading with no item row under it', () => {
  let rig: E2eRig;
  beforeAll(async () => {
    rig = await startE2eRig();
  });
  afterAll(() => rig?.close());

  it('stops the estimate of the rows it was meant to head: nothing of it is planned, every row says why', async () => {
    const path = file('kitchen.csv', KITCHEN);
    const r = await dryRun('estimates', path, '--layout', 'sections');
    expect(r.code, r.stderr).toBe(1);
    expect(r.payloads).toEqual([]);
    expect(r.report.map((l) => [l.line, l.record, l.status, l.message])).toEqual([
      ['2', 'project 10039 / Kitchen', 'invalid', kitchenMessage(path)],
      ['3', '', 'ignored', 'section heading: category "Cabinets" of the rows under it'],
      ['4', 'project 10039 / Kitchen', 'invalid', 'not sent: line 2 of this estimate is invalid'],
      ['5', 'project 10039 / Kitchen', 'invalid', 'not sent: line 2 of this estimate is invalid'],
      ['6', '', 'ignored', 'section heading: category "Flooring" of the rows under it'],
      ['7', 'project 10039 / Kitchen', 'invalid', 'not sent: line 2 of this estimate is invalid'],
    ]);
    expect(r.stdout + r.stderr).toContain('0 estimates to send, 4 invalid rows');
  });

  it('imported for real: nothing of that estimate goes through the queue, the other estimate of the file is created', async () => {
    const free = freeProjectIds(rig.sandbox);
    expect(free, 'project 10039 holds no estimate in a fresh sandbox').toContain(10039);
    const other = free.find((id) => id !== 10039)!;
    const path = rig.file('kitchen-and-bath.csv', KITCHEN + bath(other));
    const r = await runCli(['import', 'estimates', path, '--layout', 'sections'], rig.env, { cwd: rig.dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/1 records?: created 1, .*invalid rows 4/);
    expect(rig.sandbox.estimates().map((e) => [e.projectId, e.payload])).toEqual([
      [other, { NAME: 'Bath', PROJECT_ID: other, CATS: [{ NAME: 'Plumbing', SUBCATS: [{ NAME: 'Plumbing', ITEMS: [{ NAME: 'Remove tub', QTY: 1, UNIT_COST: 300 }] }] }] }],
    ]);
    const report = parseReport(readFileSync(`${path}.report.csv`, 'utf8'));
    expect(report.filter((l) => l.record === 'project 10039 / Kitchen').map((l) => [l.line, l.status])).toEqual([['2', 'invalid'], ['4', 'invalid'], ['5', 'invalid'], ['7', 'invalid']]);
    expect(report.filter((l) => l.line === '8' || l.line === '9').map((l) => l.status)).toEqual(['ignored', 'created']);

    // Through the queue as the import page and the service submit it (the whole plan at once): the same.
    const again = await rig.importFile('estimates', rig.file('kitchen-again.csv', KITCHEN), { layout: 'sections' });
    expect(again.summary.counts).toMatchObject({ created: 0, exists: 0, failed: 0, unknown: 0, invalidRows: 4 });
    expect(rig.sandbox.estimates().map((e) => e.projectId)).toEqual([other]);
  });

  it('a streamed plan stops it too when its only item row ends a batch of the reader', async () => {
    // A filler estimate pads the file so that the first batch (the reader's first 256 KiB) ends
    // with the item row under "Cabinets", the last row naming its project (the reader holds back
    // a row until it sees the character after it: one more byte of the next row).
    const head = 'project_id,estimate_name,item,qty,unit_cost\n9001,Filler,Padding,,\n';
    const kitchen = '10039,Kitchen,Demolition,,\n10039,Kitchen,Cabinets,,\n10039,Kitchen,Remove base cabinets,12,45\n';
    let filler = '';
    for (let i = 0; head.length + filler.length + kitchen.length + 200 < 256 * 1024; i++) filler += `9001,Filler,Item ${String(i).padStart(5, '0')} ${'x'.repeat(100)},1,1\n`;
    const gap = 256 * 1024 - 1 - head.length - filler.length - kitchen.length;
    filler += `9001,Filler,Last item ${'y'.repeat(gap - '9001,Filler,Last item ,1,1\n'.length)},1,1\n`;
    const path = file('streamed.csv', head + filler + kitchen + bath(9002));
    const kitchenItem = (head + filler + kitchen).split('\n').length - 1;

    const table = await openTable(path, {});
    const first = (await table.batches()[Symbol.asyncIterator]().next()).value!;
    expect(first.at(-1)!.line, 'the first batch ends with the Kitchen item row').toBe(kitchenItem);

    const handed: string[] = [];
    const invalid: number[] = [];
    await streamEstimates(path, { layout: 'sections' }, {
      async add(records, statics) {
        handed.push(...records.map((rec) => rec.label));
        invalid.push(...statics.filter((l) => l.status === 'invalid').map((l) => l.line));
      },
    });
    expect(handed.sort()).toEqual(['project 9001 / Filler', 'project 9002 / Bath']);
    expect(invalid.sort((a, b) => a - b)).toEqual([kitchenItem - 2, kitchenItem]);
    const planned = await planEstimates(path, { layout: 'sections' });
    expect(planned.records.map((rec) => rec.label).sort()).toEqual(handed);
  });

  it('inside an estimate, between two headings: one invalid row, and the whole estimate is not sent', async () => {
    const path = file('inside.csv', KITCHEN.replace('10039,Kitchen,Flooring,,', '10039,Kitchen,Electrical,,\n10039,Kitchen,Flooring,,') + bath(1042));
    const r = await dryRun('estimates', path, '--layout', 'sections');
    expect(r.code, r.stderr).toBe(1);
    expect(r.payloads).toEqual([{ NAME: 'Bath', PROJECT_ID: 1042, CATS: [{ NAME: 'Plumbing', SUBCATS: [{ NAME: 'Plumbing', ITEMS: [{ NAME: 'Remove tub', QTY: 1, UNIT_COST: 300 }] }] }] }]);
    expect(r.report.filter((l) => l.line === '6')).toEqual([expect.objectContaining({ status: 'invalid', record: 'project 10039 / Kitchen' })]);
    expect(r.report.find((l) => l.line === '6')!.message).toContain('section heading "Electrical" has no item row under it before the next heading ("Flooring" on line 7)');
    expect(r.report.find((l) => l.line === '8')).toMatchObject({ status: 'invalid', message: 'not sent: lines 2, 6 of this estimate are invalid' });
  });

  it('numbered headings: the message numbers the sub-heading under the empty one; the last heading of the file says so', async () => {
    const numbered = KITCHEN.replace('Demolition,,', '02 - Demolition,,').replace('Cabinets,,', '03 - Cabinets,,');
    const path = file('numbered.csv', `${numbered}10039,Kitchen,Painting,,\n`);
    const r = await dryRun('estimates', path, '--layout', 'sections');
    expect(r.code).toBe(1);
    expect(r.payloads).toEqual([]);
    expect(r.report.find((l) => l.line === '2')!.message).toContain('number them (02 - Demolition, 02.1 - Cabinets: numbered sub-headings are read as subcategories)');
    expect(r.report.find((l) => l.line === '8')).toMatchObject({
      status: 'invalid',
      record: 'project 10039 / Kitchen',
      message: `${path}:8: section heading "Painting" has no item row under it before the end of the file; add its items or delete the heading`,
    });
  });
});

describe('estimates: a heading\'s estimate keys are compared as every key is (values/key-text.ts)', () => {
  it('an empty last heading whose estimate_name differs only by ß/ss and full-width letters stops that estimate', async () => {
    // "Straße" and "STRASSE" are one estimate everywhere; the heading names it "ＳＴＲＡＳＳＥ" (full-width, as pasted from a PDF).
    const path = file('strasse.csv', [
      'project_id,estimate_name,item,qty,unit_cost',
      '10039,Straße,Demolition,,',
      '10039,Straße,Remove curb,12,45',
      '10039,STRASSE,Haul debris,2,125',
      '10039,ＳＴＲＡＳＳＥ,Painting,,',
      '',
    ].join('\n'));
    const r = await dryRun('estimates', path, '--layout', 'sections');
    expect(r.code, r.stderr).toBe(1);
    expect(r.payloads).toEqual([]);
    expect(r.report.map((l) => [l.line, l.record, l.status])).toEqual([
      ['2', '', 'ignored'],
      ['3', 'project 10039 / Straße', 'invalid'],
      ['4', 'project 10039 / Straße', 'invalid'],
      ['5', 'project 10039 / Straße', 'invalid'],
    ]);
    expect(r.report.find((l) => l.line === '5')!.message).toBe(`${path}:5: section heading "Painting" has no item row under it before the end of the file; add its items or delete the heading`);
  });
});
