import { PROJECT_FIELDS } from '../api/project-fields.ts';

/**
 * The project export's CSV rows (CONTRACT.md §5), written by hand rather than through
 * csv-stringify: the export formats ~400 MB for 200,000 projects and this formatter is several
 * times faster than csv-stringify's per-record path (see bench/export-format.ts).
 *
 * - Columns: every field of the seed's section 2.1 in that order; fields the service sends
 *   beyond those are left out (they are in the JSON Lines export).
 * - Rows end with CRLF, as RFC 4180 writes them; no BOM, so the header's first cell is `ID`.
 * - Booleans `true`/`false`; null and missing fields are empty cells.
 * - `SCOPE_OF_WORK` is percent-decoded (seed §2.1: "percent-encoded text containing HTML").
 * - A *string* value starting with `=`, `+`, `-`, `@`, tab or CR gets a leading `'` so a
 *   spreadsheet shows it instead of running it as a formula. Numbers are written as they are:
 *   the service sends them as JSON numbers, a spreadsheet reads `-12.5` as the number it is, and
 *   prefixing it would turn every negative amount into text.
 * - A cell holding `"`, `,`, CR or LF is quoted, inner quotes doubled (RFC 4180 §2).
 */

const FIELDS: readonly string[] = PROJECT_FIELDS;
const SCOPE_OF_WORK_INDEX = FIELDS.indexOf('SCOPE_OF_WORK');
const NEEDS_QUOTES = /[",\r\n]/;

/** The header row, CRLF included. */
export const PROJECT_CSV_HEADER = `${FIELDS.join(',')}\r\n`;

/** One project as a CSV row, CRLF included. */
export function formatProjectCsvRow(record: Record<string, unknown>): string {
  let line = '';
  for (let i = 0; i < FIELDS.length; i++) {
    const value = record[FIELDS[i]!];
    if (i > 0) line += ',';
    if (typeof value === 'string') {
      line += textCell(i === SCOPE_OF_WORK_INDEX ? decodePercentText(value) : value);
    } else {
      line += otherCell(value);
    }
  }
  return `${line}\r\n`;
}

function otherCell(value: unknown): string {
  switch (typeof value) {
    case 'number':
      // JSON numbers are finite; never guarded (see the module comment).
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
      return '';
    case 'object':
      // The seed leaves the nullable fields' types open; an object or array is kept as JSON text.
      return value === null ? '' : textCell(JSON.stringify(value));
    default:
      return textCell(String(value));
  }
}

/** A string cell: formula guard, then RFC 4180 quoting. */
export function textCell(text: string): string {
  if (text.length === 0) return text;
  const c = text.charCodeAt(0);
  // = + - @ TAB CR: the characters that make a spreadsheet evaluate a cell (OWASP CSV injection).
  if (c === 0x3d || c === 0x2b || c === 0x2d || c === 0x40 || c === 0x09 || c === 0x0d) {
    text = `'${text}`;
  }
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
