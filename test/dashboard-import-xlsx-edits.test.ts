/**
 * Cells of an .xlsx upload edited in place on the import page, as a CSV's are (README, "The import
 * page"): the edits are read over the workbook as it is, so the report's lines stay the sheet's
 * rows and every other cell (dates, numbers in their formats) reads exactly as before. Real
 * dashboard, worker, sandbox and Redis (a prefix of its own).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { choices, pageClient, waitFor } from './helpers/page-client.ts';
import { STYLE, writeExcelXlsx, xmlEscape } from './helpers/excel-xml.ts';

const HEADERS = ['bill_ref', 'project_id', 'vendor_id', 'invoice_date', 'item_name', 'qty', 'rate'];
const COLS = 'ABCDEFGH';
/** 2026-02-13 as an Excel serial day. */
const FEB_13 = 46066;

const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(text)}</t></is></c>`;
const num = (ref: string, v: number, style: number) => `<c r="${ref}" s="${style}"><v>${v}</v></c>`;

describe('the import page: a workbook\'s bad cell edited in place', () => {
  let rig: ImportPageRig;
  let work: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'bs-xlsx-edit-page-'));
    rig = await startImportPageRig({ limits: 'none', browser: false });
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('the edit is checked at the sheet\'s own line, the date and number beside it read as before, and the bill is sent as edited', async () => {
    const [p1] = importableProjects(rig.sandbox);
    const headers = HEADERS;
    // A title above the header row: the sheet's rows are not the lines a CSV copy would number.
    let rows = `<row r="1">${inline('A1', 'Bills to enter, February')}</row>`;
    rows += `<row r="3">${headers.map((h, i) => inline(`${COLS[i]}3`, h)).join('')}</row>`;
    rows += `<row r="4">${inline('A4', 'XE-1')}${num('B4', p1!, 0)}${num('C4', 55, 0)}${num('D4', FEB_13, STYLE.date)}${inline('E4', 'Gravel')}${num('F4', 1234.5, STYLE.decimal)}${num('G4', 2, STYLE.decimal)}</row>`;
    rows += `<row r="5">${inline('A5', 'XE-1')}${num('B5', p1!, 0)}${num('C5', 55, 0)}${num('D5', FEB_13, STYLE.date)}${inline('E5', 'Sand')}${num('F5', 2.5, STYLE.decimal)}${inline('G5', 'twelve')}</row>`;
    const file = join(work, 'bills.xlsx');
    writeExcelXlsx(file, { sheets: [{ name: 'February', rows }], deflate: true });

    const client = pageClient(rig.dashboard.url);
    const up = await client.call('/import/upload?kind=bills&sheet=', { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': 'bills.xlsx' }, body: readFileSync(file) });
    expect(up.status, up.text).toBe(200);
    const first = await client.check(up.json.upload, choices(headers));
    expect(first.status, first.text).toBe(200);
    expect(first.json.editable).toBe(true);
    expect(first.json.invalid.map((x: { line: number; column: string | null }) => [x.line, x.column])).toEqual([[4, null], [5, 'rate']]);

    const second = await client.check(up.json.upload, choices(headers), { edits: [{ line: 5, header: 'rate', value: '12.00' }] });
    expect(second.status, second.text).toBe(200);
    const c = second.json;
    expect(c.invalid).toEqual([]);
    expect(c.editable).toBe(true);
    // The sheet's own rows, the title still listed as such.
    expect(c.shown.map((r: { line: number }) => r.line)).toEqual([4, 5]);
    expect(c.ignored.lines.map((l: { line: number; reason: string }) => [l.line, l.reason])).toEqual([[1, 'title']]);
    expect(c.shown[1].cells).toEqual(['XE-1', String(p1), '55', '2026-02-13', 'Sand', '2.5', '12.00']);
    expect(c.records).toHaveLength(1);
    expect(c.records[0]).toMatchObject({ lines: [4, 5], bill: { ref: 'XE-1', lines: 2, total: '2,499.00' } });
    const info = JSON.parse(c.records[0].payload) as { INVOICE_DATE: string; ITEMS: Array<{ NAME: string; RATE: string; QTY: number }> };
    expect(info.INVOICE_DATE).toBe('2026-02-13T00:00:00');
    expect(info.ITEMS).toEqual([{ NAME: 'Gravel', RATE: '2.00', QTY: 1234.5 }, { NAME: 'Sand', RATE: '12.00', QTY: 2.5 }]);

    const sent = await client.send(up.json.upload);
    expect(sent.status, sent.text).toBe(200);
    const id = sent.json.importId as string;
    await waitFor('the import is done', async () => (await client.call(`/import/status.json?id=${id}`)).json?.done === true, 30_000);
    expect((await client.call(`/import/status.json?id=${id}`)).json.counts.created).toBe(1);
    const report = await client.call(`/import/report.csv?id=${id}`);
    expect(report.text.trim().split('\n').slice(1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual([
      '1,,ignored',
      `4,bill XE-1 / project ${p1} / vendor 55,created`,
      `5,bill XE-1 / project ${p1} / vendor 55,created`,
    ]);
    const bill = rig.sandbox.bills().map((b) => JSON.parse(b.info) as { INVOICE_DATE: string; ITEMS: Array<{ RATE: string }> }).find((b) => b.ITEMS.some((i) => i.RATE === '12.00'));
    expect(bill?.INVOICE_DATE).toBe('2026-02-13T00:00:00');
  }, 90_000);

  it('every sheet read (All sheets): lines are named Sheet!row, and an edit names its cell so', async () => {
    const [p1] = importableProjects(rig.sandbox);
    const headers = ['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate'];
    const sheet = (name: string, ref: string, rate: string) =>
      `<row r="1">${headers.map((h, i) => inline(`${COLS[i]}1`, h)).join('')}</row>` +
      `<row r="2">${inline('A2', `${name}-1`)}${num('B2', p1!, 0)}${num('C2', 55, 0)}${inline('D2', 'Gravel')}${num('E2', 10, 0)}</row>` +
      `<row r="3">${inline('A3', ref)}${num('B3', p1!, 0)}${num('C3', 55, 0)}${inline('D3', 'Sand')}${inline('E3', rate)}</row>`;
    const file = join(work, 'months.xlsx');
    writeExcelXlsx(file, { sheets: [{ name: 'Jan', rows: sheet('JAN', 'JAN-2', '4.00') }, { name: 'Feb', rows: sheet('FEB', 'FEB-2', 'five') }], deflate: true });
    const client = pageClient(rig.dashboard.url);
    const up = await client.call('/import/upload?kind=bills&sheet=', { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': 'months.xlsx' }, body: readFileSync(file) });
    expect(up.status, up.text).toBe(200);
    const first = await client.check(up.json.upload, choices(headers), { sheet: 'all' });
    expect(first.status, first.text).toBe(200);
    expect(first.json.invalid.map((x: { line: string; column: string | null }) => [x.line, x.column])).toEqual([['Feb!3', 'rate']]);
    expect(first.json.shown.map((r: { line: string }) => r.line)).toEqual(['Jan!2', 'Jan!3', 'Feb!2', 'Feb!3']);
    const second = await client.check(up.json.upload, choices(headers), { sheet: 'all', edits: [{ line: 'Feb!3', header: 'rate', value: '5.00' }] });
    expect(second.status, second.text).toBe(200);
    expect(second.json.invalid).toEqual([]);
    expect(second.json.records.map((r: { lines: string[]; bill: { ref: string; total: string } }) => [r.bill.ref, r.lines, r.bill.total])).toEqual([
      ['JAN-1', ['Jan!2'], '10.00'],
      ['JAN-2', ['Jan!3'], '4.00'],
      ['FEB-1', ['Feb!2'], '10.00'],
      ['FEB-2', ['Feb!3'], '5.00'],
    ]);
  }, 60_000);
});
