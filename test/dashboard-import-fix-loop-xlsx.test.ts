/**
 * The import page's fix loop with an .xlsx as Excel saves QuickBooks' "Bill Details" report
 * (shared strings, dates as serial days in the short date format, amounts as numbers in `#,##0.00`,
 * the mistyped amount a text cell, empty rows left out): the same loop as the CSV's, lines being the
 * sheet's rows (README, The import page). Chromium, the sandbox, real Redis.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { hasChromium } from './helpers/chromium.ts';
import { STYLE, writeExcelXlsx } from './helpers/excel-xml.ts';
import { fixLoopFlow, REPORT_LINES } from './helpers/fix-loop-flow.ts';
import { startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';

const COLS = 'ABCDEFGHIJ';
const DAY_MS = 86_400_000;

/** The report as Excel stores it: a date (MM/DD/YYYY) as its serial day, an amount as its number, other text in the shared strings. */
function workbook(file: string): void {
  const strings: string[] = [];
  const shared = (text: string) => {
    const at = strings.indexOf(text);
    return at >= 0 ? at : strings.push(text) - 1;
  };
  let rows = '';
  REPORT_LINES.forEach((cells, i) => {
    const r = i + 1;
    const xml = cells.map((v, c) => {
      const ref = `${COLS[c]}${r}`;
      if (v === '') return '';
      const date = /^(\d\d)\/(\d\d)\/(\d{4})$/.exec(v);
      if (date !== null && r > 5) return `<c r="${ref}" s="${STYLE.date}"><v>${(Date.UTC(+date[3]!, +date[1]! - 1, +date[2]!) - Date.UTC(1899, 11, 30)) / DAY_MS}</v></c>`;
      if (r > 5 && /^-?[\d,]+\.\d\d$/.test(v)) return `<c r="${ref}" s="${STYLE.decimal}"><v>${v.replace(/,/g, '')}</v></c>`;
      if (r > 5 && /^\d+$/.test(v)) return `<c r="${ref}"><v>${v}</v></c>`;
      return `<c r="${ref}" t="s"><v>${shared(v)}</v></c>`;
    }).join('');
    if (xml !== '') rows += `<row r="${r}">${xml}</row>`;
  });
  writeExcelXlsx(file, { sheets: [{ name: 'Bill Details', rows }], sharedStrings: strings, deflate: true });
}

describe.skipIf(!hasChromium)('the import page\'s fix loop, an .xlsx with a title block and a footer', () => {
  let rig: ImportPageRig;
  let work: string;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'bs-fix-loop-'));
    rig = await startImportPageRig({ limits: 'hour=500,day=10000' });
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('keeps typed vendor IDs over two checks, every row at its sheet row after a cell is fixed, and the report counts the sheet\'s rows', async () => {
    const file = join(work, 'bill-details-march.xlsx');
    workbook(file);
    await fixLoopFlow(rig, { name: 'bill-details-march.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: readFileSync(file) });
  }, 120_000);
});
