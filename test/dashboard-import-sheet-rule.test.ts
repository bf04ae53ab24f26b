/**
 * The import page's sheet rule is the CLI's (README, The import page; src/tables/workbook-sheets.ts):
 * a workbook whose two sheets hold a table is shown by its active sheet, but no sheet is chosen
 * until `Sheet` says which. Check stops with the CLI's stop (each sheet with its rows, the active
 * one named), in the page's words and tied to `Sheet`, and nothing can be sent; the sheet chosen is
 * checked (a second check the same, the choice kept) and sent, its rows and only its rows, the
 * report's lines being that sheet's rows. Over HTTP as the page's script sends it, and in Chromium
 * by accessible name. The sandbox, real Redis; the workbook as Excel saves it (shared strings, the
 * active tab, empty rows left out).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium } from './helpers/chromium.ts';
import { runCli } from './helpers/cli.ts';
import { STYLE, writeExcelXlsx } from './helpers/excel-xml.ts';
import { importableProjects, startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';
import { pageClient, waitFor } from './helpers/page-client.ts';
import { REDIS_URL } from './helpers/redis.ts';

const NAME = 'bills-revisions.xlsx';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const HEADERS = ['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate'];
const COLS = 'ABCDE';
/** The header row of each sheet; its title is row 1, row 2 is empty (Excel leaves it out). */
const HEADER_ROW = 3;

interface Bill {
  ref: string;
  item: string;
  rate: number;
}

/** The superseded revision (first tab) and the current one (second tab, active when saved), each a title, a header row and its bills. */
function revisions(prefix: string): Array<{ name: string; title: string; bills: Bill[] }> {
  return [
    { name: 'Rev A', title: 'March bills (superseded)', bills: [{ ref: `${prefix}A-1`, item: 'Gravel', rate: 300 }, { ref: `${prefix}A-2`, item: 'Sand', rate: 110 }] },
    { name: 'Rev B', title: 'March bills', bills: [{ ref: `${prefix}B-1`, item: 'Gravel', rate: 320 }, { ref: `${prefix}B-2`, item: 'Sand', rate: 120 }, { ref: `${prefix}B-3`, item: 'Cement', rate: 95 }] },
  ];
}

/** The workbook as Excel saves it: text in the shared strings, numbers as numbers (rates in `#,##0.00`), the second tab active. */
function workbook(file: string, project: number, sheets: ReturnType<typeof revisions>): void {
  const strings: string[] = [];
  const text = (ref: string, t: string) => {
    const at = strings.indexOf(t);
    return `<c r="${ref}" t="s"><v>${at >= 0 ? at : strings.push(t) - 1}</v></c>`;
  };
  const num = (ref: string, v: number, style?: number) => `<c r="${ref}"${style === undefined ? '' : ` s="${style}"`}><v>${v}</v></c>`;
  const written = sheets.map((s) => ({
    name: s.name,
    rows:
      `<row r="1">${text('A1', s.title)}</row>` +
      `<row r="${HEADER_ROW}">${HEADERS.map((h, i) => text(`${COLS[i]}${HEADER_ROW}`, h)).join('')}</row>` +
      s.bills.map((b, k) => {
        const r = HEADER_ROW + 1 + k;
        return `<row r="${r}">${text(`A${r}`, b.ref)}${num(`B${r}`, project)}${num(`C${r}`, 55)}${text(`D${r}`, b.item)}${num(`E${r}`, b.rate, STYLE.decimal)}</row>`;
      }).join(''),
  }));
  writeExcelXlsx(file, { sheets: written, sharedStrings: strings, activeTab: 1, deflate: true });
}

/** The stop's facts, the CLI's and the page's alike: each sheet with its rows, the active one. */
const FACTS = (file: string) => `${file} has 2 sheets with a table: "Rev A" (2 rows), "Rev B" (3 rows). "Rev B" was the active sheet when the workbook was saved. `;
const CLI_STOP = `${FACTS(NAME)}Pass --sheet NAME to read one of them (--sheet "Rev B"), or --sheet all to read every one.`;
const PAGE_STOP = `${FACTS(NAME)}Choose one of them in "Sheet" above ("Rev B"), or "All sheets" to read every one.`;

/** The report's lines as (line, status, record), in line order. */
function reportLines(csv: string): Array<[number, string, string]> {
  return (parse(csv, { columns: true, bom: true }) as Array<{ line: string; status: string; record: string }>)
    .map((l): [number, string, string] => [Number(l.line), l.status, l.record])
    .sort((a, b) => a[0] - b[0]);
}

/** A check's answer but its budget (an ETA that moves with the clock). */
function withoutBudget(answer: Record<string, unknown>): Record<string, unknown> {
  const { budget: _budget, ...rest } = answer;
  return rest;
}

/** What the report must say of a sheet sent: its title ignored, then each bill at its own row. */
function expectedReport(bills: readonly Bill[], project: number): Array<[number, string, string]> {
  return [[1, 'ignored', ''], ...bills.map((b, k): [number, string, string] => [HEADER_ROW + 1 + k, 'created', `bill ${b.ref} / project ${project} / vendor 55`])];
}

describe('the import page reads a workbook\'s sheets by the CLI\'s rule (README, The import page)', () => {
  let rig: ImportPageRig;
  let work: string;
  let project: number;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'bs-sheet-rule-'));
    rig = await startImportPageRig({ limits: 'hour=500,day=10000', browser: hasChromium });
    project = importableProjects(rig.sandbox)[0]!;
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('over HTTP: none chosen, Check stops as the CLI does (tied to Sheet) and Send has nothing; Rev A chosen is checked twice alike and sent, its rows and only its rows', async () => {
    const sheets = revisions('H');
    const file = join(work, NAME);
    workbook(file, project, sheets);
    const client = pageClient(rig.dashboard.url);
    const before = rig.sandbox.bills().length;

    const up = await client.call('/import/upload?kind=bills&sheet=', { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': NAME }, body: readFileSync(file) });
    expect(up.status, up.text).toBe(200);
    // The active sheet is shown; none is chosen.
    expect(up.json).toMatchObject({ table: 'xlsx', sheets: ['Rev A', 'Rev B'], sheet: 'Rev B', chosenSheet: null, noSheetChosen: 'None chosen ("Rev B" is shown)', headerRow: HEADER_ROW });
    const upload = up.json.upload as string;
    const columns = Object.fromEntries((up.json.columns as Array<{ header: string; column: string }>).map((c) => [c.header, c.column]));

    // Check with no sheet chosen: the CLI's own stop without --sheet, in the page's words, tied to Sheet.
    const stop = await client.check(upload, columns);
    expect([stop.status, stop.json]).toEqual([400, { error: PAGE_STOP, control: 'Sheet' }]);
    const cli = await runCli(['import', 'bills', NAME, '--dry-run'], { ...rig.env, REDIS_URL, BUILDSYNC_PREFIX: rig.t.prefix }, { cwd: work });
    // (Its stop is its last line; a dry run first says it reads the project listing.)
    expect([cli.code, cli.stderr.trim().split('\n').at(-1)]).toEqual([2, `buildsync: ${CLI_STOP}`]);
    // Nothing was checked, so nothing can be sent.
    const refused = await client.send(upload);
    expect([refused.status, refused.json]).toEqual([409, { error: 'check the file first' }]);

    // Rev A chosen: checked, and checked again alike.
    const first = await client.check(upload, columns, { sheet: 'Rev A' });
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ recordCount: 2, invalid: [] });
    expect(first.json.shown.map((r: { line: number }) => r.line)).toEqual([4, 5]);
    expect(first.json.records.map((r: { bill: { ref: string } }) => r.bill.ref)).toEqual(sheets[0]!.bills.map((b) => b.ref));
    const second = await client.check(upload, columns, { sheet: 'Rev A' });
    expect(withoutBudget(second.json)).toEqual(withoutBudget(first.json));

    // A check that stops (the choice taken back) leaves nothing to send: an earlier check is never sent.
    expect((await client.check(upload, columns)).status).toBe(400);
    expect((await client.send(upload)).status).toBe(409);
    expect(rig.sandbox.bills().length).toBe(before);

    expect((await client.check(upload, columns, { sheet: 'Rev A' })).status).toBe(200);
    const sent = await client.send(upload);
    expect(sent.status, sent.text).toBe(200);
    const importId = sent.json.importId as string;
    await waitFor('the import is done', async () => (await client.call(`/import/status.json?id=${importId}`)).json?.done === true, 30_000);
    const report = await client.call(`/import/report.csv?id=${importId}`);
    expect(reportLines(report.text)).toEqual(expectedReport(sheets[0]!.bills, project));
    const created = rig.sandbox.bills().slice(before).map((b) => (b.payload as { ITEMS: Array<{ NAME: string }> }).ITEMS.map((i) => i.NAME));
    expect(created.flat().sort()).toEqual(sheets[0]!.bills.map((b) => b.item).sort());
  }, 60_000);

  it.skipIf(!hasChromium)('in Chromium: Sheet says none is chosen; Check stops, described on Sheet with a link to it, and Send is not offered; Rev B chosen, checked twice keeping it, sent: the report\'s lines are its rows', async () => {
    const sheets = revisions('C');
    const file = join(work, `chromium-${NAME}`);
    workbook(file, project, sheets);
    const page = await rig.browser!.newPage({ viewport: { width: 1280, height: 900 } });
    const before = rig.sandbox.bills().length;
    /** Presses Check and waits for its answer; a check that passes, until its result is shown (focus moves to it). */
    const check = async (status: number) => {
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/import/check') && r.status() === status), page.getByRole('button', { name: 'Check' }).click()]);
      if (status === 200) await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.id'), { timeout: 15_000, interval: 100 }).toBe('checked');
    };
    try {
      await page.goto(`${rig.dashboard.url}/import`);
      await page.getByRole('radio', { name: 'Bills' }).check();
      await page.getByRole('combobox', { name: 'Service account' }).selectOption('default');
      await page.getByLabel('Spreadsheet').setInputFiles({ name: NAME, mimeType: XLSX, buffer: readFileSync(file) });
      await page.getByRole('button', { name: 'Read file' }).click();
      await page.getByRole('combobox', { name: 'item_name' }).waitFor({ timeout: 15_000 });
      const sheet = page.getByRole('combobox', { name: 'Sheet' });
      expect(await sheet.inputValue()).toBe('');
      expect(await sheet.locator('option').allInnerTexts()).toEqual(['None chosen ("Rev B" is shown)', 'Rev A', 'Rev B', 'All sheets']);
      expect(await page.locator('#header-note').innerText()).toContain('"Rev B" is shown (the active sheet when the workbook was saved), but none is chosen');

      await check(400);
      const msg = page.locator('#check-msg');
      await expect.poll(() => msg.innerText(), { timeout: 15_000 }).toBe(`${PAGE_STOP} Go to "Sheet"`);
      expect(await sheet.getAttribute('aria-describedby')).toContain('check-msg');
      expect(await page.getByRole('button', { name: 'Send' }).count()).toBe(0);
      expect(await page.locator('#send').isDisabled()).toBe(true);
      await page.getByRole('link', { name: 'Go to "Sheet"' }).click();
      expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('sheet');

      // The active sheet chosen (the one shown): now it is read.
      await sheet.selectOption('Rev B');
      await check(200);
      const summary = () => page.locator('#summary').innerText();
      expect(await summary()).toMatch(/^\d+ rows: 3 bills to create, 0 invalid rows\.$/);
      const records = async () => (await page.getByRole('region', { name: 'Records' }).locator('tr th[scope=row]').allInnerTexts()).map((t) => t.trim());
      const firstRecords = await records();
      expect(firstRecords).toEqual(sheets[1]!.bills.map((b) => b.ref));
      expect(await msg.innerText()).toBe('');
      // A second check keeps the choice and says the same.
      const firstSummary = await summary();
      await check(200);
      expect(await summary()).toBe(firstSummary);
      expect(await sheet.inputValue()).toBe('Rev B');
      expect(await sheet.locator('option').allInnerTexts()).toEqual(['Rev A', 'Rev B', 'All sheets']);
      expect(await records()).toEqual(firstRecords);

      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => page.getByRole('status').innerText(), { timeout: 30_000, interval: 250 }).toMatch(/done · created 3 · exists 0 · skipped 0 · failed 0 · unknown 0 of 3/);
      const href = await page.getByRole('link', { name: 'Download report' }).getAttribute('href');
      const report = (await page.evaluate(`fetch(${JSON.stringify(href)}).then((r) => r.text())`)) as string;
      expect(reportLines(report)).toEqual(expectedReport(sheets[1]!.bills, project));
      const created = rig.sandbox.bills().slice(before).map((b) => (b.payload as { ITEMS: Array<{ NAME: string }> }).ITEMS.map((i) => i.NAME));
      expect(created.flat().sort()).toEqual(sheets[1]!.bills.map((b) => b.item).sort());
    } finally {
      await page.close();
    }
  }, 90_000);
});
