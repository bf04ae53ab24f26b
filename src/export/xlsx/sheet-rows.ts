import { PROJECT_FIELDS } from '../../api/project-fields.ts';
import { columnLetter, serialOfDays1970 } from '../../values/index.ts';
import { writeAscii, writeWholeNumber } from '../ascii-bytes.ts';
import { decodePercentText } from '../project-writer.ts';
import { STYLE } from './workbook-parts.ts';
import { lastHadBreak, MAX_BYTES_PER_UNIT, writeXmlText, xmlText } from './xml-text-bytes.ts';

/**
 * The `Projects` sheet's XML (README "export projects", .xlsx), row by row, as UTF-8 bytes:
 *
 * - a JSON number is a number cell (`<c><v>12.5</v></c>`), a JSON boolean a boolean cell
 *   (`t="b"`), null or a missing field an empty cell (`<c/>`);
 * - `LMOD` and `DATE_CREATED`, ISO 8601 date-times without a zone (docs/service.md, Project records), are date cells: the
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

export const LAST_COLUMN = columnLetter(FIELDS.length);

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The Excel serial of an ISO date-time without a zone (`YYYY-MM-DDTHH:MM[:SS[.fff]]`, or a space
 * for the `T`), read as the wall-clock time it names (so the cell shows what the service sent, in
 * every reader's zone); undefined when `text` is not one, or before 1900-01-01 (serials as
 * Excel counts them, its 1900 leap-year bug included: `serialOfDays1970`, values/excel-serial.ts).
 *
 * Read digit by digit rather than with a regular expression and a Date: it runs twice per
 * project, and the match arrays and Date objects were a tenth of the sheet's formatting time.
 */
export function excelSerial(text: string): number | undefined {
  const n = text.length;
  if (n < 16 || n > 29) return undefined;
  const y = digits(text, 0, 4);
  const mo = digits(text, 5, 2);
  const d = digits(text, 8, 2);
  const h = digits(text, 11, 2);
  const mi = digits(text, 14, 2);
  const sep = text.charCodeAt(10);
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59) return undefined;
  if (text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d || (sep !== 0x54 && sep !== 0x20) || text.charCodeAt(13) !== 0x3a) return undefined;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > DAYS_IN_MONTH[mo - 1]! || (mo === 2 && d === 29 && !leap)) return undefined;
  let seconds = 0;
  if (n > 16) {
    seconds = digits(text, 17, 2);
    if (n < 19 || text.charCodeAt(16) !== 0x3a || seconds < 0 || seconds > 59) return undefined;
    if (n > 19) {
      if (text.charCodeAt(19) !== 0x2e || n === 20) return undefined;
      const fraction = digits(text, 20, n - 20);
      if (fraction < 0) return undefined;
      seconds += fraction / 10 ** (n - 20);
    }
  }
  return serialOfDays1970(daysFromCivil(y, mo, d) + (h * 3600 + mi * 60 + seconds) / 86_400);
}

/** The value of `count` decimal digits at `at`; -1 when one is not a digit. */
function digits(text: string, at: number, count: number): number {
  let v = 0;
  for (let i = at; i < at + count; i++) {
    const c = text.charCodeAt(i) - 0x30;
    if (!(c >= 0 && c <= 9)) return -1; // NaN past the end too
    v = v * 10 + c;
  }
  return v;
}

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
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
const PRESERVE = ' xml:space="preserve"';
const NUMBER_OPEN = Buffer.from('<c><v>', 'latin1');
const DATE_OPEN = Buffer.from(`<c s="${STYLE.dateTime}"><v>`, 'latin1');
const VALUE_CLOSE = Buffer.from('</v></c>', 'latin1');
const TRUE_CELL = Buffer.from('<c t="b"><v>1</v></c>', 'latin1');
const FALSE_CELL = Buffer.from('<c t="b"><v>0</v></c>', 'latin1');
const EMPTY_CELL = Buffer.from('<c/>', 'latin1');
/** Room for any cell that is not text: the longest of the fixed ones with a 24-character number. */
const SLACK = FIELDS.length * 48 + 32;

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
    // CSV writer does in project-writer.ts), rather than a loop doing keyed lookups; each calls
    // this object's method directly (a closure in between cost a tenth of the row's time).
    const body = FIELDS.map((name) => `w.${DATE_FIELDS.has(name) ? 'date' : name === 'SCOPE_OF_WORK' ? 'scope' : 'cell'}(r[${JSON.stringify(name)}]);`).join('\n');
    // new Function: see the comment above
    const make = new Function('w', `return function writeProjectSheetRow(r) {\n${body}\n};`);
    this.writeCells = make(this) as (record: Record<string, unknown>) => void;
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

  /** SCOPE_OF_WORK: percent-decoded text (docs/service.md, Project records), as in the CSV. */
  private scope(value: unknown): void {
    if (typeof value === 'string') this.text(decodePercentText(value));
    else this.cell(value);
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
    this.room(MAX_BYTES_PER_UNIT * n + TEXT_OPEN.length + PRESERVE.length + TEXT_CLOSE.length + SLACK);
    this.put(TEXT_OPEN);
    const start = this.at;
    this.at = writeXmlText(this.buf, start, text);
    if (lastHadBreak || text.charCodeAt(0) === 0x20 || text.charCodeAt(n - 1) === 0x20) {
      // Rare (notes with line breaks, padded text): move the text along to make room for the
      // attribute in `<t>`, which was written before the text was seen.
      this.buf.copyWithin(start + PRESERVE.length, start, this.at);
      this.buf.write(PRESERVE, start - 1, 'latin1');
      this.buf[start - 1 + PRESERVE.length] = 0x3e;
      this.at += PRESERVE.length;
    }
    this.put(TEXT_CLOSE);
  }

  private ascii(text: string): void {
    this.at = writeAscii(this.buf, this.at, text);
  }

  /** A few fixed bytes: a loop, as Buffer#copy's native call costs more than copying ten bytes. */
  private put(bytes: Buffer): void {
    const buf = this.buf;
    let at = this.at;
    for (let i = 0; i < bytes.length; i++) buf[at++] = bytes[i]!;
    this.at = at;
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
