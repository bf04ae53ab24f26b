import { PROJECT_FIELDS } from '../api/project-fields.ts';
import { writeAscii, writeWholeNumber } from './ascii-bytes.ts';

/**
 * The project export's CSV rows (README, Reports, re-runs and `unknown`), written by hand rather than through
 * csv-stringify: the export formats ~400 MB for 200,000 projects and this formatter is several
 * times faster than csv-stringify's per-record path (see bench/export-format.ts).
 *
 * - Columns: every field of docs/service.md, Project records in that order; fields the service sends
 *   beyond those are left out (they are in the JSON Lines export).
 * - Rows end with CRLF, as RFC 4180 writes them; no BOM, so the header's first cell is `ID`.
 * - Booleans `true`/`false`; null and missing fields are empty cells.
 * - `SCOPE_OF_WORK` is percent-decoded (docs/service.md, Project records: "percent-encoded text containing HTML").
 * - A *string* value starting with `=`, `+`, `-`, `@`, tab or CR gets a leading `'` so a
 *   spreadsheet shows it instead of running it as a formula. Numbers are written as they are:
 *   the service sends them as JSON numbers, a spreadsheet reads `-12.5` as the number it is, and
 *   prefixing it would turn every negative amount into text.
 * - A cell holding `"`, `,`, CR or LF is quoted, inner quotes doubled (RFC 4180 §2).
 */

const FIELDS: readonly string[] = PROJECT_FIELDS;
const NEEDS_QUOTES = /[",\r\n]/;

/** The header row, CRLF included. */
export const PROJECT_CSV_HEADER = `${FIELDS.join(',')}\r\n`;

/**
 * One project's CSV row, CRLF included, as UTF-8 bytes. The bytes live in a buffer of this
 * module's that the next call overwrites: copy them before calling again. A second call for the
 * same record object, with no other call in between, returns the same bytes without formatting
 * again (the export file and the changes file of `--changes` share one formatting): do not change
 * a record between two calls.
 *
 * Why bytes: the export writes ~170 MB of rows for 200,000 projects. Built as strings, each row
 * is ~120 pieces joined (a rope V8 must flatten), and a row holding one character beyond
 * Latin-1 is a two-byte string whose UTF-8 encoding is slow; both cost more than the cell rules
 * themselves. Here numbers, booleans and short ASCII text go straight into the buffer; longer
 * or non-ASCII text goes through `textCell` and one native UTF-8 write.
 *
 * Why a function built from the field list rather than a loop over it: `record[FIELDS[i]]` is a
 * keyed lookup with a changing key, about 20 ns each, 60 per row. Written out as `r["ID"]`,
 * `r["NAME"]`, … each read is a named property load that V8 serves from an inline cache (every
 * listed record has the same shape). The names are inserted as JSON string literals, so any
 * field name is safe in the generated code.
 */
export function projectCsvRowBytes(record: Record<string, unknown>): Buffer {
  if (record === lastRecord) return lastBytes;
  at = 0;
  room(SLACK);
  writeRow(record);
  lastRecord = record;
  lastBytes = row.subarray(0, at);
  return lastBytes;
}

let lastRecord: Record<string, unknown> | undefined;
let lastBytes = Buffer.alloc(0);

/** One project as a CSV row, CRLF included (the same bytes as `projectCsvRowBytes`, decoded). */
export function formatProjectCsvRow(record: Record<string, unknown>): string {
  return projectCsvRowBytes(record).toString('utf8');
}

/** The row being written: `row[0, at)`. Grows for a row that does not fit (a huge SCOPE_OF_WORK). */
let row = Buffer.allocUnsafe(64 * 1024);
let at = 0;

const writeRow = compileRowWriter(FIELDS);

function compileRowWriter(fields: readonly string[]): (record: Record<string, unknown>) => void {
  const cells = fields.map((name) => `${name === 'SCOPE_OF_WORK' ? 'scopeCell' : 'cell'}(r[${JSON.stringify(name)}]);`);
  const body = `${cells.join(' comma();\n')}\ncrlf();`;
  // new Function: see projectCsvRowBytes
  const make = new Function('cell', 'scopeCell', 'comma', 'crlf', `return function writeProjectCsvRow(r) {\n${body}\n};`);
  return make(cell, scopeCell, comma, crlf) as (record: Record<string, unknown>) => void;
}

/**
 * Room kept free beyond each string cell (and at the start of a row) for the cells that are not
 * strings: a number is at most 24 characters (`String(-1.2345678901234567e-300)`), a boolean 5,
 * plus its comma, and the row's CRLF; so those are written without a check each.
 */
const SLACK = FIELDS.length * 32 + 2;

/** Makes room for `bytes` more bytes at `at`. */
function room(bytes: number): void {
  if (at + bytes <= row.length) return;
  const bigger = Buffer.allocUnsafe(Math.max(2 * row.length, at + bytes));
  row.copy(bigger, 0, 0, at);
  row = bigger;
}

function comma(): void {
  row[at++] = 0x2c;
}

function crlf(): void {
  row[at++] = 0x0d;
  row[at++] = 0x0a;
}

/** Any cell but SCOPE_OF_WORK. */
function cell(value: unknown): void {
  switch (typeof value) {
    case 'string':
      putText(value);
      return;
    case 'number':
      // JSON numbers are finite; never guarded (see the module comment).
      if (value >>> 0 === value) at = writeWholeNumber(row, at, value);
      else at = writeAscii(row, at, String(value));
      return;
    case 'boolean':
      at = writeAscii(row, at, value ? 'true' : 'false');
      return;
    case 'undefined':
      return;
    case 'object':
      // The seed leaves the nullable fields' types open; an object or array is kept as JSON text.
      if (value !== null) putText(JSON.stringify(value));
      return;
    default:
      putText(String(value));
  }
}

function scopeCell(value: unknown): void {
  if (typeof value === 'string') putText(decodePercentText(value));
  else cell(value);
}

/** Text no longer than this is copied character by character when it is plain ASCII. */
const SHORT_TEXT = 32;

/** A string cell by the rules of `textCell`, as UTF-8. */
function putText(text: string): void {
  const n = text.length;
  if (n === 0) return;
  // UTF-8 needs at most 3 bytes per UTF-16 unit; a guard and two quotes add 3; doubled quotes fit in the 3 a quote gets.
  room(3 * n + 3 + SLACK);
  if (n <= SHORT_TEXT && !isFormulaStart(text.charCodeAt(0))) {
    let p = at;
    let i = 0;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      // Anything that may need more than a copy (non-ASCII, a quote, a comma, CR, LF, other controls) goes to textCell.
      if (c >= 0x80 || c < 0x20 || c === 0x22 || c === 0x2c) break;
      row[p++] = c;
    }
    if (i === n) {
      at = p;
      return;
    }
  }
  at += row.write(textCell(text), at, 'utf8');
}

/** = + - @ TAB CR: the characters that make a spreadsheet evaluate a cell (OWASP CSV injection). */
function isFormulaStart(c: number): boolean {
  return c === 0x3d || c === 0x2b || c === 0x2d || c === 0x40 || c === 0x09 || c === 0x0d;
}

/** A string cell: formula guard, then RFC 4180 quoting. */
export function textCell(text: string): string {
  if (text.length === 0) return text;
  if (isFormulaStart(text.charCodeAt(0))) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g;

/**
 * Percent-decodes like `decodeURIComponent`, but never throws: a run of `%XX` bytes that is not
 * valid UTF-8 keeps its undecodable bytes as written and decodes the rest; a `%` not followed by
 * two hex digits stays as it is. `+` is not a space here (this is not form encoding).
 */
export function decodePercentText(text: string): string {
  if (text.indexOf('%') === -1) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(PERCENT_RUN, decodeRunTolerantly);
  }
}

/** Decodes the longest valid UTF-8 sequence (1 to 4 bytes) at each position of a `%XX` run. */
function decodeRunTolerantly(run: string): string {
  try {
    return decodeURIComponent(run);
  } catch {
    // some bytes of this run are not UTF-8: go character by character
  }
  let out = '';
  let i = 0;
  while (i < run.length) {
    let decoded: string | undefined;
    for (let bytes = 4; bytes >= 1 && decoded === undefined; bytes--) {
      const end = i + 3 * bytes;
      if (end > run.length) continue;
      try {
        decoded = decodeURIComponent(run.slice(i, end));
        i = end;
      } catch {
        // not a complete character at this length; try a shorter one
      }
    }
    if (decoded === undefined) {
      decoded = run.slice(i, i + 3);
      i += 3;
    }
    out += decoded;
  }
  return out;
}
