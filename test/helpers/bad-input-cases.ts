/**
 * The bad-input corpus (issue 11, the README): what bad input gets.
 *
 * One table: each case is one FILE (a small committed fixture from test/fixtures/bad-input/, or a
 * file generated at test time into the case's temp folder when it is large or an .xlsx), the
 * command a user would type, and what the README says must come of it. The expectations are the
 * contract's, not the current code's. test/bad-input-corpus.test.ts runs every case through the
 * CLI as a child process and checks it; generators and builders follow the table.
 *
 * Project ids: the fixtures use 10008, 10009 and 10013, three projects of the sandbox's seeded data
 * set that hold no estimate yet (the test checks that they still are), so every fixture can be
 * imported for real against a fresh sandbox. Vendor 55 is a sandbox vendor.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { STYLE, writeExcelXlsx, xmlEscape, type ExcelSheet } from './excel-xml.ts';
import { runCli, type CliResult } from './cli.ts';

export type Status = 'created' | 'exists' | 'invalid' | 'failed' | 'skipped' | 'unknown';

export interface BadInputCase {
  /** The behaviour, as a sentence. */
  name: string;
  /** `buildsync import estimates|bills`. */
  import: 'estimates' | 'bills';
  /** Writes FILE (and anything it needs) into the case's own folder and returns FILE's path. */
  file: (dir: string) => string | Promise<string>;
  /** Flags after FILE. `--dry-run` is added unless the case runs through the queue. */
  flags?: (dir: string) => string[];
  /** `dry-run` (default): reading only, no Redis, no service, no credentials. `queue`: the real
   * import through BullMQ against a fresh sandbox over HTTP, to see what was sent. */
  via?: 'dry-run' | 'queue';
  /** README, Commands: 0 done; 1 some rows invalid; 2 file-level problem or limit, nothing sent. */
  exit: 0 | 1 | 2;
  /** Every line of the report, in order, as [line, status]; checked whenever the exit is 0 or 1. */
  rows?: Array<[number, Status]>;
  /** Each must match what the user is told (stdout, stderr and the report's messages). */
  says?: RegExp[];
  /** Where the message must point: every line in `line`, at least one of `anyLine`, the column. */
  where?: { line?: number | number[]; anyLine?: number[]; column?: RegExp };
  /** Each must match stdout (the payloads of `--print-payloads`). */
  stdout?: RegExp[];
  /** None may match stdout or stderr. */
  never?: RegExp[];
  /** None may match stdout (what would be sent). */
  neverSent?: RegExp[];
  /** Must match stdout + stderr exactly once. */
  once?: RegExp;
  /** Every line printed is shorter than 1,000 characters. */
  shortLines?: boolean;
  /** Queue cases: POSTs the sandbox received and the projects that now hold a record (exit 2: none). */
  sent?: { posts: number; projects: number[] };
  /** Variables added to the CLI's environment (an account's settings). */
  env?: Record<string, string>;
  /** Run the CLI as uid/gid 65534 (root reads any file). */
  asNobody?: boolean;
}

// ───────────────────────────── the table ─────────────────────────────

const printPayloads = () => ['--print-payloads'];
const skipped = (...lines: number[]) => lines.map((l): [number, Status] => [l, 'skipped']);
/** A bill's Info field in the printed wire form (README, import bills: strings, two-decimal RATE). */
const wire = (field: string, text: string) => new RegExp(`"${field}":\\s*"${text.replace(/[.$]/g, '\\$&')}"`);
/** The unknown-column error proposes `column` for `header` (not merely lists every known column). */
const proposes = (header: string, column: string) =>
  new RegExp(
    `(did you mean|perhaps|maybe|probably|likely|looks like|close to|similar to|instead of|suggest)[^\\n]{0,80}\\b${column}\\b(?!_)` +
      `|"?${header}"?\\s*(→|->|=>|\\(|:)\\s*(did you mean\\s*)?"?${column}\\b(?!_)`,
    'i',
  );
const quotes = (value: string) => new RegExp(value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
const MB200 = 200 * 1024 * 1024;
/** The 1,000-column limit, named as a number (the generated files' names hold no digits). */
const THOUSAND_COLUMNS = /\b1,?000\b[^\n]{0,40}columns?|columns?[^\n]{0,40}\b1,?000\b/i;
const EST_HEADER = 'project_id,estimate_name,category,subcategory,item,qty,unit_cost';
const KITCHEN = '10008,Kitchen remodel,General,Labor,Crew day,2,640';

export const BAD_INPUT_CASES: BadInputCase[] = [
  // ── empty and nearly empty files ──
  { name: 'an empty (0-byte) file stops, naming the file', import: 'estimates', file: fixture('empty.csv'), exit: 2, says: [/empty/i] },
  { name: 'a file of blank lines only stops: there is no header', import: 'estimates', file: fixture('blank-lines-only.csv'), exit: 2, says: [/empty|blank|no header|no column names/i] },
  { name: 'a header with no data rows exits 0 and says so', import: 'estimates', file: fixture('header-only.csv'), exit: 0, rows: [], says: [/no data rows|no rows|header only|only a header|nothing to import/i] },

  // ── encodings (docs/reading-rules.md "Files") ──
  { name: 'a UTF-8 file with a BOM reads its header and accents right', import: 'estimates', file: fixture('utf8-bom.csv'), flags: printPayloads, exit: 0, rows: skipped(2, 3), stdout: [/"Café crew"/], never: [/Ã/] },
  { name: 'a UTF-16 LE file with a BOM (Excel "Unicode text", tab-delimited) reads right', import: 'estimates', file: fixture('utf16le-bom-tabs.csv'), flags: printPayloads, exit: 0, rows: skipped(2, 3), stdout: [/"Café crew"/] },
  { name: 'a UTF-16 BE file with a BOM reads right', import: 'estimates', file: fixture('utf16be-bom.csv'), flags: printPayloads, exit: 0, rows: skipped(2, 3), stdout: [/"Café crew"/] },
  { name: 'a UTF-16 LE file without a BOM reads right: its zero bytes say UTF-16 LE', import: 'estimates', file: fixture('utf16le-no-bom.csv'), flags: printPayloads, exit: 0, rows: skipped(2, 3), stdout: [/"Café crew"/], says: [/read as UTF-16 LE/] },
  { name: 'a UTF-16 LE file without a BOM reads right with --encoding utf16le', import: 'estimates', file: fixture('utf16le-no-bom.csv'), flags: () => ['--encoding', 'utf16le', '--print-payloads'], exit: 0, rows: skipped(2, 3), stdout: [/"Café crew"/] },
  { name: 'a UTF-8 file with one stray Windows-1252 byte stops, naming line and column, never mojibake', import: 'estimates', file: fixture('mojibake-stray-byte.csv'), exit: 2, says: [/UTF-8|encoding|byte/i], where: { line: 3, column: /\bitem\b|column\s*#?(5|39)\b/i }, never: [/Ã©/] },
  { name: 'a Windows-1252 file with no UTF-8 at all reads its accents right', import: 'estimates', file: fixture('windows-1252.csv'), flags: printPayloads, exit: 0, rows: skipped(2, 3), stdout: [/"Café crew"/], never: [/Ã|\uFFFD/] },
  { name: 'a binary file renamed .csv stops as not a table', import: 'estimates', file: fixture('binary-renamed.csv'), exit: 2, says: [/binary|not a (text|csv|table)|not text|cannot be read as|unreadable/i] },
  { name: 'NUL bytes in a cell stop, naming line and column', import: 'estimates', file: fixture('nul-bytes.csv'), exit: 2, says: [/NUL|null byte|zero byte|0x00|\\0/i], where: { line: 3, column: /\bitem\b|column\s*#?(5|\d\d)\b/i } },

  // ── CSV structure ──
  { name: 'CR-only line ends (classic Mac) read as lines, numbered right', import: 'estimates', file: fixture('cr-only.csv'), exit: 1, rows: [[2, 'skipped'], [3, 'invalid'], [4, 'skipped']], says: [/abc/], where: { line: 3, column: /\bqty\b/ } },
  { name: 'an unbalanced quote in a row stops, naming the line where the quote opened', import: 'estimates', file: fixture('unbalanced-quote-row.csv'), exit: 2, says: [/quote/i], where: { line: 3, column: /estimate_name|column\s*#?2\b/i } },
  { name: 'an unbalanced quote in the header stops, naming line 1', import: 'estimates', file: fixture('unbalanced-quote-header.csv'), exit: 2, says: [/quote/i], where: { line: 1, column: /estimate_name|column\s*#?2\b/i } },
  { name: 'newlines inside quoted cells are read, and later rows keep their own line numbers', import: 'estimates', file: fixture('embedded-newlines.csv'), exit: 1, rows: [[2, 'skipped'], [5, 'invalid'], [7, 'skipped']], says: [/eighty/], where: { line: 5, column: /\bqty\b/ } },
  { name: 'two headers that are the same column stop, naming both', import: 'estimates', file: fixture('duplicate-headers.csv'), exit: 2, says: [/duplicate|same column|twice|more than once/i], where: { line: 1, column: /qty[\s\S]*Qty|Qty[\s\S]*qty/ } },
  { name: 'a missing required column stops, naming it', import: 'estimates', file: fixture('missing-required-column.csv'), exit: 2, says: [/estimate_name/, /missing|required|needs/i] },
  { name: 'an extra cell beyond the header stops, naming its line and position (never dropped)', import: 'estimates', file: fixture('extra-cells.csv'), exit: 2, where: { line: 3, column: /(column|cell|position|field)\s*#?(8|H)\b|\b8(th)? (cells|values|fields|columns)|\bH3\b/i } },
  { name: 'a row with missing cells stops, naming its line (a broken row, as psql COPY treats it)', import: 'estimates', file: fixture('missing-cells.csv'), exit: 2, where: { line: 3, column: /\bqty\b|\bunit_cost\b|column\s*#?6\b|\b5 (cells|values|fields)|\b7 (cells|values|fields|columns)/i } },
  { name: 'a column with an empty header name that holds a value stops, naming its position (never dropped)', import: 'estimates', file: fixture('empty-header-with-value.csv'), exit: 2, says: [/Phase 2/, /header|name/i], where: { line: 3, column: /column\s*#?3\b|\bC3?\b|third/i } },
  { name: 'a trailing column with no header and no values is fine (spreadsheets leave them)', import: 'estimates', file: fixture('empty-trailing-column.csv'), exit: 0, rows: skipped(2, 3) },
  { name: 'an unknown column UOM stops, proposing unit', import: 'estimates', file: fixture('unknown-column-uom.csv'), exit: 2, says: [proposes('UOM', 'unit')], where: { line: 1, column: /UOM/ } },
  { name: 'an unknown column "Unit Price" stops, proposing unit_cost', import: 'estimates', file: fixture('unknown-column-unit-price.csv'), exit: 2, says: [proposes('Unit Price', 'unit_cost')], where: { line: 1, column: /Unit Price/ } },
  { name: 'a mapping file naming a column the file does not have stops, naming it', import: 'estimates', file: fixture('mapping-absent-column.csv', 'mapping-absent-column.json'), flags: (d) => ['--mapping', join(d, 'mapping-absent-column.json')], exit: 2, says: [/Qty Ordered/, /mapping file|--mapping/i] },

  // ── amounts that are not numbers (row errors) ──
  ...(['NaN', 'Infinity', '1e309', '0x10', 'abc'] as const).map(
    (v): BadInputCase => ({ name: `an amount of ${v} is a row error naming line and column, the rest is read`, import: 'estimates', file: fixture(`amount-${{ NaN: 'nan', Infinity: 'infinity', '1e309': '1e309', '0x10': 'hex', abc: 'abc' }[v]}.csv`), exit: 1, rows: [[2, 'invalid'], [3, 'skipped']], says: [quotes(v)], where: { line: 2, column: /unit_cost/ } }),
  ),

  // ── dates (docs/reading-rules.md "Dates") ──
  { name: 'a ;-file with decimal commas and 03/02/2026 but no proof of order stops before sending, asking for --date-format', import: 'bills', via: 'queue', file: fixture('dates-no-proof-semicolon.csv'), exit: 2, says: [/--date-format/], where: { anyLine: [2, 3] }, sent: { posts: 0, projects: [] } },
  { name: 'the same file with --date-format DMY reads 03/02/2026 as 3 February', import: 'bills', file: fixture('dates-no-proof-semicolon.csv'), flags: () => ['--date-format', 'DMY', '--print-payloads'], exit: 0, rows: skipped(2, 3), stdout: [wire('INVOICE_DATE', '2026-02-03T00:00:00'), wire('DUE_DATE', '2026-03-04T00:00:00'), wire('RATE', '1250.00')] },
  { name: 'a ;-file whose 13/02/2026 proves day-first reads 03/02/2026 as 3 February', import: 'bills', file: fixture('dates-day-first-semicolon.csv'), flags: printPayloads, exit: 0, rows: skipped(2, 3), stdout: [wire('INVOICE_DATE', '2026-02-03T00:00:00'), wire('INVOICE_DATE', '2026-02-13T00:00:00')] },
  { name: 'a file proving both day-first and month-first stops, naming a line of each', import: 'bills', file: fixture('dates-both-proofs.csv'), exit: 2, says: [/--date-format/], where: { line: [2, 3] } },
  { name: 'a UK ,-file whose dates are all 12 or less stops before sending, asking for --date-format or BUILDSYNC_DATE_FORMAT, naming the line', import: 'bills', file: fixture('dates-uk-no-proof.csv'), exit: 2, says: [/--date-format/, /BUILDSYNC_DATE_FORMAT/, /03\/02\/2026/], where: { line: 2, column: /invoice_date/ } },
  { name: 'the same UK file with BUILDSYNC_DATE_FORMAT=DMY reads day first and says so once', import: 'bills', file: fixture('dates-uk-no-proof.csv'), env: { BUILDSYNC_DATE_FORMAT: 'DMY' }, flags: printPayloads, exit: 0, rows: skipped(2, 3), stdout: [wire('INVOICE_DATE', '2026-02-03T00:00:00'), wire('DUE_DATE', '2026-03-04T00:00:00'), wire('INVOICE_DATE', '2026-02-05T00:00:00'), wire('RATE', '1250.00')], once: /dates read day first, as BUILDSYNC_DATE_FORMAT says/ },
  { name: 'English month names (2 Mar 2026, "March 31, 2026", 9-Mar-2026) are read in any file', import: 'bills', file: fixture('dates-month-names.csv'), flags: printPayloads, exit: 0, rows: skipped(2, 3), stdout: [wire('INVOICE_DATE', '2026-03-02T00:00:00'), wire('DUE_DATE', '2026-03-31T00:00:00'), wire('INVOICE_DATE', '2026-03-09T00:00:00'), wire('DUE_DATE', '2026-04-08T00:00:00')], never: [/BUILDSYNC_DATE_FORMAT/] },
  { name: 'an impossible date 31/02/2026 is a row error naming line and column', import: 'bills', file: fixture('date-31-february.csv'), exit: 1, rows: [[2, 'invalid'], [3, 'skipped']], says: [/31\/02\/2026/], where: { line: 2, column: /invoice_date/ } },
  { name: 'an impossible date 2026-02-30 is a row error naming line and column', import: 'bills', file: fixture('date-february-30.csv'), exit: 1, rows: [[2, 'invalid'], [3, 'skipped']], says: [/2026-02-30/], where: { line: 2, column: /invoice_date/ } },

  // ── decimals and money (docs/reading-rules.md "Numbers", §4) ──
  { name: 'decimal commas 1.234,50 and 480,00 in a ;-file read as 1234.50 and 480.00', import: 'bills', file: fixture('decimal-commas-semicolon.csv'), flags: printPayloads, exit: 0, rows: skipped(2, 3), stdout: [wire('RATE', '1234.50'), wire('RATE', '480.00')] },
  { name: "a Swiss ;-file (1'234.50) proves the decimal point and reads 1234.50", import: 'bills', file: fixture('swiss-semicolon.csv'), flags: printPayloads, exit: 0, rows: skipped(2, 3), stdout: [wire('RATE', '1234.50'), wire('RATE', '480.00'), wire('INVOICE_DATE', '2026-03-02T00:00:00')] },
  { name: 'a ;-file with US amounts ("$1,234.50", "1,250.00") proves the decimal point and reads them', import: 'bills', file: fixture('us-amounts-semicolon.csv'), flags: printPayloads, exit: 0, rows: skipped(2, 3), stdout: [wire('RATE', '1234.50'), wire('RATE', '1250.00')] },
  { name: 'a file proving both decimal marks ("1,250.00" and "480,00") stops before sending, naming a line of each', import: 'bills', via: 'queue', file: fixture('decimal-both-proofs.csv'), exit: 2, says: [/--decimal-separator/, /1,250\.00/, /480,00/], where: { line: [2, 3], column: /\brate\b/ }, sent: { posts: 0, projects: [] } },
  { name: 'Excel accounting zero " $ -   ", "-" and "—" read as 0 in number fields; N/A stays a row error', import: 'estimates', file: fixture('accounting-zero.csv'), flags: printPayloads, exit: 1, rows: [[2, 'skipped'], [3, 'skipped'], [4, 'skipped'], [5, 'invalid']], stdout: [/"UNIT_COST":640[,}]/, /"UNIT_COST":0[,}]/, /"QTY":0[,}]/], says: [/N\/A/], where: { line: 5, column: /unit_cost/ } },
  { name: '2,500 in a ;-file whose 480,00 proves the decimal comma is read with it: RATE "2.50", never 2500', import: 'bills', file: fixture('decimal-comma-ambiguous.csv'), flags: printPayloads, exit: 0, rows: skipped(2, 3), stdout: [wire('RATE', '2.50'), wire('RATE', '480.00')], neverSent: [/"RATE":\s*"2500/] },
  { name: 'a bill rate 1,234.567 is a row error, never rounded; its whole bill is not sent', import: 'bills', via: 'queue', file: fixture('rate-three-decimals.csv'), exit: 1, rows: [[2, 'invalid'], [3, 'invalid'], [4, 'created']], says: [/1,234\.567/], where: { line: 2, column: /\brate\b/ }, never: [/1234\.57/], sent: { posts: 1, projects: [10009] } },
  { name: 'with no proof of the decimal mark, "1,250" in a ,-file is a row error naming both readings (1250 and 1.250); that bill is not printed', import: 'bills', file: fixture('wire-encoding.csv'), flags: printPayloads, exit: 1, rows: [[2, 'invalid'], [3, 'invalid']], says: [/"1,250"/, /\b1250\b/, /\b1\.250?\b/, /--decimal-separator/], where: { line: 2, column: /\brate\b/ }, neverSent: [/"RATE"/] },
  { name: 'an estimate with one bad row is not sent at all; the other estimate is', import: 'estimates', via: 'queue', file: fixture('group-with-bad-row.csv'), exit: 1, rows: [[2, 'invalid'], [3, 'invalid'], [4, 'created']], says: [/twelve/], where: { line: 3, column: /\bqty\b/ }, sent: { posts: 1, projects: [10009] } },

  // ── the README's first step ──
  { name: "the README's first step (samples/estimates.csv --dry-run, no credentials) exits 0 and says once that names were not resolved", import: 'estimates', file: sample('estimates.csv'), exit: 0, rows: skipped(...range(2, 20)), once: /not resolved|unresolved|could not be resolved|cannot be resolved/i },

  // ── files that are not there or not files ──
  { name: 'a directory given as FILE stops', import: 'estimates', file: (d) => (mkdirSync(join(d, 'estimates.csv')), join(d, 'estimates.csv')), exit: 2, says: [/directory/i] },
  { name: 'a file the user may not read stops, saying so', import: 'estimates', asNobody: true, file: (d) => { const f = fixture('amount-abc.csv')(d); chmodSync(f, 0o000); return f; }, exit: 2, says: [/permission denied|not allowed|may not read/i] },

  // ── .xlsx (docs/reading-rules.md: error cells, formulas, booleans as Excel writes them) ──
  { name: 'an .xlsx #DIV/0! cell is a row error naming Sheet1!F2; its estimate is not sent', import: 'estimates', via: 'queue', file: estimateBook('div0.xlsx', { F2: '<c r="F2" t="e"><f>1/0</f><v>#DIV/0!</v></c>' }), exit: 1, rows: [[2, 'invalid'], [3, 'created']], says: [/Sheet1!F2/, /#DIV\/0!/], sent: { posts: 1, projects: [10009] } },
  { name: 'an .xlsx #N/A result is a row error naming Sheet1!G2, never an empty cost', import: 'estimates', file: estimateBook('na.xlsx', { G2: '<c r="G2" t="e"><f>VLOOKUP("crew",A:B,2,FALSE)</f><v>#N/A</v></c>' }), exit: 1, rows: [[2, 'invalid'], [3, 'skipped']], says: [/Sheet1!G2/, /#N\/A/] },
  { name: 'an .xlsx #REF! in a text column is a row error naming Sheet1!H2, never sent as text', import: 'estimates', file: estimateBook('ref.xlsx', { H2: '<c r="H2" t="e"><f>#REF!</f><v>#REF!</v></c>' }), flags: printPayloads, exit: 1, rows: [[2, 'invalid'], [3, 'skipped']], says: [/Sheet1!H2/], neverSent: [/#REF!/] },
  { name: 'an .xlsx formula with no saved result is a row error naming Sheet1!F2', import: 'estimates', file: estimateBook('no-result.xlsx', { F2: '<c r="F2"><f>E3*2</f></c>' }), exit: 1, rows: [[2, 'invalid'], [3, 'skipped']], says: [/Sheet1!F2/, /formula|no (saved |cached )?(result|value)/i] },
  { name: 'an .xlsx as Excel writes it (shared strings, inline strings, shared formulas, a text formula) reads every value', import: 'estimates', file: excelWritten('excel-written.xlsx'), flags: printPayloads, exit: 0, rows: skipped(2, 3), stdout: [/"QTY":\s*"?2"?[,}]/, /"QTY":\s*"?3"?[,}]/, /"Crew day"/, /"Haul-away"/, /"Two coats"/] },
  { name: 'Excel formula booleans read as booleans: a FALSE stays "false", a TRUE is "true", not 1', import: 'bills', file: billBook('formula-booleans.xlsx', { G2: '<c r="G2" t="b"><f>1=2</f><v>0</v></c>', H2: '<c r="H2" t="b"><f>1=1</f><v>1</v></c>' }), flags: printPayloads, exit: 0, rows: skipped(2), stdout: [wire('ACTIVE', 'false'), wire('READY_FOR_PAYMENT', 'true')] },
  { name: 'a date cell of a 1904-date-system workbook reads in that system (serial 44600 is 2026-02-09, not 2022-02-08)', import: 'bills', file: billBook('date1904.xlsx', { E2: `<c r="E2" s="${STYLE.date}"><v>44600</v></c>` }, { date1904: true }), flags: printPayloads, exit: 0, rows: skipped(2), stdout: [wire('INVOICE_DATE', '2026-02-09T00:00:00')] },
  { name: 'a General-formatted number in a date column shows a number, not a date: a row error naming Sheet1!E2, never a date read from it', import: 'bills', file: billBook('date1904-general.xlsx', { E2: '<c r="E2"><v>44600</v></c>' }, { date1904: true }), flags: printPayloads, exit: 1, rows: [[2, 'invalid']], says: [/Sheet1!E2/, /got the number 44600/, /not formatted as a date/], where: { line: 2, column: /invoice_date/ }, never: [/2026-02-09/, /2022-02-08/] },
  { name: 'a zip that is no workbook, named .xlsx, stops', import: 'estimates', file: fixture('junk-zip.xlsx'), exit: 2, says: [/xlsx|workbook|worksheet|spreadsheet/i] },
  { name: 'a 0-byte .xlsx stops', import: 'estimates', file: fixture('empty.xlsx'), exit: 2, says: [/empty|xlsx|workbook/i] },
  { name: 'a text file named .xlsx stops (or is read as the CSV it is)', import: 'estimates', file: fixture('text-named.xlsx'), exit: 2, says: [/xlsx|workbook|not a zip|csv/i] },
  { name: 'an empty sheet stops, naming the sheet', import: 'estimates', file: workbook('empty-sheet.xlsx', ''), exit: 2, says: [/Sheet1/, /empty|no header|no rows/i] },
  { name: 'a value at XFD1048576, far outside the header, stops, naming the cell', import: 'estimates', file: estimateBook('xfd.xlsx', {}, { extraRows: '<row r="1048576"><c r="XFD1048576" t="inlineStr"><is><t>stray</t></is></c></row>' }), exit: 2, says: [/XFD1048576|1048576\D{1,20}XFD\b|\bXFD\D{1,20}1048576/] },
  { name: '--sheet naming a sheet the workbook does not have stops, listing its sheets', import: 'estimates', file: estimateBook('sheets.xlsx', {}), flags: () => ['--sheet', 'Estimates 2026'], exit: 2, says: [/Estimates 2026/, /Sheet1/] },

  // ── where the table is and what a cell shows (README "Where the table is", "Reading a file as it was meant") ──
  { name: 'no row of the first 30 has every required column: stops, naming the closest row and the columns it lacks', import: 'estimates', file: fixture('no-header-row.csv'), exit: 2, says: [/comes closest/, /project_id/, /estimate_name/, /--header-row/], where: { line: 3 }, never: [/"Printed March 3, 2026"|"Estimate export"/] },
  { name: 'two visible sheets with a header row stop, listing both and naming the active one', import: 'estimates', file: workbookOf('two-sheets.xlsx', () => [estimateSheet('Estimate 2025', 10008), estimateSheet('Estimate 2026', 10009)], 1), exit: 2, says: [/"Estimate 2025" \(1 row\)/, /"Estimate 2026" \(1 row\)/, /"Estimate 2026" was the active sheet/, /--sheet/] },
  { name: 'hidden rows stop, naming them, unless --hidden include|skip', import: 'estimates', file: workbookOf('hidden-rows.xlsx', () => [{ name: 'Sheet1', rows: estimateRows().replace('<row r="3">', '<row r="3" hidden="1">') }]), exit: 2, says: [/hidden row 3/, /--hidden include/, /--hidden skip/] },
  { name: 'an .xlsx date cell in a text column (Excel turned 3-4 into a date) is a row error naming the column', import: 'estimates', file: estimateBook('date-in-text.xlsx', { D2: `<c r="D2" s="${STYLE.date}"><v>46085</v></c>` }), exit: 1, rows: [[2, 'invalid'], [3, 'skipped']], says: [/Excel stored this as a date; type it as text/, /2026-03-04/], where: { line: 2, column: /subcategory/ } },
  { name: 'an .xlsx percent cell in a number column that is no percentage is a row error', import: 'estimates', file: estimateBook('percent-qty.xlsx', { F2: `<c r="F2" s="${STYLE.percent}"><v>0.5</v></c>` }), exit: 1, rows: [[2, 'invalid'], [3, 'skipped']], says: [/formatted as a percent/, /50%/], where: { line: 2, column: /\bqty\b/ } },
  { name: 'an .xlsx amount merged over two rows is a row error on each (a lump sum is not repeated)', import: 'estimates', file: workbookOf('merged-lump-sum.xlsx', () => [{ name: 'Sheet1', rows: estimateRows(), merged: ['G2:G3'] }]), exit: 1, rows: [[2, 'invalid'], [3, 'invalid']], says: [/Sheet1!G2:G3/, /lump sum/], where: { line: [2, 3], column: /unit_cost/ } },
  { name: 'a CSV number of more than 15 significant digits is a row error: its digits would be lost', import: 'estimates', file: fixture('seventeen-digits.csv'), exit: 1, rows: [[2, 'invalid'], [3, 'skipped']], says: [/1234567890123456\.5/, /15/], where: { line: 2, column: /unit_cost/ } },

  // ── rows that are not records (README "What is not a record") ──
  { name: 'a total row whose sum does not check is a row error naming both sums; its bill is not sent', import: 'bills', via: 'queue', file: fixture('total-not-checking.csv'), exit: 1, rows: [[2, 'invalid'], [3, 'invalid'], [4, 'invalid'], [5, 'created']], says: [/Total for INV-41/, /1700\.00/, /1680\.00/], sent: { posts: 1, projects: [10009] } },
  { name: 'an empty bill_ref under a filled one, without fill-down, is a row error suggesting --fill-down bill_ref; that bill is not sent', import: 'bills', file: fixture('split-line-no-fill-down.csv'), exit: 1, rows: [[2, 'invalid'], [3, 'invalid'], [4, 'skipped']], says: [/--fill-down bill_ref/, /"B-7"/], where: { line: 3, column: /bill_ref/ } },
  { name: 'a Type column without kinds rules: a row whose Type is not Bill is a row error naming it', import: 'bills', file: fixture('type-without-kinds.csv', 'type-without-kinds.json'), flags: (d) => ['--mapping', join(d, 'type-without-kinds.json')], exit: 1, rows: [[2, 'skipped'], [3, 'invalid'], [4, 'skipped']], says: [/"Vendor Credit"/, /"kinds"/], where: { line: 3, column: /Type/ } },
  { name: 'an estimate of headings and items without --layout sections stops before sending, suggesting it', import: 'estimates', file: fixture('sections-without-layout.csv'), exit: 2, says: [/"02 - Demolition" looks like a section heading/, /--layout sections/], where: { line: 2 } },
  { name: 'an amount in another currency (€1,250.00 in a USD account) is a row error naming both, never sent as dollars', import: 'bills', file: fixture('foreign-currency.csv'), flags: printPayloads, exit: 1, rows: [[2, 'invalid'], [3, 'skipped']], says: [/€1,250\.00/, /EUR/, /USD/], where: { line: 2, column: /\brate\b/ }, neverSent: [/1250/] },
  { name: 'a Xero discount without --discounts apply is a row error, never sent at the full price', import: 'bills', file: fixture('xero-discount.csv', 'xero-vendors.csv'), flags: (d) => ['--mapping', 'xero', '--vendors', join(d, 'xero-vendors.csv'), '--print-payloads'], exit: 1, rows: [[2, 'invalid'], [3, 'skipped']], says: [/--discounts apply/], where: { line: 2, column: /Discount/ }, neverSent: [/"85\.00"/] },
  { name: 'a Xero tax amount that no percentage of its line gives is a row error, never dropped', import: 'bills', file: fixture('xero-tax-amount.csv', 'xero-vendors.csv'), flags: (d) => ['--mapping', 'xero', '--vendors', join(d, 'xero-vendors.csv')], exit: 1, rows: [[2, 'invalid'], [3, 'skipped']], says: [/TaxAmount 20\.00 is no tax of the line's 6 × 85\.00 = 510\.00/, /tax_percent/], where: { line: 2, column: /TaxAmount/ } },
  { name: 'a bill_ref Excel wrote in E-notation (1.23457E+11) is a row error, never a key that merges invoices', import: 'bills', file: fixture('bill-ref-e-notation.csv'), exit: 1, rows: [[2, 'invalid'], [3, 'skipped']], says: [/1\.23457E\+11/, /E-notation/], where: { line: 2, column: /bill_ref/ } },

  // ── limits (docs/reading-rules.md "Limits"): exit 2, file/line/column, short messages, memory that does not grow ──
  { name: 'a cell of 32,768 characters stops, naming line and column', import: 'estimates', file: generated('cell-32768.csv', [`${EST_HEADER},description\n${KITCHEN},`, { repeat: 'x', bytes: 32_768 }, '\n']), exit: 2, says: [/32,?76[78]|characters|too long/i], where: { line: 2, column: /description|column\s*#?8\b/i }, shortLines: true },
  { name: 'a line of more than 1 MiB stops, naming the line', import: 'estimates', file: generated('line-over-1mib.csv', wideLine), exit: 2, says: [/MiB|1,?048,?576|bytes|too long/i], where: { line: 2 }, shortLines: true },
  { name: 'a header of 1,001 columns stops at the 1,000-column limit', import: 'estimates', file: generated('wide-header.csv', manyColumns(1001)), exit: 2, says: [THOUSAND_COLUMNS], where: { line: 1 }, shortLines: true },
  { name: 'a 200 MB cell stops with a short message, in memory that does not grow with it', import: 'estimates', file: generated('cell-200mb.csv', [`${EST_HEADER},description\n${KITCHEN},`, { repeat: 'x', bytes: MB200 }, '\n']), exit: 2, says: [/32,?76[78]|characters|too long|MiB/i], where: { line: 2 }, shortLines: true },
  { name: 'a 200 MB header line stops with a short message, never a stack trace', import: 'estimates', file: generated('header-200mb.csv', [`${EST_HEADER},`, { repeat: 'x', bytes: MB200 }, `\n${KITCHEN},\n`]), exit: 2, says: [/32,?76[78]|characters|too long|MiB/i], where: { line: 1 }, shortLines: true },
  { name: 'a 100,000-column header stops with a short message', import: 'estimates', file: generated('very-wide-header.csv', manyColumns(100_000)), exit: 2, says: [THOUSAND_COLUMNS], where: { line: 1 }, shortLines: true },
  { name: 'a stray byte after 256 KB of good UTF-8 still stops the whole import before anything is sent', import: 'bills', via: 'queue', file: generated('mojibake-late.csv', lateStrayByte(300)), exit: 2, says: [/UTF-8|encoding|byte/i], where: { line: 302 }, never: [/Ã©/], sent: { posts: 0, projects: [] } },
];

// ───────────────────────────── builders ─────────────────────────────

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'bad-input');
const SAMPLES = join(import.meta.dirname, '..', '..', 'samples');

/** Copies committed fixtures into the case's folder (reports land beside FILE); returns the first. */
function fixture(name: string, ...more: string[]): (dir: string) => string {
  return (dir) => {
    for (const n of [name, ...more]) copyFileSync(join(FIXTURES, n), join(dir, n));
    return join(dir, name);
  };
}

/** A repository sample, copied to DIR/samples/NAME so the command reads `samples/NAME` as in the README. */
function sample(name: string): (dir: string) => string {
  return (dir) => {
    mkdirSync(join(dir, 'samples'), { recursive: true });
    copyFileSync(join(SAMPLES, name), join(dir, 'samples', name));
    return join(dir, 'samples', name);
  };
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

// ── large files, generated at test time and streamed to disk (never committed, never in memory) ──

export type Part = string | Buffer | { repeat: string; bytes: number };

function generated(name: string, parts: Part[] | (() => Part[])): (dir: string) => Promise<string> {
  return async (dir) => {
    const path = join(dir, name);
    await writeParts(path, typeof parts === 'function' ? parts() : parts);
    return path;
  };
}

/** Writes the parts in order; a `repeat` part is written 1 MiB at a time. */
export async function writeParts(path: string, parts: Part[]): Promise<void> {
  const out = await open(path, 'w');
  try {
    for (const part of parts) {
      if (typeof part === 'string' || Buffer.isBuffer(part)) {
        await out.write(typeof part === 'string' ? Buffer.from(part) : part);
        continue;
      }
      const chunk = Buffer.from(part.repeat.repeat(Math.ceil((1 << 20) / part.repeat.length)).slice(0, 1 << 20));
      for (let left = part.bytes; left > 0; left -= chunk.length) await out.write(chunk, 0, Math.min(left, chunk.length));
    }
  } finally {
    await out.close();
  }
}

/** 40 estimate columns, the data row's cells 30,000 characters each (each under the cell limit): a 1.1 MB line. */
function wideLine(): Part[] {
  const columns = [
    'project_id', 'estimate_name', 'category', 'subcategory', 'item', 'description', 'cost_code', 'cost_code_id', 'traffic_color', 'classification',
    'status', 'unit', 'qty', 'rate_qty', 'unit_cost', 'rate', 'line_item_markup', 'line_item_markup_type', 'adjustment', 'actual',
    'committed_costs', 'invoiced_amounts', 'five_column_material', 'five_column_labor', 'five_column_equipment', 'five_column_sub', 'five_column_other', 'bid_notes', 'notes_teamlink', 'notes_bid',
    'field_notes', 'notes_clientlink', 'notes_field', 'general_notes', 'notes_general', 'advanced_estimate', 'five_column_estimate', 'total_price', 'markup_name', 'markup_value',
  ];
  const parts: Part[] = [`${columns.join(',')}\n10008,Big`];
  for (let i = 2; i < columns.length; i++) parts.push(',', { repeat: 'x', bytes: 30_000 });
  parts.push('\n');
  return parts;
}

/** The estimate columns, then `xN` up to `count` columns (100,000 of them still make a header under 1 MiB); one data row. */
function manyColumns(count: number): () => Part[] {
  return () => {
    const known = EST_HEADER.split(',');
    const extra = Array.from({ length: count - known.length }, (_, i) => `x${i + 1}`);
    return [[...known, ...extra].join(','), '\n', KITCHEN, ','.repeat(extra.length), '\n'];
  };
}

/** `rows` one-row bills of about 1 KB (valid UTF-8 `Café` on line 2), then a lone 0xE9 on line rows + 2. */
function lateStrayByte(rows: number): () => Part[] {
  return () => {
    const notes = 'n'.repeat(900);
    const parts: Part[] = ['project_id,vendor_id,title,invoice_date,item_name,rate,qty,notes\n'];
    for (let i = 1; i <= rows; i++) parts.push(`10008,55,Bill ${i},2026-03-02,${i === 1 ? 'Café' : 'Item'} ${i},12.50,1,${notes}\n`);
    parts.push('10009,55,Late bill,2026-03-02,Caf', Buffer.from([0xe9]), ` ${rows + 1},12.50,1,${notes}\n`);
    return parts;
  };
}

// ── .xlsx written the way Excel writes them (test/helpers/excel-xml.ts: sheets before the shared strings) ──

const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${xmlEscape(text)}</t></is></c>`;
const number = (ref: string, n: number) => `<c r="${ref}"><v>${n}</v></c>`;
const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** One row of cells A, B, …: strings inline, numbers as numbers; `over` replaces a cell by its ref with raw XML. */
function sheetRow(r: number, values: Array<string | number>, over: Record<string, string> = {}): string {
  const cells = values.map((v, i) => {
    const ref = `${letters[i]}${r}`;
    if (over[ref] !== undefined) return over[ref];
    return typeof v === 'number' ? number(ref, v) : v === '' ? '' : inline(ref, v);
  });
  return `<row r="${r}">${cells.join('')}</row>`;
}

function workbook(name: string, rows: string | (() => string), opts: { date1904?: boolean; sharedStrings?: string[] } = {}): (dir: string) => Promise<string> {
  return async (dir) => {
    const path = join(dir, name);
    writeExcelXlsx(path, { sheets: [{ name: 'Sheet1', rows: typeof rows === 'function' ? rows() : rows }], ...opts });
    return path;
  };
}

const EST_XLSX_HEADER = ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost', 'description'];

/** Estimates A–H: row 2 project 10008 (cells replaceable by ref), row 3 project 10009, both valid as written. */
function estimateBook(name: string, over: Record<string, string>, opts: { extraRows?: string } = {}) {
  return workbook(name, () => estimateRows(over) + (opts.extraRows ?? ''));
}

function estimateRows(over: Record<string, string> = {}): string {
  return (
    sheetRow(1, EST_XLSX_HEADER) +
    sheetRow(2, [10008, 'Kitchen remodel', 'General', 'Labor', 'Crew day', 2, 640, 'Day rate'], over) +
    sheetRow(3, [10009, 'Roof repair', 'Roofing', 'Tear-off', 'Remove membrane', 84, 95, 'Full tear-off'], over)
  );
}

/** A sheet named `name` holding one estimate of `project`, as estimateRows writes it. */
function estimateSheet(name: string, project: number): ExcelSheet {
  return { name, rows: sheetRow(1, EST_XLSX_HEADER) + sheetRow(2, [project, name, 'General', 'Labor', 'Crew day', 2, 640, 'Day rate']) };
}

/** A workbook of several sheets (hidden rows, merged cells, …), saved with `activeTab` shown. */
function workbookOf(name: string, sheets: () => ExcelSheet[], activeTab?: number): (dir: string) => string {
  return (dir) => {
    const path = join(dir, name);
    writeExcelXlsx(path, { sheets: sheets(), activeTab });
    return path;
  };
}

const BILL_XLSX_HEADER = ['bill_ref', 'project_id', 'vendor_id', 'title', 'invoice_date', 'due_date', 'active', 'ready_for_payment', 'item_name', 'rate', 'qty'];

/** Bills A–K: row 2 one bill for project 10008, vendor 55 (cells replaceable by ref). */
function billBook(name: string, over: Record<string, string>, opts: { date1904?: boolean } = {}) {
  return workbook(name, () => sheetRow(1, BILL_XLSX_HEADER) + sheetRow(2, ['B-1', 10008, 55, 'Slab pour', '2026-03-02', '2026-04-01', 'yes', 'no', 'Ready-mix', 1250, 6], over), opts);
}

/** What Excel itself writes: header and most text as shared strings, one inline string, a shared formula for qty, a text formula. */
function excelWritten(name: string) {
  return (dir: string) => excelWrittenBook(dir, name);
}
async function excelWrittenBook(dir: string, name: string): Promise<string> {
  const strings = [...EST_XLSX_HEADER, 'Kitchen remodel', 'General', 'Labor', 'Crew day', 'Roof repair', 'Roofing', 'Tear-off'];
  const s = (ref: string, text: string) => `<c r="${ref}" t="s"><v>${strings.indexOf(text)}</v></c>`;
  const rows =
    `<row r="1" spans="1:8">${EST_XLSX_HEADER.map((h, i) => s(`${letters[i]}1`, h)).join('')}</row>` +
    `<row r="2" spans="1:8">${number('A2', 10008)}${s('B2', 'Kitchen remodel')}${s('C2', 'General')}${s('D2', 'Labor')}${s('E2', 'Crew day')}` +
    `<c r="F2"><f t="shared" ref="F2:F3" si="0">1+ROW()-ROW($F$2)+1</f><v>2</v></c>${number('G2', 640)}` +
    `<c r="H2" t="str"><f>"Two"&amp;" coats"</f><v>Two coats</v></c></row>` +
    `<row r="3" spans="1:8">${number('A3', 10009)}${s('B3', 'Roof repair')}${s('C3', 'Roofing')}${s('D3', 'Tear-off')}${inline('E3', 'Haul-away')}` +
    `<c r="F3"><f t="shared" si="0"/><v>3</v></c>${number('G3', 95)}</row>`;
  return workbook(name, rows, { sharedStrings: strings })(dir);
}

// ───────────────────────────── running the CLI ─────────────────────────────

export interface CaseRun extends CliResult {
  /** Peak resident memory of the CLI process, from /usr/bin/time; undefined where that is missing. */
  maxRssKb: number | undefined;
  /** CPU seconds the CLI process spent (user + system, from /usr/bin/time): its work, whatever else the machine runs. */
  cpuSeconds: number | undefined;
}

export const TIME_BIN = '/usr/bin/time';
export const SETPRIV_BIN = '/usr/bin/setpriv';

/**
 * `buildsync ARGS` as runCli runs it, in `cwd`; measured by /usr/bin/time for its peak memory and,
 * with `asNobody`, run as uid/gid 65534 through setpriv. Keeps the first MiB of each stream (a CLI
 * that echoes a 200 MB line must not take the test down with it).
 */
export async function runBuildsync(args: string[], env: Record<string, string>, opts: { cwd: string; timeoutMs: number; asNobody?: boolean }): Promise<CaseRun> {
  const rssFile = join(opts.cwd, `.maxrss-${process.hrtime.bigint()}`);
  const measured = existsSync(TIME_BIN);
  const wrapper = [
    ...(measured ? [TIME_BIN, '-o', rssFile, '-f', '%M %U %S'] : []),
    ...(opts.asNobody ? [SETPRIV_BIN, '--reuid=65534', '--regid=65534', '--clear-groups'] : []),
  ];
  const run = await runCli(args, env, { cwd: opts.cwd, timeoutMs: opts.timeoutMs, wrapper, keepBytes: 1 << 20 });
  let maxRssKb: number | undefined;
  let cpuSeconds: number | undefined;
  if (measured) {
    try {
      // /usr/bin/time writes "Command exited with non-zero status N" before the numbers.
      const text = await readFile(rssFile, 'utf8');
      const [rss, user, system] = (text.trim().split('\n').pop() ?? '').split(' ').map(Number);
      maxRssKb = rss;
      cpuSeconds = Math.round((user! + system!) * 100) / 100;
      await rm(rssFile, { force: true });
    } catch {
      maxRssKb = undefined;
    }
  }
  return { ...run, maxRssKb, cpuSeconds };
}

/** FILE as the case names it on the command line (relative to the case folder, where the CLI runs). */
export function fileArg(dir: string, file: string): string {
  return file.startsWith(`${dir}/`) ? file.slice(dir.length + 1) : file;
}
