/**
 * The import page's reading over HTTP (README, The import page): `POST /import/upload` and
 * `/import/read` answer the Reading (a QuickBooks report shown by its real header row, its `Type`
 * read as the kind of each row, a re-read keeping the choices), `/import/mapping.json` gives the
 * CLI's mapping file, which the CLI reads the same way as the page's check, and the mapping of an
 * import sent from the page is preselected the next time a file with the same header row is read.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LastMappings } from '../src/import-service/index.ts';
import { parseMappingFile } from '../src/mapping/index.ts';
import { VendorStore } from '../src/vendors/vendor-store.ts';
import { runCli } from './helpers/cli.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { pageClient } from './helpers/page-client.ts';
import { REDIS_URL } from './helpers/redis.ts';

const QB_HEADER = 'Type,Date,Num,Vendor,Memo,Account,Amount,Customer';

/** A QuickBooks "Bill report" as QuickBooks writes it: title block, split lines with an empty Type, a vendor credit, the closing total, the footer. */
function qbReport(projectName: string, otherName: string, month = 'March'): string {
  const [project, other] = [projectName, otherName].map((n) => `"${n.replaceAll('"', '""')}"`);
  return [
    'ACME BUILDERS LLC',
    'Bill report',
    `"${month} 1 - ${month} 31, 2026"`,
    '',
    QB_HEADER,
    `Bill,03/02/2026,QB-3004-${month},Summit Lumber & Millwork,Framing package,Job Materials,"1,250.00",${project}`,
    ',,,,,Delivery,85.00,',
    `Vendor Credit,03/05/2026,VC-118-${month},Summit Lumber & Millwork,Returned studs,Job Materials,-150.00,${project}`,
    `Bill,03/09/2026,QB-3005-${month},Keystone Electric,Panel upgrade,Subcontractors,"3,480.00",${other}`,
    'TOTAL,,,,,,"4,665.00",',
    '',
    '"Cash Basis Tuesday, March 31, 2026 10:15 AM"',
  ].join('\n') + '\n';
}

type Reading = {
  upload: string; headerRow: number; headerFound: boolean; messages: string[]; lastMapping: { note: string } | null;
  layout: { chosen: string; detected: string | null; applied: string };
  columns: Array<{ header: string; column: string; role?: string; samples: string[] }>;
  fillDown: Array<{ column: string; checked: boolean }>;
  options: Record<string, unknown>;
};
const choicesOf = (r: Reading) => Object.fromEntries(r.columns.map((c) => [c.header, c.column]));

describe('the import page reads a file and matches its columns (README, The import page)', () => {
  let rig: ImportPageRig;
  let work: string;
  let client: ReturnType<typeof pageClient>;
  const seen: string[] = [];
  const upload = async (name: string, body: string, query = '&account=default'): Promise<Reading> => {
    const res = await client.call(`/import/upload?kind=bills${query}`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': name }, body });
    expect(res.status, res.text).toBe(200);
    return res.json as Reading;
  };
  /** Two projects' names, as a QuickBooks Customer column names them. */
  const projectNames = (): [string, string] => {
    const [a, b] = importableProjects(rig.sandbox);
    return [String(rig.sandbox.project(a!)!.NAME), String(rig.sandbox.project(b!)!.NAME)];
  };
  const post = async (path: string, body: unknown) => {
    const res = await client.post(path, body);
    expect(res.status, `${path}: ${res.text}`).toBe(200);
    return res.json;
  };

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none', browser: false, worker: false, accounts: { other: 'none' } });
    client = pageClient(rig.dashboard.url, seen);
    work = mkdtempSync(join(tmpdir(), 'bs-page-reading-http-'));
    await new VendorStore(rig.t.redis, rig.t.prefix).import('default', [{ vendor: 'Summit Lumber & Millwork', vendor_id: 55 }, { vendor: 'Keystone Electric', vendor_id: 56 }]);
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('a QuickBooks report: its real header row (line 5), QuickBooks detected, Type read as the kind of each row, Account never a rate', async () => {
    const [n1, n2] = projectNames();
    const r = await upload('bill-report.csv', qbReport(n1, n2));
    expect(r).toMatchObject({ name: 'bill-report.csv', table: 'csv', sheets: [], sheet: null, headerRow: 5, headerFound: true, hidden: null, lastMapping: null, vendors: [] });
    expect(r.layout).toEqual({ chosen: 'detect', detected: 'quickbooks', applied: 'quickbooks' });
    expect(r.columns.map((c) => c.header)).toEqual(QB_HEADER.split(','));
    expect(r.columns[0]).toMatchObject({ header: 'Type', column: 'ignore', role: 'kind' });
    expect(choicesOf(r)).toEqual({ Type: 'ignore', Date: 'invoice_date', Num: 'bill_ref', Vendor: 'vendor', Memo: 'notes', Account: 'ignore', Amount: 'rate', Customer: 'project_name' });
    expect(r.fillDown).toEqual(['bill_ref', 'vendor', 'project_name', 'invoice_date', 'notes'].map((column) => ({ column, checked: true })));
    expect(r.messages.join('\n')).toContain('Still to match: item_name');
    for (const m of r.messages) expect(m).not.toContain('--');

    // Xero's export is detected too, its Type and Status the kind and status of each row.
    const x = await upload('xero.csv', '*ContactName,*InvoiceNumber,*Description,*Quantity,*UnitAmount,Discount,Type,Status,project_id\nKeystone Electric,KE-1,Lights,12,85.00,,ACCPAY,AUTHORISED,1042\n');
    expect(x.layout).toEqual({ chosen: 'detect', detected: 'xero', applied: 'xero' });
    expect(x.columns.filter((c) => c.role).map((c) => `${c.header}:${c.role}:${c.column}`)).toEqual(['Type:kind:ignore', 'Status:status:ignore']);
  });

  it('POST /import/read: another header row keeps the options; back on the header row, the choices sent are kept', async () => {
    const [n1, n2] = projectNames();
    const first = await upload('reread.csv', qbReport(n1, n2));
    const state = { upload: first.upload, kind: 'bills', account: 'default', layout: 'detect', columns: { ...choicesOf(first), Account: 'item_name', Memo: 'ignore' }, dateFormat: 'MDY', credits: 'negative', discounts: false, ignoreTax: false, fillDown: ['bill_ref', 'vendor'] };
    const title = await post('/import/read', { ...state, headerRow: 2 }) as Reading;
    expect(title).toMatchObject({ upload: first.upload, headerRow: 2, headerFound: true, options: { dateFormat: 'MDY', credits: 'negative' } });
    expect(title.columns.map((c) => c.header)).toEqual(['Bill report']);
    const back = await post('/import/read', { ...state, headerRow: 5 }) as Reading;
    expect(back.headerRow).toBe(5);
    expect(choicesOf(back)).toEqual({ ...choicesOf(first), Account: 'item_name', Memo: 'ignore' });
    expect(back.columns[0]).toMatchObject({ role: 'kind' });
    expect(back.fillDown.filter((f) => f.checked).map((f) => f.column)).toEqual(['bill_ref', 'vendor']);
    expect(back.messages).toEqual([]);
    // Plain chosen: the same choices, no role, and Type still no bill_type.
    const plain = await post('/import/read', { ...state, layout: 'plain', columns: undefined }) as Reading;
    expect(plain.layout).toEqual({ chosen: 'plain', detected: 'quickbooks', applied: 'plain' });
    expect(plain.columns.find((c) => c.header === 'Type')).toEqual(expect.objectContaining({ column: 'ignore' }));
    expect(plain.columns.some((c) => c.role !== undefined)).toBe(false);
  });

  it('mapping.json reads the file in the CLI as the page\'s check reads it; sent, its mapping is preselected for the next file with this header row', async () => {
    const [n1, n2] = projectNames();
    const csv = qbReport(n1, n2, 'May');
    const first = await upload('may.csv', csv);
    const state = {
      upload: first.upload, kind: 'bills', account: 'default', layout: 'detect', sheet: '', hidden: 'stop',
      columns: { ...choicesOf(first), Account: 'item_name' }, dateFormat: 'MDY', decimalSeparator: 'auto', credits: 'ignore', discounts: false, ignoreTax: false,
      fillDown: first.fillDown.filter((f) => f.checked).map((f) => f.column),
    };

    // Every choice as its key, and a mapping file the CLI accepts.
    const mapping = await post('/import/mapping.json', state);
    expect(parseMappingFile(mapping, 'may-mapping.json')).toEqual(mapping);
    expect(mapping).toMatchObject({
      columns: { Date: 'invoice_date', Num: 'bill_ref', Memo: 'notes', Account: 'item_name', Amount: 'rate', Customer: 'project_name' },
      ignore: [], dateFormat: 'MDY', discounts: false, ignoreTax: false,
      kinds: { column: 'Type', bill: ['Bill'], credit: ['Vendor Credit', 'Credit Card Credit'] },
      fillDown: ['bill_ref', 'vendor', 'project_name', 'invoice_date', 'notes'],
    });

    const check = await post('/import/check', state);
    expect(check.invalid).toEqual([]);
    expect(check.records.map((r: { label: string; lines: number[] }) => [r.label, r.lines])).toEqual([
      [expect.stringContaining('QB-3004-May'), [6, 7]],
      [expect.stringContaining('QB-3005-May'), [9]],
    ]);
    expect(check.ignored.text).toBe('6 rows ignored: title 3, footer 1, total 1, credit 1');

    // The CLI, given that mapping: the same records on the same lines, the same lines ignored.
    const file = join(work, 'may.csv');
    const mapFile = join(work, 'may-mapping.json');
    const report = join(work, 'may.report.csv');
    writeFileSync(file, csv);
    writeFileSync(mapFile, JSON.stringify(mapping, null, 2));
    const cli = await runCli(['import', 'bills', file, '--mapping', mapFile, '--dry-run', '--report', report], { ...rig.env, REDIS_URL, BUILDSYNC_PREFIX: rig.t.prefix }, { cwd: work });
    expect(cli.code, cli.stderr).toBe(0);
    const lines = readFileSync(report, 'utf8').trim().split('\n').slice(1).map((l) => /^(\d+),("(?:[^"]|"")*"|[^,]*),(\w+),/.exec(l)!);
    const byLine = new Map(lines.map((m) => [Number(m[1]), { record: m[2]!.replace(/^"|"$/g, '').replaceAll('""', '"'), status: m[3] }]));
    for (const r of check.records as Array<{ label: string; lines: number[] }>) {
      for (const line of r.lines) expect(byLine.get(line)).toEqual({ record: r.label, status: 'skipped' });
    }
    expect([...byLine].filter(([, l]) => l.status === 'ignored').map(([line]) => line)).toEqual((check.ignored.lines as Array<{ line: number }>).map((l) => l.line).sort((a, b) => a - b));
    expect([...byLine].filter(([, l]) => l.status === 'invalid')).toEqual([]);

    // Sent: the mapping of the check is kept for (account, kind, header row), without a secret.
    const sent = await post('/import/send', { upload: first.upload, skipInvalid: false });
    expect(sent.importId).toMatch(/^import-/);
    const headers = QB_HEADER.split(',');
    const kept = new LastMappings(rig.t.redis, rig.t.prefix);
    expect(kept.key('default', 'bills', headers)).toMatch(new RegExp(`^${rig.t.prefix}:page:last-mapping:default:bills:[0-9a-f]{40}$`));
    expect((await kept.load('default', 'bills', headers))?.mapping).toEqual(mapping);
    const stored = (await rig.t.redis.get(kept.key('default', 'bills', headers)))!;
    for (const secret of [rig.env.BUILDSYNC_PASSWORD!, rig.env.BUILDSYNC_API_KEY!]) expect(stored).not.toContain(secret);

    // Next month's file, same header row: the sent choices preselected, and said so.
    const june = await upload('june.csv', qbReport(n2, n1, 'June'));
    expect(june.lastMapping?.note).toMatch(/^The mapping last used for default, bills and these headers is preselected \(sent \d{4}-\d\d-\d\d \d\d:\d\d UTC\)\.$/);
    expect(choicesOf(june)).toEqual(state.columns);
    expect(june.options).toMatchObject({ dateFormat: 'MDY' });
    expect(june.messages).toEqual([]);
    // Another account, or no account named: nothing preselected.
    expect((await upload('june.csv', csv, '&account=other')).lastMapping).toBeNull();
    expect((await upload('june.csv', csv, '')).lastMapping).toBeNull();

    // The downloaded mapping uploaded back: every key as the page's choices.
    const applied = await post('/import/mapping', { upload: june.upload, kind: 'bills', sheet: '', name: 'may-mapping.json', text: JSON.stringify(mapping) });
    expect(applied).toMatchObject({ layout: { chosen: 'quickbooks', applied: 'quickbooks' }, headerRow: null, hidden: 'stop', options: { dateFormat: 'MDY', credits: 'ignore', discounts: false, ignoreTax: false } });
    expect(applied.columns.find((c: { header: string }) => c.header === 'Type')).toMatchObject({ column: 'ignore', role: 'kind', fromMapping: true });
    expect(applied.columns.find((c: { header: string }) => c.header === 'Account')).toMatchObject({ column: 'item_name', fromMapping: true });
    expect(applied.fillDown.filter((f: { checked: boolean }) => f.checked).map((f: { column: string }) => f.column)).toEqual(['bill_ref', 'vendor', 'project_name', 'invoice_date', 'notes']);
    expect(seen.join('\n')).not.toMatch(/buildsync-uploads-/);
  }, 60_000);

  it('a cell edited in place in a file with a title block: the copy starts at the header row, the line kept', async () => {
    const [p1] = importableProjects(rig.sandbox);
    const csv = `Bills to enter\nACME BUILDERS LLC\n\nbill_ref,project_id,vendor_id,item_name,Unit Price\nED-1,${p1},55,Gravel,twelve\nED-2,${p1},55,Sand,40\n`;
    const r = await upload('edited.csv', csv);
    expect(r.headerRow).toBe(4);
    const state = { upload: r.upload, kind: 'bills', account: 'default', layout: 'detect', columns: choicesOf(r) };
    const bad = await post('/import/check', state);
    expect(bad.invalid.map((i: { line: number }) => i.line)).toEqual([5]);
    const fixed = await post('/import/check', { ...state, edits: [{ line: 5, header: 'Unit Price', value: '12.00' }] });
    expect(fixed.invalid).toEqual([]);
    expect(fixed.recordCount).toBe(2);
    expect(fixed.shown.map((x: { line: number; cells: string[] }) => [x.line, x.cells[4]])).toEqual([[5, '12.00'], [6, '40']]);
  });

  it('a Discount column left at Ignore with Apply discounts unchecked: the check marks the row, never sends the full price', async () => {
    const [p1] = importableProjects(rig.sandbox);
    const csv = `bill_ref,project_id,vendor_id,item_name,rate,qty,Discount\nDS-1,${p1},55,Ready-mix,100.00,2,10\nDS-2,${p1},55,Pump,480.00,1,\n`;
    const r = await upload('discount.csv', csv);
    expect(choicesOf(r)).toMatchObject({ Discount: 'ignore', rate: 'rate' });
    const state = { upload: r.upload, kind: 'bills', account: 'default', layout: 'detect', columns: choicesOf(r), discounts: false, ignoreTax: false };
    const unchecked = await post('/import/check', state);
    expect(unchecked.invalid.map((i: { line: number }) => i.line)).toEqual([2]);
    expect(unchecked.invalid[0].message).toMatch(/Discount "10": the service's bills hold no discount/);
    expect(unchecked.recordCount).toBe(1);
    const applied = await post('/import/check', { ...state, discounts: true });
    expect(applied.invalid).toEqual([]);
    expect(applied.recordCount).toBe(2);
    expect(JSON.stringify(applied.records)).toContain('90.00');
  });
});
