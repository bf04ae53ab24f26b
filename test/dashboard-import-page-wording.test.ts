/**
 * Messages on the import page speak of its controls, never of command-line flags (README, "The
 * import page"): the stops a file can meet on the page (dates that read either way, a missing
 * column, no header row, an unknown column, hidden rows) answer in the page's words, in the JSON
 * the page receives and in the page's text, and so does an invalid row's advice in the check's
 * answer; the same errors keep the CLI's words for the CLI.
 */
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileError, messageFor } from '../src/errors/index.ts';
import { hasChromium } from './helpers/chromium.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';

const HIDDEN_XLSX = resolve(import.meta.dirname, 'fixtures', 'workbooks', 'bills-hidden-row.xlsx');

describe.skipIf(!hasChromium)('the import page words its messages for the page', () => {
  let rig: ImportPageRig;
  let page: Page;
  /** Every answer of the page's own requests, as text. */
  const answers: string[] = [];

  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'none', worker: false });
    page = await rig.browser!.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('response', (res) => {
      if (new URL(res.url()).pathname.startsWith('/import/')) void res.text().then((t) => answers.push(t), () => undefined);
    });
  }, 60_000);

  afterAll(async () => {
    await page?.close();
    await rig?.close();
  });

  /** Reads `file` as bills on a fresh page; `check`: press Check too. Returns the alert that answered. */
  async function tryFile(file: { name: string; csv: string } | string, check: boolean): Promise<string> {
    answers.length = 0;
    await page.goto(`${rig.dashboard.url}/import`);
    await page.getByRole('radio', { name: 'Bills' }).check();
    await page.getByLabel('Spreadsheet').setInputFiles(typeof file === 'string' ? file : { name: file.name, mimeType: 'text/csv', buffer: Buffer.from(file.csv) });
    await page.getByRole('button', { name: 'Read file' }).click();
    const alert = page.locator(check ? '#check-msg' : '#read-msg');
    if (check) {
      await page.getByRole('button', { name: 'Check' }).waitFor({ timeout: 10_000 });
      await page.getByRole('button', { name: 'Check' }).click();
    }
    await expect.poll(() => alert.innerText(), { timeout: 15_000 }).not.toBe('');
    const text = await page.locator('body').innerText();
    expect(text).not.toContain('--');
    for (const a of answers) expect(a).not.toContain('--');
    return alert.innerText();
  }

  it('dates that read either way: choose a date format above', async () => {
    const [p1] = importableProjects(rig.sandbox);
    const said = await tryFile({ name: 'dates.csv', csv: `bill_ref,project_id,vendor_id,item_name,rate,invoice_date\nD-1,${p1},55,Gravel,100,03/04/2026\n` }, true);
    expect(said).toBe('dates.csv:2 column invoice_date: "03/04/2026" can be read day first or month first, and nothing in the file settles it (no date has a part over 12). Choose the order in "Date format" above (DMY: day/month/year, MDY: month/day/year), or write the dates as 2026-03-02. Go to "Date format"');
  }, 60_000);

  it('a missing column and no header row: choose the column each header holds, and the header row, above', async () => {
    const [p1] = importableProjects(rig.sandbox);
    const missing = await tryFile({ name: 'no-vendor.csv', csv: `bill_ref,project_id,item_name,rate\nM-1,${p1},Gravel,100\n` }, true);
    expect(missing).toMatch(/^no-vendor\.csv:1: missing column: vendor_id \(or vendor, with a vendor ID for each vendor name\)\. /);
    expect(missing).toContain('choose the column each header holds in its list under "Match columns" above.');
    expect(missing).toMatch(/If the header row is another line, choose it in "Header row" above\.(?: Go to "[^"]+")?$/);

    const noHeader = await tryFile({ name: 'no-header.csv', csv: `N-1,${p1},55,Gravel,100\nN-2,${p1},55,Sand,40\n` }, true);
    expect(noHeader).toMatch(/^no-header\.csv:\d+: missing columns?: /);
    expect(noHeader).toMatch(/If the header row is another line, choose it in "Header row" above\.(?: Go to "[^"]+")?$/);
  }, 60_000);

  it('hidden rows in a workbook: Include or Skip under Hidden rows', async () => {
    const said = await tryFile(HIDDEN_XLSX, true);
    expect(said).toMatch(/holds what its reader does not see: .*Show them in the workbook and check them, or choose Include in "Hidden rows" above/);
  }, 60_000);

  /** Uploads `csv` as bills and checks it with the five bill columns chosen (any other header left out), as the page's script does. */
  async function checkBills(name: string, csv: string): Promise<{ status: number; body: string }> {
    const base = rig.dashboard.url;
    const up = await fetch(`${base}/import/upload?kind=bills&sheet=`, {
      method: 'POST',
      headers: { Origin: base, 'Content-Type': 'application/octet-stream', 'X-Filename': name },
      body: csv,
    });
    const { upload } = (await up.json()) as { upload: string };
    const columns = { bill_ref: 'bill_ref', project_id: 'project_id', vendor_id: 'vendor_id', item_name: 'item_name', rate: 'rate' };
    const res = await fetch(`${base}/import/check`, {
      method: 'POST',
      headers: { Origin: base, 'Content-Type': 'application/json' },
      body: JSON.stringify({ upload, kind: 'bills', account: 'default', sheet: '', columns, dateFormat: 'auto', decimalSeparator: 'auto' }),
    });
    return { status: res.status, body: await res.text() };
  }

  it('an unknown column (a header the choices leave out): choose a column or Ignore under Match columns', async () => {
    const [p1] = importableProjects(rig.sandbox);
    const { status, body } = await checkBills('extra.csv', `bill_ref,project_id,vendor_id,item_name,rate,Qty Ordered\nU-1,${p1},55,Gravel,100,3\n`);
    expect(status).toBe(400);
    expect(body).not.toContain('--');
    expect((JSON.parse(body) as { error: string }).error).toBe(
      'extra.csv:1: unknown column "Qty Ordered". Known columns: bill_ref, project_id, project_number, project_name, vendor_id, vendor, title, due_date, invoice_date, received_date, active, ready_for_payment, approver, approval_date, notes, trade, bill_type, traffic_color, item_name, rate, qty, unit, item_description, cost_code_id, tax_type_id, tax_percent, tax_amount, currency (case, spaces, _, - and . do not matter). ' +
        'To skip it, choose Ignore in its list under "Match columns" above; to read one as a known column, choose that column there.',
    );
  }, 60_000);

  it("an invalid row's advice in the check's answer: the page's control, never the flag", async () => {
    const [p1] = importableProjects(rig.sandbox);
    const { status, body } = await checkBills('euro.csv', `bill_ref,project_id,vendor_id,item_name,rate\nE-1,${p1},55,Gravel,€1250.00\nE-2,${p1},55,Sand,40\n`);
    expect(status, body).toBe(200);
    expect(body).not.toContain('--');
    expect((JSON.parse(body) as { invalid: unknown[] }).invalid).toEqual([{
      line: 2,
      record: expect.any(String),
      column: 'rate',
      message:
        'euro.csv:2 column rate: "€1250.00" is in EUR, but the account\'s currency is USD (BUILDSYNC_CURRENCY): bills carry no currency, so it is never sent as USD. ' +
        'Convert the amount, or choose an account whose currency is EUR in "Service account" above',
    }]);
  }, 60_000);
});

describe('one error, two wordings', () => {
  it('the CLI reads the flag, the page its control, from the same parts', () => {
    const err = new FileError('a.csv', ['a.csv:2: dates read both ways. ', { kind: 'date-order', variable: 'BUILDSYNC_DATE_FORMAT' }]);
    expect(err.message).toBe("a.csv:2: dates read both ways. Pass --date-format DMY (day/month/year) or --date-format MDY (month/day/year), set BUILDSYNC_DATE_FORMAT to the order this account's files use, or write the dates as 2026-03-02.");
    expect(messageFor(err, 'cli')).toBe(err.message);
    expect(messageFor(err, 'page')).toBe('a.csv:2: dates read both ways. Choose the order in "Date format" above (DMY: day/month/year, MDY: month/day/year), or write the dates as 2026-03-02.');
    // An error without advice says the same everywhere.
    expect(messageFor(new FileError('b.csv', 'b.csv is empty'), 'page')).toBe('b.csv is empty');
  });
});
