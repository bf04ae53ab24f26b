/**
 * The reading corpus (issue 24, README "Reading a file as it was meant" and "Where the table is"):
 * files as the programs write them, each with what `buildsync import KIND FILE --dry-run
 * --print-payloads` must make of it: the exact payloads and every line of the report, or the
 * exact stop (exit 2).
 *
 * The files: test/fixtures/reading/ (CSVs as QuickBooks, Xero, Sage, MYOB and Excel in several
 * locales write them, byte for byte: CRLF, quoted amounts, `sep=` and `{}` first lines, title
 * blocks, footers, Windows-1252, UTF-16) and test/fixtures/workbooks/ (.xlsx written by
 * LibreOffice from the .fods beside each, see its README). A workbook whose active tab is not the
 * first cannot be written by a headless LibreOffice; that one is written at test time by
 * test/helpers/excel-xml.ts, as Excel writes its XML.
 *
 * Each case runs in the folder of its file, so FILE and the files its flags name (mappings,
 * vendor lists) are bare names there. test/reading-corpus.test.ts runs the table.
 */
import { join } from 'node:path';
import { ESTIMATE_COLUMNS } from '../../src/mapping/index.ts';
import { writeExcelXlsx, xmlEscape } from './excel-xml.ts';

/** A report line: [line, status, message], `line` as the report writes it (`Sheet!row` with `--sheet all`). */
export type ReportLine = [string, 'skipped' | 'invalid' | 'ignored', string];

interface CaseBase {
  /** What the file is and what becomes of it, as a sentence. */
  name: string;
  import: 'estimates' | 'bills';
  /** `reading/NAME` or `workbooks/NAME` under test/fixtures/, or a workbook written into the run's folder. */
  file: string | { name: string; write: (path: string) => void };
  /** Flags after FILE (`--dry-run --print-payloads --report …` are added). */
  args?: string[];
  /** The account's settings (BUILDSYNC_DATE_FORMAT, …). */
  env?: Record<string, string>;
}

/** Read: the payloads printed, in order, and every line of the report. */
export interface ReadCase extends CaseBase {
  exit: 0 | 1;
  payloads: unknown[];
  report: ReportLine[];
  /** The summary's count of ignored rows by reason (`title 3, footer 1`); absent: no row was ignored. */
  ignored?: string;
  /** Lines the summary prints on standard error besides its counts (`read as Mac Roman`). */
  notes?: string[];
}

/** Stopped: exit 2, nothing printed on stdout, and this message (after `buildsync: `) on stderr. */
export interface StopCase extends CaseBase {
  exit: 2;
  stop: string;
}

export type ReadingCase = ReadCase | StopCase;

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

const VALID = 'dry run: valid, not sent';
const valid = (...lines: number[]): ReportLine[] => lines.map((l) => [String(l), 'skipped', VALID]);
/** Title lines above the header row at `where` (`line 5` in a CSV, `row 4` in a sheet). */
const title = (where: string, ...lines: number[]): ReportLine[] => lines.map((l) => [String(l), 'ignored', `title above the header row (${where}): not part of the table`]);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const footer = (line: number): ReportLine => [String(line), 'ignored', 'footer below the last row: not part of the table'];
const invalid = (line: number | string, message: string): ReportLine => [String(line), 'invalid', message];
const KNOWN_ESTIMATE_COLUMNS = `Known columns: ${ESTIMATE_COLUMNS.join(', ')} (case, spaces, _, - and . do not matter).`;
const HIDDEN_HOW = 'Show them and check them, or pass --hidden include to read them as any row, or --hidden skip to leave the hidden rows out (reported ignored) and read hidden columns as empty.';
const EXCEL_DATE = (column: string, date: string) =>
  `column ${column}: Excel stored this as a date; type it as text: the cell holds the date ${date} (formatted "d\\-mmm"), not the text typed. Format the column as Text (or start the entry with ') and type the value again`;

const IN_TWO_SHEETS =
  "project 1042 / Kitchen remodel is in more than one sheet (rows 'Rev A (superseded)'!2, 'Rev A (superseded)'!3 and 'Rev B'!2, 'Rev B'!3, 'Rev B'!5): " +
  '--sheet all reads each record from one sheet. Delete the superseded rows, or import the sheet you mean with --sheet NAME';

/** An estimate of project 1042 with one category whose subcategories hold one item each. */
const oneCategory = (name: string, category: string, ...subcats: Array<[string, Record<string, unknown>]>) => ({
  NAME: name,
  PROJECT_ID: 1042,
  CATS: [{ NAME: category, SUBCATS: subcats.map(([sub, item]) => ({ NAME: sub, ITEMS: [item] })) }],
});
/** The estimate of several files: a crew day and a dumpster. */
const KITCHEN_TWO_LINES = oneCategory('Kitchen remodel', 'Demolition', ['Labor', { NAME: 'Crew day', QTY: 2, UNIT_COST: 640 }], ['Disposal', { NAME: 'Dumpster', QTY: 1, UNIT_COST: 1250 }]);
/** Acme's lumber and delivery, Best Electric's wiring: the two bills of the accounting exports. */
const lumber = (rate = '1250.00') => [{ NAME: 'Framing lumber', RATE: rate }, { NAME: 'Delivery', RATE: '75.00' }];
const wiring = (rate = '2400.00') => [{ NAME: 'Rough-in wiring', RATE: rate }];

export const READING_CASES: ReadingCase[] = [
  // ── accounting exports (CSV) ──
  {
    name: 'QuickBooks "Transaction List by Vendor": 3 title lines, a blank, the header on line 5, a "Cash Basis" footer',
    import: 'bills', file: 'reading/quickbooks-transaction-list-by-vendor.csv', args: ['--mapping', 'quickbooks', '--vendors', 'vendors.csv'],
    exit: 0,
    payloads: [
      { PRJ_ID: null, VENDOR_ID: '55', INVOICE_DATE: '2026-03-14T00:00:00', ITEMS: lumber() },
      { PRJ_ID: null, VENDOR_ID: '56', INVOICE_DATE: '2026-03-20T00:00:00', ITEMS: wiring() },
    ],
    report: [...title('line 5', 1, 2, 3), ...valid(6, 7, 8), footer(10)],
    ignored: 'title 3, footer 1',
  },
  {
    name: 'QuickBooks "Unpaid Bills" report: title block, header on line 5, quoted "1,250.00", two blank lines and a "Cash Basis" footer; 03/16 proves month first',
    import: 'bills', file: 'reading/quickbooks-unpaid-bills.csv', args: ['--mapping', 'quickbooks', '--vendors', 'vendors.csv'],
    exit: 0,
    payloads: [
      { PRJ_ID: null, VENDOR_ID: '55', DUE_DATE: '2026-04-01T00:00:00', INVOICE_DATE: '2026-03-02T00:00:00', ITEMS: lumber() },
      { PRJ_ID: null, VENDOR_ID: '56', DUE_DATE: '2026-04-15T00:00:00', INVOICE_DATE: '2026-03-16T00:00:00', ITEMS: wiring() },
    ],
    report: [...title('line 5', 1, 2, 3), ...valid(6, 7, 8), footer(11)],
    ignored: 'title 3, footer 1',
  },
  {
    name: 'a Xero UK bill export whose dates are all 12 or under stops, naming line 2 and InvoiceDate',
    import: 'bills', file: 'reading/xero-uk-bills.csv', args: ['--mapping', 'xero', '--vendors', 'vendors.csv'],
    exit: 2,
    stop:
      'xero-uk-bills.csv:2 column InvoiceDate: "03/02/2026" can be read day first or month first, and nothing in the file settles it (no date has a part over 12). ' +
      "Pass --date-format DMY (day/month/year) or --date-format MDY (month/day/year), set BUILDSYNC_DATE_FORMAT to the order this account's files use, or write the dates as 2026-03-02.",
  },
  {
    name: 'the same Xero export with BUILDSYNC_DATE_FORMAT=DMY reads day first',
    import: 'bills', file: 'reading/xero-uk-bills.csv', args: ['--mapping', 'xero', '--vendors', 'vendors.csv'], env: { BUILDSYNC_DATE_FORMAT: 'DMY', BUILDSYNC_CURRENCY: 'GBP' },
    exit: 0,
    payloads: [
      { PRJ_ID: '1042', VENDOR_ID: '55', DUE_DATE: '2026-03-04T00:00:00', INVOICE_DATE: '2026-02-03T00:00:00', NOTES: 'PO 311', ITEMS: [{ NAME: 'Framing lumber', RATE: '1250.00', QTY: 1, TAX_PERCENT: 0 }, { NAME: 'Delivery', RATE: '75.00', QTY: 1, TAX_PERCENT: 0 }] },
      { PRJ_ID: '1042', VENDOR_ID: '56', DUE_DATE: '2026-04-05T00:00:00', INVOICE_DATE: '2026-03-05T00:00:00', ITEMS: [{ NAME: 'Rough-in wiring', RATE: '240.00', QTY: 2, TAX_PERCENT: 0 }] },
    ],
    report: valid(2, 3, 4),
  },
  {
    name: 'a Sage 50 audit-trail export of purchase invoices (14/03/2026 proves day first), through a mapping and a supplier list',
    import: 'bills', file: 'reading/sage-purchase-invoices.csv', args: ['--mapping', 'sage-mapping.json', '--vendors', 'sage-suppliers.csv'],
    exit: 0,
    payloads: [
      { PRJ_ID: '1042', VENDOR_ID: '55', INVOICE_DATE: '2026-03-14T00:00:00', ITEMS: lumber() },
      { PRJ_ID: '1042', VENDOR_ID: '56', INVOICE_DATE: '2026-03-02T00:00:00', ITEMS: wiring() },
    ],
    report: valid(2, 3, 4),
  },
  {
    name: "MYOB's {} first line is a title line",
    import: 'bills', file: 'reading/myob-purchases.csv', args: ['--mapping', 'myob-mapping.json', '--vendors', 'vendors.csv'],
    exit: 0,
    payloads: [
      { PRJ_ID: '1042', VENDOR_ID: '55', ITEMS: lumber() },
      { PRJ_ID: '1042', VENDOR_ID: '56', ITEMS: wiring() },
    ],
    report: [...title('line 2', 1), ...valid(3, 4, 5)],
    ignored: 'title 1',
  },
  {
    name: 'a MYOB AccountRight export: tab-delimited .txt, {} first, a blank line after each purchase, "$1,250.00"',
    import: 'bills', file: 'reading/myob-item-purchases.txt', args: ['--mapping', 'myob-item-mapping.json', '--vendors', 'vendors.csv'],
    exit: 0,
    payloads: [
      { PRJ_ID: '1042', VENDOR_ID: '55', INVOICE_DATE: '2026-03-14T00:00:00', ITEMS: lumber() },
      { PRJ_ID: '1042', VENDOR_ID: '56', INVOICE_DATE: '2026-03-02T00:00:00', ITEMS: wiring() },
    ],
    report: [...title('line 2', 1), ...valid(3, 4, 6)],
    ignored: 'title 1',
  },

  // ── Excel's CSVs in other locales ──
  {
    name: "Excel's sep=; first line sets the delimiter and gets no report line; 640,00 and 1.234,50 are decimal commas",
    import: 'estimates', file: 'reading/excel-sep-semicolon.csv',
    exit: 0, payloads: [KITCHEN_TWO_LINES], report: valid(3, 4),
  },
  {
    name: "sep=, wins over the ';' in every description",
    import: 'estimates', file: 'reading/excel-sep-comma.csv',
    exit: 0,
    payloads: [
      oneCategory(
        'Kitchen remodel', 'Demolition',
        ['Labor', { NAME: 'Crew day', DESCRIPTION: 'walls; ceiling; floor', QTY: 2, UNIT_COST: 640 }],
        ['Disposal', { NAME: 'Dumpster', DESCRIPTION: '10 yd; swap; haul', QTY: 1, UNIT_COST: 1250 }],
      ),
    ],
    report: valid(3, 4),
  },
  {
    name: 'a German Excel CSV: sep=;, Windows-1252 umlauts (headers too; they read the same in Windows-1250: read as 1252, no stop), 1.234,50 and 13.02.2026',
    import: 'bills', file: 'reading/excel-de-rechnungen.csv', args: ['--mapping', 'excel-de-mapping.json'],
    exit: 0,
    payloads: [
      { PRJ_ID: '1042', VENDOR_ID: '55', DUE_DATE: '2026-03-13T00:00:00', INVOICE_DATE: '2026-02-13T00:00:00', ITEMS: [{ NAME: 'Fliesenkleber für Bad', RATE: '1234.50', QTY: 2 }, { NAME: 'Anfahrt', RATE: '85.00', QTY: 1 }] },
      { PRJ_ID: '1042', VENDOR_ID: '56', DUE_DATE: '2026-04-01T00:00:00', INVOICE_DATE: '2026-03-02T00:00:00', ITEMS: [{ NAME: 'Elektro Unterverteilung', RATE: '480.00', QTY: 1 }] },
    ],
    report: valid(3, 4, 5), notes: ['read as Windows-1252'],
  },
  {
    name: "a Swiss ;-file: 1'234.50 proves the decimal point, 480.00 follows it; a date in a note proves nothing",
    import: 'estimates', file: 'reading/excel-ch-estimate.csv',
    exit: 0,
    payloads: [
      oneCategory('Küche', 'Abbruch', ['Arbeit', { NAME: 'Tagesansatz', NOTES_GENERAL: 'Offerte vom 14.03.2026', QTY: 2, UNIT_COST: 1234.5 }], ['Entsorgung', { NAME: 'Mulde', QTY: 1, UNIT_COST: 480 }]),
    ],
    report: valid(2, 3),
  },
  {
    name: 'Excel "Unicode Text": UTF-16 LE with a BOM, tabs, a title line of empty tabs above the header',
    import: 'estimates', file: 'reading/excel-unicode-text.txt',
    exit: 0, payloads: [KITCHEN_TWO_LINES], report: [...title('line 2', 1), ...valid(3, 4)], ignored: 'title 1',
  },
  {
    name: 'month names (2 Mar 2026, "April 1, 2026", 9-Mar-2026) need no date order',
    import: 'bills', file: 'reading/month-name-dates.csv',
    exit: 0,
    payloads: [
      { PRJ_ID: '1042', VENDOR_ID: '55', DUE_DATE: '2026-04-01T00:00:00', INVOICE_DATE: '2026-03-02T00:00:00', ITEMS: [{ NAME: 'Framing lumber', RATE: '1250.00' }] },
      { PRJ_ID: '1042', VENDOR_ID: '56', DUE_DATE: '2026-04-08T00:00:00', INVOICE_DATE: '2026-03-09T00:00:00', ITEMS: [{ NAME: 'Rough-in wiring', RATE: '480.00' }] },
    ],
    report: valid(2, 3),
  },
  {
    name: 'Excel accounting format saved as CSV: " $ -   " and "—" are 0, " $ (50.00)" is -50, " $ 1,250.00 " is 1250',
    import: 'estimates', file: 'reading/excel-accounting-zero.csv',
    exit: 0,
    payloads: [{
      NAME: 'Kitchen remodel',
      PROJECT_ID: 1042,
      CATS: [{ NAME: 'Demolition', SUBCATS: [
        { NAME: 'Labor', ITEMS: [{ NAME: 'Crew day', QTY: 2, UNIT_COST: 640, ADJUSTMENT: 0 }] },
        { NAME: 'Disposal', ITEMS: [{ NAME: 'Dumpster', QTY: 1, UNIT_COST: 1250, ADJUSTMENT: -50 }, { NAME: 'Permit', QTY: 0, UNIT_COST: 0, ADJUSTMENT: 0 }] },
      ] }],
    }],
    report: valid(2, 3, 4),
  },
  {
    name: 'percent markups typed as text (15%, 8.25%, a markup row of 10%) are the percentages',
    import: 'estimates', file: 'reading/percent-markups.csv',
    exit: 0,
    payloads: [{
      NAME: 'Kitchen remodel',
      PROJECT_ID: 1042,
      CATS: [{ NAME: 'Cabinets', SUBCATS: [{ NAME: 'Uppers', ITEMS: [{ NAME: 'Crown', QTY: 10, UNIT_COST: 15, LINE_ITEM_MARKUP: 15 }, { NAME: 'Hinge', QTY: 24, UNIT_COST: 4.25, LINE_ITEM_MARKUP: 8.25 }] }] }],
      COMS: [{ NAME: 'Overhead', VALUE: 10 }],
    }],
    report: valid(2, 3, 4),
  },

  // ── encodings by evidence (issue 35): files as each program writes its bytes ──
  {
    name: 'Excel for Mac "CSV (Macintosh)": Mac Roman with CR line ends, read as Mac Roman (é is 0x8E), never "RŽnovation cafŽ"',
    import: 'estimates', file: 'reading/excel-mac-renovation.csv',
    exit: 0,
    payloads: [{
      NAME: 'Rénovation café', PROJECT_ID: 1042,
      CATS: [{ NAME: 'Démolition', SUBCATS: [
        { NAME: "Main-d'œuvre", ITEMS: [{ NAME: "Journée d'équipe", UNIT: 'jour', QTY: 2, UNIT_COST: 640 }] },
        { NAME: 'Évacuation', ITEMS: [{ NAME: 'Benne à gravats', UNIT: 'forfait', QTY: 1, UNIT_COST: 1250 }] },
      ] }],
    }],
    report: valid(2, 3), notes: ['read as Mac Roman'],
  },
  {
    name: 'a Polish Excel CSV in Windows-1250 (;, CRLF, 48,50): its headers read right ("Termin płatności"), through a mapping',
    import: 'bills', file: 'reading/excel-pl-faktury.csv', args: ['--mapping', 'excel-pl-mapping.json'],
    exit: 0,
    payloads: [
      { PRJ_ID: '1042', VENDOR_ID: '55', DUE_DATE: '2026-03-16T00:00:00', INVOICE_DATE: '2026-03-02T00:00:00', ITEMS: [{ NAME: 'Płytki ścienne', RATE: '48.50', QTY: 12 }, { NAME: 'Zaprawa klejowa', RATE: '32.00', QTY: 4 }] },
      { PRJ_ID: '1042', VENDOR_ID: '56', DUE_DATE: '2026-03-19T00:00:00', INVOICE_DATE: '2026-03-05T00:00:00', ITEMS: [{ NAME: 'Żłób kablowy', RATE: '480.00', QTY: 1 }] },
    ],
    report: valid(2, 3, 4), notes: ['read as Windows-1250'],
  },
  {
    name: 'UTF-16 LE without a byte order mark (tabs, CRLF): its zero bytes say so, read without a flag',
    import: 'estimates', file: 'reading/utf16le-no-bom-estimate.txt',
    exit: 0, payloads: [KITCHEN_TWO_LINES], report: valid(2, 3), notes: ['read as UTF-16 LE'],
  },
  {
    name: 'a Mac Roman file whose only accent is "où" reads plausibly in Windows-1250 too: it stops, showing the word in each',
    import: 'estimates', file: 'reading/excel-mac-ou.csv',
    exit: 2,
    stop: 'excel-mac-ou.csv:2 column 59: the file is not UTF-8, and it reads plausibly in more than one encoding: "oť" in Windows-1250 or "où" in Mac Roman. Pass the one it was saved in: --encoding windows-1250 or --encoding macintosh.',
  },
  {
    name: 'the same file with --encoding macintosh (a WHATWG label) is read as Mac Roman',
    import: 'estimates', file: 'reading/excel-mac-ou.csv', args: ['--encoding', 'macintosh'],
    exit: 0,
    payloads: [oneCategory('Kitchen remodel', 'Demolition', ['Disposal', { NAME: 'Dumpster', DESCRIPTION: 'Benne, où possible', QTY: 1, UNIT_COST: 1250 }])],
    report: valid(2), notes: ['read as Mac Roman'],
  },
  {
    name: 'a Japanese Excel CSV in Shift_JIS reads plausibly in no single-byte encoding: it stops, asking for --encoding',
    import: 'estimates', file: 'reading/excel-ja-mitsumori.csv',
    exit: 2,
    stop: 'excel-ja-mitsumori.csv:2 column 6: the file is not UTF-8, and it reads plausibly in none of Windows-1252, Windows-1250 and Mac Roman: ' +
      '"\u2018\u00e4\\u008f\u0160\u2030\u00fc\\u008fC" in Windows-1252, "\u2018\u00e4\u0179\u0160\u2030\u00fc\u0179C" in Windows-1250 or "\u00eb\u2030\u00e8\u00e4\u00e2\u00b8\u00e8C" in Mac Roman. ' +
      'Pass the encoding it was saved in with --encoding LABEL (a WHATWG label such as shift_jis, gb18030 or windows-1251), or save it again as "CSV UTF-8".',
  },

  // ── delimiters and formats that are no table (issue 35) ──
  {
    name: 'a LibreOffice CSV delimited by "|" (UTF-8, LF; a "|" inside a quoted cell) is found and read; commas in the descriptions are text',
    import: 'estimates', file: 'reading/libreoffice-pipe-estimate.csv',
    exit: 0,
    payloads: [oneCategory(
      'Kitchen remodel', 'Demolition',
      ['Labor', { NAME: 'Crew day', DESCRIPTION: 'walls, ceiling, floor', QTY: 2, UNIT_COST: 640 }],
      ['Disposal', { NAME: 'Dumpster', DESCRIPTION: '10 yd | swap, haul', QTY: 1, UNIT_COST: 1250 }],
    )],
    report: valid(2, 3),
  },
  {
    name: 'the "|" file with --delimiter , stops saying the file is delimited by "|", never advising to map the unsplit header',
    import: 'estimates', file: 'reading/libreoffice-pipe-estimate.csv', args: ['--delimiter', ','],
    exit: 2,
    stop: 'libreoffice-pipe-estimate.csv: read with the delimiter given, ",", no row is the header row; the file is delimited by "|" (line 1 is then the header row): use --delimiter pipe.',
  },
  {
    name: 'a QuickBooks IIF file (!TRNS, !SPL) stops naming the format and what to export instead, never suggesting DOCNUM as a column',
    import: 'bills', file: 'reading/quickbooks-bills.iif', args: ['--mapping', 'quickbooks'],
    exit: 2,
    stop: 'quickbooks-bills.iif is a QuickBooks IIF file (its first line starts !TRNS; lines !TRNS and !SPL describe transactions and their splits): an import format of QuickBooks Desktop, not a table with a header row. ' +
      'Export the bills from QuickBooks as a report instead (Reports > Vendors & Payables > Unpaid Bills Detail, or Transaction List by Vendor; then Excel > Create New Worksheet > Create a comma separated values (.csv) file) and import that CSV with --mapping quickbooks.',
  },
  {
    name: 'the Polish Windows-1250 file read with --encoding cp1252: its header names fewer of the mapping\'s columns than in Windows-1250, and the stop says so, never advising to map "Termin p³atnoœci"',
    import: 'bills', file: 'reading/excel-pl-faktury.csv', args: ['--mapping', 'excel-pl-mapping.json', '--encoding', 'cp1252'],
    exit: 2,
    stop: 'excel-pl-faktury.csv:1: read as Windows-1252, the header row names fewer columns than read as Windows-1250 ("Termin płatności", not "Termin p³atnoœci"): use --encoding windows-1250.',
  },

  // ── numbers as programs write them (issue 35) ──
  {
    name: 'a Sage Estimating export with prices to three decimals: 1,250.000 proves ".", so 4.850 is 4.85 and 12.375 is 12.375',
    import: 'estimates', file: 'reading/sage-estimating-export.csv', args: ['--mapping', 'sage-estimating-mapping.json'],
    exit: 0,
    payloads: [{
      NAME: 'Warehouse addition', PROJECT_ID: 1042,
      CATS: [
        { NAME: 'Sitework', SUBCATS: [{ NAME: 'Earthwork', ITEMS: [{ NAME: 'Excavation, machine', UNIT: 'cy', QTY: 120, UNIT_COST: 4.85 }, { NAME: 'Backfill and compact', UNIT: 'cy', QTY: 85, UNIT_COST: 12.375 }] }] },
        { NAME: 'Concrete', SUBCATS: [{ NAME: 'Footings', ITEMS: [{ NAME: 'Footing concrete, 3000 psi', UNIT: 'cy', QTY: 14.5, UNIT_COST: 1250 }] }] },
      ],
    }],
    report: valid(2, 3, 4),
  },
  {
    name: 'a Spanish Excel CSV in Windows-1252 (;, CRLF) is read as 1252 with no stop; 42,50 proves ",", so 1.250 m² is 1250',
    import: 'estimates', file: 'reading/excel-es-presupuesto.csv',
    exit: 0,
    payloads: [{
      NAME: 'Reforma baño', PROJECT_ID: 1042,
      CATS: [
        { NAME: 'Albañilería', SUBCATS: [{ NAME: 'Alicatado', ITEMS: [{ NAME: 'Azulejo cerámico', UNIT: 'm²', QTY: 1250, UNIT_COST: 42.5 }] }] },
        { NAME: 'Fontanería', SUBCATS: [{ NAME: 'Instalación', ITEMS: [{ NAME: 'Grifería monomando', UNIT: 'ud', QTY: 3, UNIT_COST: 185 }] }] },
      ],
    }],
    report: valid(2, 3), notes: ['read as Windows-1252'],
  },
  {
    name: 'an Indian Excel "CSV UTF-8" in an INR account: ₹1,23,456.78 (Indian grouping) is 123456.78',
    import: 'estimates', file: 'reading/excel-in-estimate.csv', env: { BUILDSYNC_CURRENCY: 'INR' },
    exit: 0,
    payloads: [oneCategory('Kitchen remodel', 'Civil', ['Structure', { NAME: 'RCC slab', UNIT: 'lot', QTY: 1, UNIT_COST: 123456.78 }], ['Finishes', { NAME: 'Vitrified tiles', UNIT: 'lot', QTY: 1, UNIT_COST: 45000 }])],
    report: valid(2, 3),
  },
  {
    name: 'the Japanese Shift_JIS file with --encoding shift_jis: full-width digits and signs (１２．５, －５０) read as their ASCII forms',
    import: 'estimates', file: 'reading/excel-ja-mitsumori.csv', args: ['--encoding', 'shift_jis'],
    exit: 0,
    payloads: [oneCategory('台所改修', '解体', ['人工', { NAME: '作業員', UNIT: '人日', QTY: 12.5, UNIT_COST: 640, ADJUSTMENT: -50 }], ['処分', { NAME: 'コンテナ', UNIT: '式', QTY: 1, UNIT_COST: 1250 }])],
    report: valid(2, 3), notes: ['read as Shift_JIS'],
  },
  {
    name: 'a Canadian French Excel CSV (Windows-1252, ;) in a CAD account: "850,00 $" and "1 250,00 $" (a no-break space) are 850 and 1250',
    import: 'estimates', file: 'reading/excel-fr-ca-estimation.csv', env: { BUILDSYNC_CURRENCY: 'CAD' },
    exit: 0,
    payloads: [oneCategory('Rénovation cuisine', 'Démolition', ["Main-d'œuvre", { NAME: "Journée d'équipe", UNIT: 'jour', QTY: 2, UNIT_COST: 850 }], ['Évacuation', { NAME: 'Conteneur', UNIT: 'forfait', QTY: 1, UNIT_COST: 1250 }])],
    report: valid(2, 3), notes: ['read as Windows-1252'],
  },
  {
    name: 'a Google Sheets CSV with #N/A in a cost code: a row error (its estimate is not sent), never the text "#N/A"',
    import: 'estimates', file: 'reading/google-sheets-na.csv',
    exit: 1,
    payloads: [{ NAME: 'Bath remodel', PROJECT_ID: 1043, CATS: [{ NAME: 'Demolition', SUBCATS: [{ NAME: 'Disposal', ITEMS: [{ NAME: 'Dumpster', COST_CODE: '02-410', QTY: 1, UNIT_COST: 1250 }] }] }] }],
    report: [
      invalid(2, 'google-sheets-na.csv:2 column cost_code: "#N/A" is the error value a spreadsheet saved in place of a formula\'s result (a lookup found no match, or a value is not available), not a value; fix the formula or type the value, then save the file again'),
      ...valid(3),
    ],
  },

  // ── title blocks, footers, header rows (CSV) ──
  {
    name: 'an estimate report with a title block, spaced headers ("Project ID") and a "Page 1 of 1" footer; cost code 0310 stays text',
    import: 'estimates', file: 'reading/estimate-report-titled.csv',
    exit: 0,
    payloads: [{
      NAME: 'Kitchen remodel',
      PROJECT_ID: 1042,
      CATS: [{ NAME: 'Cabinets', SUBCATS: [{ NAME: 'Uppers', ITEMS: [{ NAME: 'Crown', COST_CODE: '0310', UNIT: 'lf', QTY: 10, UNIT_COST: 15 }, { NAME: 'Hinge', COST_CODE: '0310', UNIT: 'ea', QTY: 24, UNIT_COST: 4.25 }] }] }],
    }],
    report: [...title('line 5', 1, 2, 3), ...valid(6, 7), footer(9)],
    ignored: 'title 3, footer 1',
  },
  {
    name: 'a row of group headings above the header row is a title line',
    import: 'estimates', file: 'reading/two-row-header.csv',
    exit: 0,
    payloads: [{ NAME: 'Kitchen remodel', PROJECT_ID: 1042, CATS: [{ NAME: 'Demolition', SUBCATS: [{ NAME: 'Labor', ITEMS: [{ NAME: 'Crew day', QTY: 2, UNIT_COST: 640 }] }] }] }],
    report: [...title('line 2', 1), ...valid(3)],
    ignored: 'title 1',
  },
  {
    name: 'a row short of its keys before the footer stays a row error; the note under the blank row is the footer',
    import: 'estimates', file: 'reading/footer-after-short-row.csv',
    exit: 1,
    payloads: [{ NAME: 'Kitchen remodel', PROJECT_ID: 1042, CATS: [{ NAME: 'Demolition', SUBCATS: [{ NAME: 'Labor', ITEMS: [{ NAME: 'Crew day', QTY: 2 }] }] }] }],
    report: [
      ...valid(2),
      invalid(3, 'footer-after-short-row.csv:3 column estimate_name: the estimate name is missing: every row needs estimate_name; footer-after-short-row.csv:3 column category: category is required on a line row; a row without category must be a markup row with markup_name'),
      footer(5),
    ],
    ignored: 'footer 1',
  },
  {
    name: 'no row has every required column: the stop names the closest row and what it lacks, never the title as a column',
    import: 'estimates', file: 'reading/no-header-row.csv',
    exit: 2,
    stop:
      'no-header-row.csv:2: missing column: project_id (or project_number / project_name). No row of the first 3 has every required column; line 2 comes closest. ' +
      'Line 2 has unknown column "project". Did you mean: "project" → project_name? To read it so, pass --mapping MAP.json with {"columns": {"project": "project_name"}}; to skip it, {"ignore": ["project"]}. ' +
      `${KNOWN_ESTIMATE_COLUMNS} If the header row is another line, name it with --header-row N.`,
  },
  {
    name: 'a bid form whose header row comes after 31 rows of terms stops: no header row within the first 30 rows',
    import: 'estimates', file: 'reading/bid-form-long-preamble.csv',
    exit: 2,
    stop:
      'bid-form-long-preamble.csv:1: missing columns: project_id (or project_number / project_name); estimate_name. No row of the first 30 has every required column; line 1 comes closest. ' +
      'Line 1 has "Bid form: Kitchen remodel (1042)"; rename a header, or map it with --mapping MAP.json ({"columns": {"<header>": "<column>"}}). If the header row is another line, name it with --header-row N.',
  },
  {
    name: 'the same bid form with "headerRow": 34 in the mapping file: every line above is a title line',
    import: 'estimates', file: 'reading/bid-form-long-preamble.csv', args: ['--mapping', 'bid-form-mapping.json'],
    exit: 0, payloads: [KITCHEN_TWO_LINES], report: [...title('line 34', 1, 2, ...range(4, 32)), ...valid(35, 36)], ignored: 'title 31',
  },
  {
    name: 'a CSV number of 17 significant digits is a row error; the other estimate is read',
    import: 'estimates', file: 'reading/sixteen-digits.csv',
    exit: 1,
    payloads: [{ NAME: 'Bath refresh', PROJECT_ID: 1077, CATS: [{ NAME: 'Tile', SUBCATS: [{ NAME: 'Labor', ITEMS: [{ NAME: 'Wall tile', QTY: 40, UNIT_COST: 12 }] }] }] }],
    report: [
      invalid(2, 'sixteen-digits.csv:2 column unit_cost: "1234567890123456.5" has 17 significant digits; a number keeps 15 (as Excel does), so the last ones would be lost. Check the value, or write it with 15 digits or fewer'),
      ...valid(3),
    ],
  },

  // ── workbooks LibreOffice wrote ──
  {
    name: 'a two-row header (group headings merged across columns) in an .xlsx; markups formatted 0% are the percentages',
    import: 'estimates', file: 'workbooks/estimate-two-row-header.xlsx',
    exit: 0,
    payloads: [
      oneCategory(
        'Kitchen remodel', 'Demolition',
        ['Labor', { NAME: 'Crew day', QTY: 2, UNIT_COST: 640, LINE_ITEM_MARKUP: 15 }],
        ['Disposal', { NAME: 'Dumpster', QTY: 1, UNIT_COST: 1250, LINE_ITEM_MARKUP: 10 }],
      ),
    ],
    report: [...title('row 2', 1), ...valid(3, 4)],
    ignored: 'title 1',
  },
  {
    name: 'an .xlsx with a title block and a note under a blank row; refs formatted 0000 keep their zeros; dd/mm/yyyy date cells',
    import: 'bills', file: 'workbooks/bills-titled.xlsx',
    exit: 0,
    payloads: [
      { PRJ_ID: '1042', VENDOR_ID: '55', INVOICE_DATE: '2026-03-14T00:00:00', ITEMS: [{ NAME: 'Framing lumber', RATE: '1250.00', QTY: 1 }, { NAME: 'Delivery', RATE: '75.00', QTY: 1 }] },
      { PRJ_ID: '1042', VENDOR_ID: '56', INVOICE_DATE: '2026-03-02T00:00:00', ITEMS: [{ NAME: 'Rough-in wiring', RATE: '240.00', QTY: 2 }] },
    ],
    report: [...title('row 4', 1, 2), ...valid(5, 6, 7), footer(9)],
    ignored: 'title 2, footer 1',
  },
  {
    name: 'a row hidden by hand stops, naming it',
    import: 'bills', file: 'workbooks/bills-hidden-row.xlsx',
    exit: 2,
    stop: `bills-hidden-row.xlsx: sheet "Bills" holds what its reader does not see: hidden row 3. ${HIDDEN_HOW}`,
  },
  {
    name: '--hidden skip leaves the hidden row out, reported ignored (hidden)',
    import: 'bills', file: 'workbooks/bills-hidden-row.xlsx', args: ['--hidden', 'skip'],
    exit: 0,
    payloads: [{ PRJ_ID: '1042', VENDOR_ID: '55', ITEMS: [{ NAME: 'Ready-mix', RATE: '1250.00', QTY: 6 }, { NAME: 'Washout', RATE: '60.00', QTY: 1 }] }],
    report: [...valid(2), ['3', 'ignored', 'hidden row: not read (--hidden skip)'], ...valid(4)],
    ignored: 'hidden 1',
  },
  {
    name: 'merged keys fill their rows; an amount merged over two rows is a row error on each; the vendor list and the hidden sheet are not read',
    import: 'bills', file: 'workbooks/bills-merged.xlsx',
    exit: 1,
    payloads: [{ PRJ_ID: '1042', VENDOR_ID: '55', ITEMS: [{ NAME: 'Ready-mix', RATE: '1250.00', QTY: 6 }, { NAME: 'Pump truck', RATE: '480.00', QTY: 1 }] }],
    report: [
      ...valid(2, 3),
      ...[4, 5].map((row) =>
        invalid(row, `bills-merged.xlsx:${row} column rate (Bills!F${row}): Bills!F4:F5 is one cell merged over rows 4 to 5 holding "75" in the numeric field rate: a lump sum is not repeated on each row. Unmerge it and put the amount on one row, or split it over the rows`),
      ),
    ],
  },
  {
    name: 'two sheets with a table stop, listing both with their rows and naming the active one',
    import: 'estimates', file: 'workbooks/estimate-revisions.xlsx', args: ['--mapping', 'estimate-revisions-mapping.json'],
    exit: 2,
    stop:
      'estimate-revisions.xlsx has 2 sheets with a table: "Rev A (superseded)" (3 rows), "Rev B" (5 rows). "Rev A (superseded)" was the active sheet when the workbook was saved. ' +
      'Pass --sheet NAME to read one of them (--sheet "Rev A (superseded)"), or --sheet all to read every one.',
  },
  {
    name: '--sheet "Rev B" stops on its hidden row, its filtered row and the hidden column the mapping reads',
    import: 'estimates', file: 'workbooks/estimate-revisions.xlsx', args: ['--sheet', 'Rev B', '--mapping', 'estimate-revisions-mapping.json'],
    exit: 2,
    stop: `estimate-revisions.xlsx: sheet "Rev B" holds what its reader does not see: hidden row 6; row 4 hidden by the filter; hidden column H "Old adjustments". ${HIDDEN_HOW}`,
  },
  {
    name: '--sheet "Rev B" --hidden skip: merged project and category fill their rows, the hidden rows are ignored, the hidden column is empty',
    import: 'estimates', file: 'workbooks/estimate-revisions.xlsx', args: ['--sheet', 'Rev B', '--hidden', 'skip', '--mapping', 'estimate-revisions-mapping.json'],
    exit: 0,
    payloads: [{
      NAME: 'Kitchen remodel',
      PROJECT_ID: 1042,
      CATS: [
        { NAME: 'Demolition', SUBCATS: [{ NAME: 'Labor', ITEMS: [{ NAME: 'Crew day', QTY: 2, UNIT_COST: 640 }] }, { NAME: 'Disposal', ITEMS: [{ NAME: 'Dumpster', QTY: 1, UNIT_COST: 1250 }] }] },
        { NAME: 'Framing', SUBCATS: [{ NAME: 'Labor', ITEMS: [{ NAME: 'Headers', QTY: 1, UNIT_COST: 300 }] }] },
      ],
    }],
    report: [...valid(2, 3), ['4', 'ignored', 'row hidden by the filter: not read (--hidden skip)'], ...valid(5), ['6', 'ignored', 'hidden row: not read (--hidden skip)']],
    ignored: 'hidden 2',
  },
  {
    name: '--sheet all: lines are Sheet!row, a record in both sheets is a row error, the other is read',
    import: 'estimates', file: 'workbooks/estimate-revisions.xlsx', args: ['--sheet', 'all', '--hidden', 'skip', '--mapping', 'estimate-revisions-mapping.json'],
    exit: 1,
    payloads: [{ NAME: 'Bath refresh', PROJECT_ID: 1077, CATS: [{ NAME: 'Tile', SUBCATS: [{ NAME: 'Labor', ITEMS: [{ NAME: 'Wall tile', QTY: 40, UNIT_COST: 12 }] }] }] }],
    report: [
      ["'Rev A (superseded)'!2", 'invalid', IN_TWO_SHEETS],
      ["'Rev A (superseded)'!3", 'invalid', IN_TWO_SHEETS],
      ["'Rev A (superseded)'!4", 'skipped', VALID],
      ["'Rev B'!2", 'invalid', IN_TWO_SHEETS],
      ["'Rev B'!3", 'invalid', IN_TWO_SHEETS],
      ["'Rev B'!4", 'ignored', 'row hidden by the filter: not read (--hidden skip)'],
      ["'Rev B'!5", 'invalid', IN_TWO_SHEETS],
      ["'Rev B'!6", 'ignored', 'hidden row: not read (--hidden skip)'],
    ],
    ignored: 'hidden 2',
  },
  {
    name: 'sheet-facts: a filtered row skipped, a merged category filled, #,##0.00 read as its number, a note under a blank row the footer',
    import: 'estimates', file: 'workbooks/sheet-facts.xlsx', args: ['--sheet', 'Estimates', '--hidden', 'skip', '--mapping', 'sheet-facts-mapping.json'],
    exit: 0,
    payloads: [{ NAME: 'Facts', PROJECT_ID: 1042, CATS: [{ NAME: 'Demolition', SUBCATS: [{ NAME: 'Walls', UNIT_COST: 1234.5 }, { NAME: 'Floors' }] }, { NAME: 'Framing', SUBCATS: [{ NAME: 'Studs' }] }] }],
    report: [...valid(2, 3), ['4', 'ignored', 'row hidden by the filter: not read (--hidden skip)'], ...valid(5), footer(7)],
    ignored: 'footer 1, hidden 1',
  },
  {
    name: 'cells read as they show: 0000 and 00-000 codes, 15% and 8.25% markups, =100*1.15 as 115, a 12-digit code, a markup row of 10%',
    import: 'estimates', file: 'workbooks/cell-shows-estimate.xlsx',
    exit: 0,
    payloads: [{
      NAME: 'Kitchen',
      PROJECT_ID: 1042,
      CATS: [{ NAME: 'Cabinets', SUBCATS: [{ NAME: 'Uppers', ITEMS: [
        { NAME: 'Crown', COST_CODE: '0310', UNIT: 'lf', QTY: 10, RATE: 115, LINE_ITEM_MARKUP: 15 },
        { NAME: 'Hinge', COST_CODE: '02-410', UNIT: 'ea', QTY: 24, RATE: 4.25, LINE_ITEM_MARKUP: 8.25 },
        { NAME: 'Pull', COST_CODE: '123456789012', UNIT: 'ea', QTY: 24, RATE: 3.5, LINE_ITEM_MARKUP: 15 },
      ] }] }],
      COMS: [{ NAME: 'Overhead', VALUE: 10 }],
    }],
    report: valid(2, 3, 4, 5),
  },
  {
    name: 'date cells in a subcategory and a unit, a 20-digit quantity and a percent quantity are row errors naming the column',
    import: 'estimates', file: 'workbooks/cell-shows-refused.xlsx',
    exit: 1,
    payloads: [{ NAME: 'Shed', PROJECT_ID: 2005, CATS: [{ NAME: 'Roof', SUBCATS: [{ NAME: 'Felt', ITEMS: [{ NAME: 'Roll', UNIT: 'ea', QTY: 2, RATE: 31 }] }] }] }],
    report: [
      invalid(2, `cell-shows-refused.xlsx:2 ${EXCEL_DATE('subcategory (Estimate!D2)', '2026-03-04')}`),
      invalid(3, `cell-shows-refused.xlsx:3 ${EXCEL_DATE('unit (Estimate!F3)', '2026-01-02')}`),
      invalid(4, 'cell-shows-refused.xlsx:4 column qty (Estimate!G4): the number 12345678901234600000 has more than 15 digits; a spreadsheet keeps 15 significant digits (Excel shows it as 1.23457E+19), so its last digits are already lost. Check the value; if it is a code or a reference, type it as text (format the column as Text first)'),
      invalid(5, 'cell-shows-refused.xlsx:5 column qty (Estimate!G5): this cell is formatted as a percent: it shows 50% (the number 0.5), and this column is not a percentage. Type the number it means without the percent format'),
      ...valid(6),
    ],
  },
  {
    name: 'UK bills: dd/mm/yyyy date cells prove day first for the text dates; a 12-digit invoice number, =100*1.15 and 8.25% as shown',
    import: 'bills', file: 'workbooks/cell-shows-uk-bills.xlsx',
    exit: 0,
    payloads: [
      { PRJ_ID: '10008', VENDOR_ID: '55', DUE_DATE: '2026-04-03T00:00:00', INVOICE_DATE: '2026-03-02T00:00:00', ITEMS: [{ NAME: 'Ready-mix', RATE: '115.00', TAX_PERCENT: 8.25, QTY: 6 }, { NAME: 'Pump hire', RATE: '450.00', TAX_PERCENT: 20, QTY: 1 }] },
      { PRJ_ID: '10008', VENDOR_ID: '56', DUE_DATE: '2026-05-01T00:00:00', INVOICE_DATE: '2026-03-09T00:00:00', ITEMS: [{ NAME: 'Rebar', RATE: '812.40', QTY: 1 }] },
    ],
    report: valid(2, 3, 4),
  },

  // ── a workbook as Excel writes it: saved with its second tab active ──
  {
    name: 'two candidate sheets saved with the second tab active stop, naming that one; a notes sheet and a hidden one are no candidates',
    import: 'estimates', file: { name: 'bid-revisions.xlsx', write: bidRevisions },
    exit: 2,
    stop:
      'bid-revisions.xlsx has 2 sheets with a table: "Bid (superseded)" (1 row), "Bid" (2 rows). "Bid" was the active sheet when the workbook was saved. ' +
      'Pass --sheet NAME to read one of them (--sheet "Bid"), or --sheet all to read every one.',
  },
];

/** Four tabs: an old bid, notes, the current bid (active when saved), a hidden price list with a header row. */
function bidRevisions(path: string): void {
  const cell = (ref: string, v: string | number) => (typeof v === 'number' ? `<c r="${ref}"><v>${v}</v></c>` : `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(v)}</t></is></c>`);
  const row = (r: number, values: Array<string | number>) => `<row r="${r}">${values.map((v, i) => cell(`${'ABCDEFG'[i]}${r}`, v)).join('')}</row>`;
  const header = row(1, ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost']);
  writeExcelXlsx(path, {
    sheets: [
      { name: 'Bid (superseded)', rows: header + row(2, [1042, 'Kitchen remodel', 'Demolition', 'Labor', 'Crew day', 2, 600]) },
      { name: 'Notes', rows: row(1, ['Sent to the client on 3 March']) },
      { name: 'Bid', rows: header + row(2, [1042, 'Kitchen remodel', 'Demolition', 'Labor', 'Crew day', 2, 640]) + row(3, [1042, 'Kitchen remodel', 'Demolition', 'Disposal', 'Dumpster', 1, 1250]) },
      { name: 'Prices', state: 'hidden', rows: header + row(2, [1042, 'Price list', 'Demolition', 'Labor', 'Crew day', 1, 320]) },
    ],
    activeTab: 2,
  });
}
