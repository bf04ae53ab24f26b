/**
 * The import page's check as a person reads it (README, "The import page"): each bill by its ref,
 * project (as the account's listing names it), vendor, lines and total; each estimate by its
 * project, name, categories, items and total, summed as exact decimals; records the ledger already
 * has marked `created` and counted apart (a second check of a sent file has nothing to send); each
 * invalid row with the header of its bad cell, from the row error itself.
 * Real dashboard, worker, sandbox and Redis (a prefix of its own); HTTP requests as the page's script makes them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { choices, pageClient, waitFor } from './helpers/page-client.ts';
import { STYLE, writeExcelXlsx, xmlEscape } from './helpers/excel-xml.ts';

/** The project as the page names it: its number and name in the account's listing. */
function listed(rig: ImportPageRig, id: number | undefined): string {
  const p = rig.sandbox.project(id!)!;
  return [String(p.PROJECT_NUMBER ?? '').trim(), String(p.NAME ?? '').trim()].filter((s) => s !== '').join(' · ') || String(id);
}

describe('the import page\'s check, as a person reads it', () => {
  let rig: ImportPageRig;
  let work: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'bs-check-summary-'));
    rig = await startImportPageRig({ limits: 'none', browser: false });
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('sums each bill exactly, names its project as the listing does, and marks the bad cell by its header', async () => {
    const [p1, p2] = importableProjects(rig.sandbox);
    const headers = ['bill_ref', 'project_id', 'vendor_id', 'item_name', 'Unit Price', 'qty'];
    const csv = [
      headers.join(','),
      `INV-1,${p1},55,Framing lumber,"125,000.00",5`,
      `INV-1,${p1},55,Delivery,"5,370.00",`,
      `INV-2,${p2},56,Screws,0.10,3`,
      `INV-2,${p2},56,Nails,0.20,3`,
      `INV-3,${p2},56,Gravel,twelve,1`,
      `INV-3,${p2},56,Sand,10.00,1`,
    ].join('\n') + '\n';
    const client = pageClient(rig.dashboard.url);
    const up = await client.upload('summary.csv', csv);
    expect(up.status, up.text).toBe(200);
    const check = await client.check(up.json.upload, { ...choices(headers), 'Unit Price': 'rate' });
    expect(check.status, check.text).toBe(200);
    const c = check.json;
    expect(c.editable).toBe(true);
    expect(c.records.map((r: { key: string; label: string; lines: number[]; status: string; bill: unknown }) => ({ label: r.label, lines: r.lines, status: r.status, bill: r.bill }))).toEqual([
      { label: `bill INV-1 / project ${p1} / vendor 55`, lines: [2, 3], status: 'new', bill: { ref: 'INV-1', project: listed(rig, p1), vendor: '55', lines: 2, total: '630,370.00' } },
      // 0.10 × 3 + 0.20 × 3 in binary floating point is 0.9000000000000001; in decimals, 0.90.
      { label: `bill INV-2 / project ${p2} / vendor 56`, lines: [4, 5], status: 'new', bill: { ref: 'INV-2', project: listed(rig, p2), vendor: '56', lines: 2, total: '0.90' } },
    ]);
    expect(c.records[0].key).toBe(`bill:ref:INV-1|${p1}|55`);
    expect(c.recordCount).toBe(2);
    expect(c.alreadyCreated).toBe(0);
    // The bad cell is named by the row error itself; the other row of its bill names no cell.
    expect(c.invalid).toEqual([
      { line: 6, record: `bill INV-3 / project ${p2} / vendor 56`, column: 'Unit Price', message: expect.stringMatching(/^summary\.csv:6 column Unit Price: .*"twelve"/) },
      { line: 7, record: `bill INV-3 / project ${p2} / vendor 56`, column: null, message: 'not sent: line 6 of this bill is invalid' },
    ]);
    expect(c.budget.text).toMatch(/^2 requests, /);
  }, 60_000);

  it('a row with several bad cells: each error beside its own cell; the report keeps them as one message', async () => {
    const [p1] = importableProjects(rig.sandbox);
    const headers = ['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate', 'qty', 'invoice_date'];
    const csv = [headers.join(','), `MC-1,${p1},55,Gravel,twelve,three,2026-02-30`, `MC-2,${p1},55,Sand,40.00,1,2026-03-02`].join('\n') + '\n';
    const client = pageClient(rig.dashboard.url);
    const up = await client.upload('several.csv', csv);
    expect(up.status, up.text).toBe(200);
    const check = await client.check(up.json.upload, choices(headers));
    expect(check.status, check.text).toBe(200);
    const bad = check.json.invalid as Array<{ line: number; column: string | null; message: string }>;
    expect(bad.map((x) => `${x.line} ${x.column}`).sort()).toEqual(['2 invoice_date', '2 qty', '2 rate']);
    for (const x of bad) expect(x.message).toMatch(new RegExp(`^several\\.csv:2 column ${x.column}: `));
    expect(bad.every((x) => !x.message.includes('; several.csv'))).toBe(true);
    expect(check.json.recordCount).toBe(1);
  }, 60_000);

  it('a row whose message names a header it is not about is marked by the header its error names', async () => {
    const [p1] = importableProjects(rig.sandbox);
    // The vendor_id error quotes the cell ("x-rate"), which holds the name of a header to its left:
    // the page once took the first header its message mentions for the bad cell.
    const headers = ['bill_ref', 'project_id', 'item_name', 'rate', 'vendor_id'];
    const csv = `${headers.join(',')}\nR-1,${p1},Gravel,10.00,x-rate\n`;
    const client = pageClient(rig.dashboard.url);
    const up = await client.upload('named.csv', csv);
    const check = await client.check(up.json.upload, choices(headers));
    expect(check.status, check.text).toBe(200);
    expect(check.json.invalid).toEqual([{ line: 2, record: expect.any(String), column: 'vendor_id', message: expect.stringMatching(/^named\.csv:2 column vendor_id: .*x-rate/) }]);
  }, 60_000);

  it('a file sent once: checked again, every bill is already created, nothing to send', async () => {
    const [p1, p2] = importableProjects(rig.sandbox);
    const headers = ['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate', 'qty'];
    const csv = [headers.join(','), `AGAIN-1,${p1},55,Gravel,100.00,2`, `AGAIN-2,${p2},55,Sand,12.50,4`, `,${p2},55,Rebar,30.00,1`].join('\n') + '\n';
    const client = pageClient(rig.dashboard.url);
    const first = await client.upload('again.csv', csv);
    const before = await client.check(first.json.upload, choices(headers));
    expect(before.status, before.text).toBe(200);
    expect(before.json.records.map((r: { status: string }) => r.status)).toEqual(['new', 'new', 'new']);
    expect(before.json.recordCount).toBe(3);
    const sent = await client.send(first.json.upload);
    expect(sent.status, sent.text).toBe(200);
    const id = sent.json.importId as string;
    await waitFor('the import is done', async () => (await client.call(`/import/status.json?id=${id}`)).json?.done === true, 30_000);
    expect((await client.call(`/import/status.json?id=${id}`)).json.counts.created).toBe(3);

    // The same file, uploaded again: the ledger has every bill (the one without a bill_ref by its content).
    const second = await client.upload('again.csv', csv);
    const after = await client.check(second.json.upload, choices(headers));
    expect(after.status, after.text).toBe(200);
    expect(after.json.records.map((r: { status: string }) => r.status)).toEqual(['created', 'created', 'created']);
    expect(after.json.recordCount).toBe(0);
    expect(after.json.alreadyCreated).toBe(3);
    expect(after.json.budget.text).toBe('Nothing to send.');
    // A bill added to the file since is the one to send.
    const third = await client.upload('again.csv', `${csv}AGAIN-3,${p1},55,Cement,7.25,2\n`);
    const added = await client.check(third.json.upload, choices(headers));
    expect(added.json.records.map((r: { status: string }) => r.status)).toEqual(['created', 'created', 'created', 'new']);
    expect(added.json.recordCount).toBe(1);
    expect(added.json.alreadyCreated).toBe(3);
    expect(added.json.budget.text).toMatch(/^1 request, /);
  }, 90_000);

  it('an estimator\'s .xlsx: the estimate\'s total is the one its SUM row shows, and the SUM row is ignored as a total', async () => {
    const [, , p3] = importableProjects(rig.sandbox);
    const s = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(text)}</t></is></c>`;
    const n = (ref: string, v: number, style: number = STYLE.general) => `<c r="${ref}"${style ? ` s="${style}"` : ''}><v>${v}</v></c>`;
    const items: Array<[string, string, string, number, number]> = [
      ['Structure', 'Framing', 'Joists', 5, 125000],
      ['Structure', 'Framing', 'Blocking', 12.5, 48.2],
      ['Finishes', 'Paint', 'Primer', 3, 0.1],
      ['Finishes', 'Paint', 'Topcoat', 10, 476.72],
    ];
    const header = ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost', 'Amount'];
    const cols = 'ABCDEFGH';
    let rows = `<row r="1">${s('A1', 'Kitchen remodel: estimate')}</row>`;
    rows += `<row r="3">${header.map((h, i) => s(`${cols[i]}3`, h)).join('')}</row>`;
    // What Excel saves as each formula's result: the binary product, 15 significant digits.
    let total = 0;
    items.forEach(([cat, sub, item, qty, cost], k) => {
      const r = 4 + k;
      const amount = Number((qty * cost).toPrecision(15));
      total += amount;
      rows += `<row r="${r}">${n(`A${r}`, p3!)}${s(`B${r}`, 'Kitchen remodel')}${s(`C${r}`, cat)}${s(`D${r}`, sub)}${s(`E${r}`, item)}${n(`F${r}`, qty)}${n(`G${r}`, cost, STYLE.decimal)}` +
        `<c r="H${r}" s="${STYLE.decimal}"><f>F${r}*G${r}</f><v>${amount}</v></c></row>`;
    });
    const sumRow = 4 + items.length;
    const saved = Number(total.toPrecision(15));
    rows += `<row r="${sumRow}">${s(`E${sumRow}`, 'Total')}<c r="H${sumRow}" s="${STYLE.decimal}"><f>SUM(H4:H${sumRow - 1})</f><v>${saved}</v></c></row>`;
    const file = join(work, 'estimate.xlsx');
    writeExcelXlsx(file, { sheets: [{ name: 'Estimate', rows }], deflate: true });
    // As the sheet shows its total (#,##0.00).
    const shown = saved.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    expect(shown).toBe('630,370.00');

    const client = pageClient(rig.dashboard.url);
    const up = await client.call('/import/upload?kind=estimates&sheet=', { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': 'estimate.xlsx' }, body: readFileSync(file) });
    expect(up.status, up.text).toBe(200);
    const check = await client.check(up.json.upload, { ...choices(header.slice(0, 7)), Amount: 'ignore' }, { kind: 'estimates' });
    expect(check.status, check.text).toBe(200);
    const c = check.json;
    expect(c.invalid).toEqual([]);
    expect(c.records).toHaveLength(1);
    expect(c.records[0]).toMatchObject({ key: `estimate:project:${p3}`, label: `project ${p3} / Kitchen remodel`, lines: [4, 5, 6, 7], status: 'new' });
    expect(c.records[0].estimate).toEqual({ project: listed(rig, p3), name: 'Kitchen remodel', categories: 2, items: 4, total: shown });
    expect(c.ignored.lines).toEqual([
      { line: 1, reason: 'title', message: expect.any(String) },
      { line: sumRow, reason: 'total', message: expect.stringMatching(/^total row: "Total"/) },
    ]);
    expect(c.editable).toBe(true);
    expect(c.vendors).toEqual([]);
  }, 60_000);
});
