/**
 * The import page's fix loop with a CSV as QuickBooks writes its "Bill Details" report (CRLF, a
 * title block, quoted amounts with thousands separators, a blank line and a footer): Check twice
 * keeps the typed vendor IDs, a cell fixed keeps every row at its physical line, and the report
 * of the import sent counts lines as the file does (README, The import page). Chromium, the
 * sandbox, real Redis.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { hasChromium } from './helpers/chromium.ts';
import { fixLoopFlow, REPORT_LINES } from './helpers/fix-loop-flow.ts';
import { startImportPageRig, type ImportPageRig } from './helpers/import-page-rig.ts';

/** A cell as QuickBooks writes it: quoted when it holds a comma or a quote. */
const csvCell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

describe.skipIf(!hasChromium)('the import page\'s fix loop, a CSV with a title block and a footer', () => {
  let rig: ImportPageRig;
  beforeAll(async () => {
    rig = await startImportPageRig({ limits: 'hour=500,day=10000' });
  }, 60_000);
  afterAll(() => rig?.close());

  it('keeps typed vendor IDs over two checks, every row at its physical line after a cell is fixed, and the report counts lines as the file does', async () => {
    const text = REPORT_LINES.map((cells) => cells.map(csvCell).join(',')).join('\r\n') + '\r\n';
    await fixLoopFlow(rig, { name: 'bill-details-march.csv', mimeType: 'text/csv', buffer: Buffer.from(text) });
  }, 120_000);
});
