/**
 * The check-fix-check loop of the import page in Chromium, by accessible name (README, The import
 * page): a QuickBooks bill report (title block, a split line, a bill's total, a payment, a bad
 * amount, a grand total, a footer) read, its vendor IDs typed, checked twice, one cell fixed,
 * checked twice again, sent; every row the page shows, every ignored line it lists and every line
 * of the report (its bill, vendor and the service's ID, or what an ignored line holds) compared
 * with the file's physical lines. The test files give the file (.csv or .xlsx) as its program writes it.
 */
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { ImportPageRig } from './import-page-rig.ts';

export const KITCHEN = 'Elm Street Lofts Kitchen Remodel';
export const ROOF = 'Riverside Warehouse Roof Replacement';
export const VENDOR_IDS: Record<string, string> = {
  'Summit Lumber & Millwork': '56',
  'Keystone Electric': '57',
  'Northgate Glass': '58',
  'Blue River Plumbing': '59',
};

/** The report's cells, one array per physical line (line N is index N-1; '' for an empty cell). The amount of line 11 is mistyped (a letter O). */
export const REPORT_LINES: string[][] = [
  ['Bill Details'],
  ['ACME BUILDERS LLC'],
  ['March 1 - March 31, 2026'],
  [],
  ['Type', 'Bill No.', 'Vendor', 'Bill Date', 'Due Date', 'Memo', 'Account', 'Line Description', 'Line Amount', 'Customer'],
  ['Bill', 'FX-3004', 'Summit Lumber & Millwork', '03/02/2026', '04/01/2026', 'Framing package', 'Job Materials', '2x6 studs, 16ft', '1,250.00', KITCHEN],
  ['', '', '', '', '', '', 'Job Materials', 'Delivery', '85.00', ''],
  ['Total for FX-3004', '', '', '', '', '', '', '', '1,335.00', ''],
  ['Bill Payment (Check)', '4401', 'Keystone Electric', '03/20/2026', '', '', 'Checking', '', '-3,480.00', ''],
  ['Bill', 'FX-3005', 'Keystone Electric', '03/09/2026', '04/08/2026', 'Panel upgrade', 'Subcontractors', '200A panel and breakers', '3,480.00', ROOF],
  ['Bill', 'FX-3006', 'Northgate Glass', '03/12/2026', '04/11/2026', 'Storefront', 'Job Materials', 'Storefront glass', '2,1O0.00', KITCHEN],
  ['Bill', 'FX-3007', 'Blue River Plumbing', '03/15/2026', '04/14/2026', 'Rough-in', 'Subcontractors', 'Rough-in plumbing', '960.00', ROOF],
  ['TOTAL', '', '', '', '', '', '', '', '4,395.00', ''],
  [],
  ['Cash Basis Tuesday, March 31, 2026 10:15 AM'],
];
/** The mistyped cell and what the user types in its place. */
export const BAD = { line: 11, header: 'Line Amount', fixed: '2,100.00' };

/** What one check shows: its summary, records, the rows table (line and Type cell of each row), the invalid cells, the ignored lines and the vendor IDs. */
interface Shown {
  summary: string;
  records: string[][];
  rows: Array<[string, string]>;
  invalid: Array<[string, string]>;
  ignored: string[];
  vendorIds: string[];
}

async function shown(page: Page): Promise<Shown> {
  const result = page.getByRole('region', { name: 'Check result' });
  const table = page.getByRole('table', { name: 'Rows of the file' });
  await table.waitFor();
  // Each row's line (the row header's own text, before a message placed in it) and its first cell (a textbox's value while it is edited).
  // Runs in the page (a string: the tests are typed without the DOM's globals).
  const read = (await page.evaluate(`(() => {
    const t = [...document.querySelectorAll('#rows table')].find((x) => x.querySelector('caption')?.textContent === 'Rows of the file');
    const own = (el) => (el.firstChild && el.firstChild.nodeType === 3 ? el.firstChild.textContent : '').trim();
    const cellText = (el) => { const x = el.querySelector('input'); return x ? x.value : own(el); };
    const rows = [...t.querySelectorAll('tr')].slice(1).map((tr) => [own(tr.querySelector('th')), cellText(tr.querySelectorAll('td')[0])]);
    const invalid = [...t.querySelectorAll('td[aria-invalid="true"], th[aria-invalid="true"]')].map((c) => [own(c.closest('tr').querySelector('th')), c.querySelector('.msg')?.textContent ?? '']);
    return { rows, invalid };
  })()`)) as { rows: Array<[string, string]>; invalid: Array<[string, string]> };
  const { rows, invalid } = read;
  const records: string[][] = [];
  const rec = page.getByRole('region', { name: 'Records' }).locator('tr');
  for (let i = 1; i < (await rec.count()); i++) records.push((await rec.nth(i).locator('th, td').allInnerTexts()).map((t) => t.trim()));
  return {
    summary: (await page.locator('#summary').innerText()).trim(),
    records,
    rows,
    invalid,
    ignored: await result.locator('#ignored-list li').allInnerTexts(),
    vendorIds: await Promise.all(Object.keys(VENDOR_IDS).map((v) => page.getByRole('textbox', { name: `Vendor ID for ${v}` }).inputValue())),
  };
}

/** Presses Check and waits for its answer to be shown. */
async function check(page: Page): Promise<Shown> {
  await Promise.all([page.waitForResponse((r) => r.url().endsWith('/import/check') && r.status() === 200), page.getByRole('button', { name: 'Check' }).click()]);
  await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.id'), { timeout: 15_000, interval: 100 }).toBe('checked');
  return shown(page);
}

/** Every row shown sits at its physical line: its Type cell is the file's at that line. */
function rowsAtTheirLines(s: Shown): void {
  for (const [line, type] of s.rows) expect([line, type]).toEqual([line, REPORT_LINES[Number(line) - 1]![0] ?? '']);
  expect(s.rows.map(([l]) => Number(l))).toEqual([6, 7, 8, 9, 10, 11, 12, 13]);
}

/** The bill whose rows line `line` belongs to, read from the physical lines: its own `Bill No.`, or a split line's bill above. */
function billOfLine(line: number): string | undefined {
  for (let l = line; l >= 6; l--) {
    const cells = REPORT_LINES[l - 1]!;
    if (cells[0] === 'Bill') return cells[1];
    if (l !== line || cells[0] !== '') return undefined;
  }
  return undefined;
}

/**
 * What an ignored line's message must say of the file's physical line `line`: above the header a
 * title naming the header's line (a sheet's row), after the last blank line the footer, otherwise
 * the line's own first cell quoted (`"Total for FX-3004"`, `Type "Bill Payment (Check)"`,
 * `"TOTAL"`): a message read from another line says another text.
 */
function namesItsLine(line: number, message: string): void {
  const header = REPORT_LINES.findIndex((cells) => cells[0] === 'Type') + 1;
  const lastBlank = REPORT_LINES.findLastIndex((cells) => cells.length === 0) + 1;
  if (line < header) expect([line, message]).toEqual([line, expect.stringMatching(new RegExp(`^title above the header row \\((?:line|row) ${header}\\)`))]);
  else if (line > lastBlank) expect([line, message]).toEqual([line, expect.stringMatching(/^footer/)]);
  else expect([line, message]).toEqual([line, expect.stringContaining(`"${REPORT_LINES[line - 1]![0]}"`)]);
}

/** The page's ignored list, each item compared with the physical line it names. */
function ignoredNameTheirLines(items: string[]): void {
  for (const item of items) {
    const [, line, message] = /^Line (\d+): (?:[^\u2014]*\u2014 )?(.*)$/s.exec(item) ?? [];
    expect(line, item).toBeDefined();
    namesItsLine(Number(line), message!);
  }
}

export async function fixLoopFlow(rig: ImportPageRig, file: { name: string; mimeType: string; buffer: Buffer }): Promise<void> {
  const page = await rig.browser!.newPage({ viewport: { width: 1280, height: 900 } });
  const before = rig.sandbox.bills().length;
  try {
    await page.goto(`${rig.dashboard.url}/import`);
    await page.getByRole('radio', { name: 'Bills' }).check();
    await page.getByRole('combobox', { name: 'Service account' }).selectOption('default');
    await page.getByLabel('Spreadsheet').setInputFiles(file);
    await page.getByRole('button', { name: 'Read file' }).click();
    await page.getByRole('combobox', { name: 'Line Amount' }).waitFor({ timeout: 30_000 });
    expect(await page.getByRole('spinbutton', { name: 'Header row' }).inputValue()).toBe('5');

    // The first check asks for the vendor IDs; they are typed.
    await check(page);
    for (const [vendor, id] of Object.entries(VENDOR_IDS)) await page.getByRole('textbox', { name: `Vendor ID for ${vendor}` }).fill(id);

    const first = await check(page);
    expect(first.summary).toMatch(/^\d+ rows: 3 bills to create, 2 invalid rows\.$/);
    expect(first.vendorIds).toEqual(Object.values(VENDOR_IDS));
    rowsAtTheirLines(first);
    // Each error beside its own row: the bad amount at line 11, the grand total that does not add up at line 13.
    expect(first.invalid.map(([l]) => l)).toEqual(['11', '13']);
    expect(first.invalid[0]![1]).toMatch(/2,1O0\.00/);
    expect(first.invalid[1]![1]).toMatch(/TOTAL/);
    expect(await page.getByRole('textbox', { name: `${BAD.header} line ${BAD.line}` }).inputValue()).toBe(REPORT_LINES[BAD.line - 1]![8]);
    expect(first.ignored.map((t) => t.split(':')[0])).toEqual(['Line 1', 'Line 2', 'Line 3', 'Line 8', 'Line 9', 'Line 15']);
    ignoredNameTheirLines(first.ignored);

    // Check again, nothing changed: the same result, the typed IDs kept.
    expect(await check(page)).toEqual(first);

    // One cell fixed, checked again: every row at the same line, title, totals, payment and footer still named by theirs.
    await page.getByRole('textbox', { name: `${BAD.header} line ${BAD.line}` }).fill(BAD.fixed);
    const fixed = await check(page);
    expect(fixed.summary).toMatch(/^\d+ rows: 4 bills to create, 0 invalid rows\.$/);
    expect(fixed.invalid).toEqual([]);
    expect(fixed.vendorIds).toEqual(Object.values(VENDOR_IDS));
    expect(fixed.rows).toEqual(first.rows);
    expect(fixed.ignored.map((t) => t.split(':')[0])).toEqual(['Line 1', 'Line 2', 'Line 3', 'Line 8', 'Line 9', 'Line 13', 'Line 15']);
    ignoredNameTheirLines(fixed.ignored);
    expect(fixed.records.map((r) => [r[0], r.at(-2)])).toEqual([['FX-3004', '1,335.00'], ['FX-3005', '3,480.00'], ['FX-3006', '2,100.00'], ['FX-3007', '960.00']]);
    const cell = page.getByRole('table', { name: 'Rows of the file' }).locator('tr').filter({ has: page.getByRole('rowheader', { name: String(BAD.line), exact: true }) });
    expect(await cell.locator('td').nth(8).innerText()).toBe(BAD.fixed);
    expect(await check(page)).toEqual(fixed);

    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.getByRole('status').innerText(), { timeout: 60_000, interval: 250 }).toMatch(/done · created 4 · exists 0 · skipped 0 · failed 0 · unknown 0 of 4/);
    const created = rig.sandbox.bills().slice(before);
    const sent = created.map((b) => b.payload as { VENDOR_ID: string; ITEMS: Array<{ RATE: string }> });
    expect(sent.map((b) => [b.VENDOR_ID, b.ITEMS.map((i) => i.RATE)]).sort()).toEqual([['56', ['1250.00', '85.00']], ['57', ['3480.00']], ['58', ['2100.00']], ['59', ['960.00']]]);
    // The ID the service gave each bill, by its vendor (one bill each here).
    const idOfVendor = new Map(created.map((b, i) => [sent[i]!.VENDOR_ID, String(b.id)]));

    // The report names every line by its physical line: each created line is a row of the bill it
    // names, with the vendor of that bill's row and the ID the service gave it; each ignored line
    // says what the file holds at that line.
    const href = await page.getByRole('link', { name: 'Download report' }).getAttribute('href');
    const report = await page.evaluate(async (url) => (await fetch(url!)).text(), href);
    const lines = (parse(report, { columns: true, bom: true }) as Array<{ line: string; record: string; status: string; id: string; message: string }>)
      .map((l) => ({ ...l, line: Number(l.line) }))
      .sort((a, b) => a.line - b.line);
    expect(lines.map((l) => [l.line, l.status])).toEqual([
      [1, 'ignored'], [2, 'ignored'], [3, 'ignored'], [6, 'created'], [7, 'created'], [8, 'ignored'], [9, 'ignored'], [10, 'created'], [11, 'created'], [12, 'created'], [13, 'ignored'], [15, 'ignored'],
    ]);
    for (const l of lines.filter((x) => x.status === 'created')) {
      const bill = billOfLine(l.line)!;
      const vendorId = VENDOR_IDS[REPORT_LINES.find((cells) => cells[0] === 'Bill' && cells[1] === bill)![2]!]!;
      expect([l.line, /^bill (FX-\d+) \/ project \d+ \/ vendor (\d+)$/.exec(l.record)?.slice(1), l.id]).toEqual([l.line, [bill, vendorId], idOfVendor.get(vendorId)]);
    }
    for (const l of lines.filter((x) => x.status === 'ignored')) namesItsLine(l.line, l.message);
  } finally {
    await page.close();
  }
}
