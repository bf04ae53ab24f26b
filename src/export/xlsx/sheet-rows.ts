import { PROJECT_FIELDS } from '../../api/project-fields.ts';
import { writeAscii, writeWholeNumber } from '../ascii-bytes.ts';
import { decodePercentText } from '../project-writer.ts';
import { STYLE } from './workbook-parts.ts';

/**
 * The `Projects` sheet's XML (README "export projects", .xlsx), row by row, as UTF-8 bytes:
 *
 * - a JSON number is a number cell (`<c><v>12.5</v></c>`), a JSON boolean a boolean cell
 *   (`t="b"`), null or a missing field an empty cell (`<c/>`);
 * - `LMOD` and `DATE_CREATED`, ISO 8601 date-times without a zone (seed §2.1), are date cells: the
 *   Excel serial of that wall-clock time (seconds and milliseconds kept, no zone shift) with the
 *   `yyyy-mm-dd hh:mm` style; a value that is not such a date-time stays text;
 * - every other value is an inline text cell (`t="inlineStr"`): `02134` keeps its zero, a
 *   20-digit number stays those digits, and `=SUM(A1)` is text, never a formula (no `<f>` is
 *   ever written, so no guard character is needed either); `SCOPE_OF_WORK` is percent-decoded as
 *   in the CSV.
 *
 * Inline strings rather than the shared-string table: a shared table must be complete before the
 * workbook is, so it grows with the number of distinct texts; inline strings stream.
 *
 * Cells carry no `r` reference (it is optional; a reader counts them along the row), which keeps
 * the sheet about a fifth smaller; so an empty cell is written as `<c/>` to keep its place.
 */

const FIELDS: readonly string[] = PROJECT_FIELDS;
const DATE_FIELDS = new Set(['LMOD', 'DATE_CREATED']);

/** Excel's last row (1,048,576) less the header row. */
export const XLSX_MAX_ROWS = 1_048_575;

/** Column letters of 1-based column `n`: 1 → A, 27 → AA. */
export function columnLetters(n: number): string {
  let s = '';
  for (; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

export const LAST_COLUMN = columnLetters(FIELDS.length);

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?$/;
/** 1899-12-30, Excel's day 0 (in the 1900 system, for every date from 1900-03-01 on). */
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
const FIRST_SAFE_MS = Date.UTC(1900, 2, 1);
const DAY_MS = 86_400_000;

/**
 * The Excel serial of an ISO date-time without a zone, read as the wall-clock time it names (so
 * the cell shows what the service sent, in every reader's zone); undefined when `text` is not
 * one, or before 1900-03-01 (where Excel's 1900 leap-year bug moves serials by a day).
 */
export function excelSerial(text: string): number | undefined {
  const m = ISO_DATE_TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac] = m;
  const ms = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, s ? +s : 0, frac ? Math.round(Number(frac) * 1000) : 0);
  const check = new Date(ms);
  // Date.UTC rolls 2026-02-30 over into March: such a value is not a date.
  if (check.getUTCMonth() !== +mo! - 1 || check.getUTCDate() !== +d! || +h! > 23 || +mi! > 59 || (s !== undefined && +s > 59)) return undefined;
  if (ms < FIRST_SAFE_MS) return undefined;
  return (ms - EXCEL_EPOCH_MS) / DAY_MS;
}

/** Characters XML 1.0 cannot hold, CR (which an XML parser turns into LF), and `_xHHHH_` look-alikes. */
const NEEDS_ESCAPE = /[&<>\x00-\x08\x0B-\x0D\x0E-\x1F\uFFFE\uFFFF]|_(?=x[0-9A-Fa-f]{4}_)|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text for `<t>`: `&`, `<`, `>` as entities; control characters (and CR) as Excel's `_xHHHH_`
 * escapes (ECMA-376 §22.9.2.19 ST_Xstring); a literal `_x0041_` has its `_` escaped as
 * `_x005F_` so a reader does not decode it; lone surrogates become U+FFFD.
 */
export function xmlText(text: string): string {
  return text.replace(NEEDS_ESCAPE, (c) => {
    if (c === '&') return '&amp;';
    if (c.charCodeAt(0) >= 0xd800 && c.charCodeAt(0) <= 0xdfff) return '\uFFFD';
    if (c === '<') return '&lt;';
    if (c === '>') return '&gt;';
    return `_x${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`;
  });
}

/** Whether `<t>` needs `xml:space="preserve"` to keep its text's spaces, tabs and line breaks. */
function needsPreserve(text: string): boolean {
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  return first === 0x20 || last === 0x20 || /[\t\n\r]/.test(text);
}

/** The text cell of a header or any text, whole. */
export function textCellXml(text: string, style = 0): string {
  const s = style ? ` s="${style}"` : '';
  if (text === '') return `<c${s}/>`;
  return `<c${s} t="inlineStr"><is><t${needsPreserve(text) ? ' xml:space="preserve"' : ''}>${xmlText(text)}</t></is></c>`;
}

const TEXT_OPEN = Buffer.from('<c t="inlineStr"><is><t>', 'latin1');
const TEXT_CLOSE = Buffer.from('</t></is></c>', 'latin1');
const NUMBER_OPEN = Buffer.from('<c><v>', 'latin1');
const DATE_OPEN = Buffer.from(`<c s="${STYLE.dateTime}"><v>`, 'latin1');
const VALUE_CLOSE = Buffer.from('</v></c>', 'latin1');
const TRUE_CELL = Buffer.from('<c t="b"><v>1</v></c>', 'latin1');
const FALSE_CELL = Buffer.from('<c t="b"><v>0</v></c>', 'latin1');
const EMPTY_CELL = Buffer.from('<c/>', 'latin1');
/** Room for any cell that is not text: the longest of the fixed ones with a 24-character number. */
const SLACK = FIELDS.length * 48 + 32;
/** Short text is copied byte by byte when it is plain ASCII with nothing to escape. */
const SHORT_TEXT = 48;

/**
 * One export's sheet: `head()` once, `row(record)` for each project, `tail()` once. A row's bytes
 * live in a buffer of this object that the next `row()` overwrites: copy them before calling
 * again (RowBatch.add does).
 */
export class SheetRows {
  /** Data rows written so far. */
  rows = 0;
  private buf = Buffer.allocUnsafe(64 * 1024);
  private at = 0;
  private readonly writeCells: (record: Record<string, unknown>) => void;

  constructor() {
    // One statement per field, each reading a named property (an inline cache per field, as the
    // CSV writer does in project-writer.ts), rather than a loop doing keyed lookups.
    const body = FIELDS.map((name) => `${DATE_FIELDS.has(name) ? 'date' : name === 'SCOPE_OF_WORK' ? 'scope' : 'cell'}(r[${JSON.stringify(name)}]);`).join('\n');
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- see the comment above
    const make = new Function('cell', 'date', 'scope', `return function writeProjectSheetRow(r) {\n${body}\n};`);
    this.writeCells = make(
      (v: unknown) => this.cell(v),
      (v: unknown) => this.date(v),
      (v: unknown) => (typeof v === 'string' ? this.text(decodePercentText(v)) : this.cell(v)),
    ) as (record: Record<string, unknown>) => void;
  }

  /** The sheet up to and including the header row: frozen below it, each column sized to its name. */
  head(): string {
    const cols = FIELDS.map((name, i) => `<col min="${i + 1}" max="${i + 1}" width="${columnWidth(name)}" customWidth="1"/>`).join('');
    return (
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
      '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
      '<sheetViews><sheetView tabSelected="1" workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>' +
      '<selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView></sheetViews>' +
      `<sheetFormatPr defaultRowHeight="15"/><cols>${cols}</cols><sheetData>` +
      `<row r="1">${FIELDS.map((name) => textCellXml(name, STYLE.header)).join('')}</row>`
    );
  }

  /** One project's row, as bytes valid until the next call. */
  row(record: Record<string, unknown>): Buffer {
    this.rows++;
    this.at = 0;
    this.room(SLACK + 24);
    this.ascii(`<row r="${this.rows + 1}">`);
    this.writeCells(record);
    this.ascii('</row>');
    return this.buf.subarray(0, this.at);
  }

  /** The header and every row so far, as the workbook's defined name of the autofilter gives it. */
  filterRange(): string {
    return `$A$1:$${LAST_COLUMN}$${this.rows + 1}`;
  }

  /** The end of the sheet: the autofilter over the header and every row. */
  tail(): string {
    return `</sheetData><autoFilter ref="A1:${LAST_COLUMN}${this.rows + 1}"/><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>`;
  }

  private cell(value: unknown): void {
    switch (typeof value) {
      case 'string':
        this.text(value);
        return;
      case 'number':
        if (!Number.isFinite(value)) {
          this.put(EMPTY_CELL);
          return;
        }
        this.put(NUMBER_OPEN);
        if (value >>> 0 === value) this.at = writeWholeNumber(this.buf, this.at, value);
        else this.at = writeAscii(this.buf, this.at, String(value));
        this.put(VALUE_CLOSE);
        return;
      case 'boolean':
        this.put(value ? TRUE_CELL : FALSE_CELL);
        return;
      case 'object':
        // The seed leaves the nullable fields' types open; an object or array is kept as JSON text.
        if (value === null) this.put(EMPTY_CELL);
        else this.text(JSON.stringify(value));
        return;
      case 'undefined':
        this.put(EMPTY_CELL);
        return;
      default:
        this.text(String(value));
    }
  }

  private date(value: unknown): void {
    const serial = typeof value === 'string' ? excelSerial(value) : undefined;
    if (serial === undefined) {
      this.cell(value);
      return;
    }
    this.put(DATE_OPEN);
    this.at = writeAscii(this.buf, this.at, String(serial));
    this.put(VALUE_CLOSE);
  }

  private text(text: string): void {
    const n = text.length;
    if (n === 0) {
      this.put(EMPTY_CELL);
      return;
    }
    if (n <= SHORT_TEXT && text.charCodeAt(0) !== 0x20 && text.charCodeAt(n - 1) !== 0x20) {
      this.room(n + TEXT_OPEN.length + TEXT_CLOSE.length + SLACK);
      const start = this.at;
      this.put(TEXT_OPEN);
      let p = this.at;
      let i = 0;
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        // Anything that may need more than a copy (non-ASCII, & < > _, controls) goes the long way.
        if (c >= 0x7f || c < 0x20 || c === 0x26 || c === 0x3c || c === 0x3e || c === 0x5f) break;
        this.buf[p++] = c;
      }
      if (i === n) {
        this.at = p;
        this.put(TEXT_CLOSE);
        return;
      }
      this.at = start;
    }
    const xml = textCellXml(text);
    // UTF-8 needs at most 3 bytes per UTF-16 unit.
    this.room(3 * xml.length + SLACK);
    this.at += this.buf.write(xml, this.at, 'utf8');
  }

  private ascii(text: string): void {
    this.at = writeAscii(this.buf, this.at, text);
  }

  private put(bytes: Buffer): void {
    bytes.copy(this.buf, this.at);
    this.at += bytes.length;
  }

  /** Makes room for `bytes` more bytes at `at`. */
  private room(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.at + bytes));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }
}

/** Width in characters: the name with room for the filter button, wider for long texts and dates. */
function columnWidth(name: string): number {
  if (DATE_FIELDS.has(name)) return 17;
  if (name === 'NAME' || name === 'ADDRESS' || name === 'SCOPE_OF_WORK' || name === 'PROJECT_NOTES' || name === 'JOBSITE_INSTRUCTIONS') return 32;
  return Math.min(Math.max(name.length + 4, 9), 36);
}
