import { columnLetter, EXCEL_ERROR_MEANINGS, excelSerialToDate, isFictitiousLeapDay, isSerialMoment } from '../values/index.ts';
import { UnreadableCell, type CellValue } from './types.ts';

/**
 * How one .xlsx cell, as Excel wrote it in the sheet XML, becomes a `CellValue` (docs/reading-rules.md:
 * "a formula's saved result is read with its own type, as Excel wrote it"; an error value or a
 * formula with no saved result is an `UnreadableCell`, never empty and never its text).
 *
 * This is pure: `xlsx/sheet.ts` parses the XML and fills a `RawCell`; everything about types,
 * dates, errors and the wording of the messages is here.
 */

/** Excel's own limit on the characters of one cell. */
export const MAX_CELL_CHARS = 32_767;
/** docs/reading-rules.md: more columns than this in the header row is a file error. */
export const MAX_COLUMNS = 1_000;
/** An error message quotes at most this many characters of the input. */
export const MAX_QUOTE = 200;
/** The largest column Excel has (XFD). */
export const MAX_SHEET_COLUMN = 16_384;

/**
 * A cell (or shared string) longer than `MAX_CELL_CHARS`: only its first `MAX_QUOTE + 1`
 * characters are kept, so that memory does not grow with it; the reader turns it into a file
 * error that quotes `head` (cut to `MAX_QUOTE`, with `…`).
 */
export class OverlongText {
  constructor(readonly head: string) {}
}

/** One `<c>` element of the sheet XML, as parsed (the reader reuses one object for every cell). */
export interface RawCell {
  /** The `t` attribute: `n` (or absent), `s`, `str`, `inlineStr`, `b`, `e`, `d`. */
  t: string | undefined;
  /** The `s` attribute: index into the workbook's cell formats (0 when absent). */
  s: number;
  /** True when the cell has an `<f>` element (a formula, or a follower of a shared formula). */
  hasFormula: boolean;
  /** The formula's text without `=`; for a shared-formula follower, the master's formula moved to this cell. */
  formula: string;
  /** The text of `<v>`, or undefined when there is no `<v>` (for a formula: no saved result). */
  v: string | undefined;
  /** The text of `<is>` (all of its runs' `<t>`, phonetic `<rPh>` runs left out), or undefined. */
  inline: string | undefined;
  /** Set by the reader when the cell's text passed what may be held (its text is then cut). */
  overlong: boolean;
}

/** The texts of `xl/sharedStrings.xml`, in order (an array will do). */
export interface SharedTexts {
  readonly length: number;
  /** The text at `index` (0 … length - 1). */
  at(index: number): string | OverlongText | undefined;
}

/** What a cell needs from its workbook. */
export interface CellContext {
  /** `xl/sharedStrings.xml`, in order; undefined when the workbook has none. */
  sharedStrings: SharedTexts | undefined;
  /** Whether cell format `s` shows a number as a date or time. */
  isDateStyle(s: number): boolean;
  /** `<workbookPr date1904="1"/>`: serial 0 is 1904-01-01. */
  date1904: boolean;
}

/**
 * The value of one cell. `ref` (`Sheet1!D7`) is only called when the cell cannot be read.
 * Returns an `OverlongText` for a cell of more than `MAX_CELL_CHARS` characters.
 */
export function readRawCell(c: RawCell, ctx: CellContext, ref: () => string): CellValue | OverlongText {
  if (c.overlong) return new OverlongText((c.inline ?? c.v ?? c.formula).slice(0, MAX_QUOTE + 1));
  const t = c.t ?? 'n';
  if (c.hasFormula && !hasSavedResult(c, t)) return noSavedResult(ref(), c.formula);
  switch (t) {
    case 'n':
    case '': {
      const text = c.v === undefined ? '' : c.v.trim();
      if (text === '') return null;
      if (!NUMBER.test(text)) return damaged(ref(), `the number ${quote(text)}`, text);
      const n = Number(text);
      if (!Number.isFinite(n)) return damaged(ref(), `the number ${quote(text)}`, text);
      if (ctx.isDateStyle(c.s) && isSerialMoment(n, ctx.date1904)) {
        return isFictitiousLeapDay(n, ctx.date1904) ? fictitiousLeapDay(ref()) : excelSerialToDate(n, ctx.date1904);
      }
      return n;
    }
    case 's': {
      const text = c.v === undefined ? '' : c.v.trim();
      if (text === '') return null;
      const index = Number(text);
      const strings = ctx.sharedStrings;
      const s = Number.isInteger(index) && index >= 0 && strings !== undefined ? strings.at(index) : undefined;
      if (s === undefined) {
        return damaged(ref(), `a reference to shared text #${cut(text)}, which the workbook does not have`, text);
      }
      return s;
    }
    case 'str':
      return text(c.v ?? c.inline ?? '');
    case 'inlineStr':
      return text(c.inline ?? c.v ?? '');
    case 'b': {
      const b = (c.v ?? '').trim().toLowerCase();
      if (b === '1' || b === 'true') return true;
      if (b === '0' || b === 'false') return false;
      if (b === '' && !c.hasFormula) return null;
      return damaged(ref(), `the TRUE/FALSE value ${quote(c.v ?? '')}`, c.v ?? '');
    }
    case 'e':
      return errorValue(ref(), (c.v ?? c.inline ?? '').trim(), c.hasFormula);
    case 'd': {
      const iso = (c.v ?? '').trim();
      if (iso === '' && !c.hasFormula) return null;
      const d = parseIsoDate(iso);
      return d ?? damaged(ref(), `the date ${quote(iso)}, which is not an ISO 8601 date`, iso);
    }
    default:
      return damaged(ref(), `a value of the unknown type "${cut(t)}"`, c.v ?? c.inline ?? '');
  }
}

/** 1e5, -1.5, .5, 3E-7: the numbers the sheet XML holds (never hex, `Infinity` or blanks inside). */
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Whether a formula cell carries the value Excel computed. `<v>` absent means the program that
 * wrote the file did not compute the formula; an empty `<v>` is an empty text result only for a
 * text-typed formula (`=IF(A1>0,"")`), for any other type it is no result either.
 */
function hasSavedResult(c: RawCell, t: string): boolean {
  if (c.inline !== undefined) return true;
  if (c.v === undefined) return false;
  return c.v.trim() !== '' || t === 'str';
}

function text(raw: string): string | OverlongText {
  const s = decodeXString(raw);
  return s.length > MAX_CELL_CHARS ? new OverlongText(s.slice(0, MAX_QUOTE + 1)) : s;
}

/**
 * OOXML strings (ST_Xstring) write characters XML cannot hold as `_xHHHH_` (a carriage return is
 * `_x000D_`), and a literal `_x` as `_x005F_x`. exceljs leaves these escapes in the text.
 */
export function decodeXString(s: string): string {
  if (!s.includes('_x')) return s;
  return s.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

// ---------------------------------------------------------------------------------------------
// Unreadable cells

function errorValue(ref: string, error: string, hasFormula: boolean): UnreadableCell {
  const shown = error === '' ? 'an error value' : `the error ${cut(error)}`;
  if (error.toUpperCase() === '#GETTING_DATA') {
    return new UnreadableCell(ref, `${ref} holds #GETTING_DATA (its value was still being fetched when the workbook was saved); let Excel finish loading it, then save the workbook again`, error);
  }
  const meaning = EXCEL_ERROR_MEANINGS[error.toUpperCase()];
  if (hasFormula) {
    return new UnreadableCell(ref, `${ref} holds ${shown} (a formula that cannot be computed${meaning ? `: ${meaning}` : ''}); fix the formula or type the value, then save the workbook again`, error);
  }
  return new UnreadableCell(ref, `${ref} holds ${shown} as its value, not a formula result${meaning ? ` (${meaning})` : ''}; type the value it should hold, then save the workbook again`, error);
}

function noSavedResult(ref: string, formula: string): UnreadableCell {
  const typed = `=${formula}`;
  return new UnreadableCell(ref, `${ref} holds the formula ${cut(typed)} but no saved result (the workbook was written by a program that does not compute formulas); open it in Excel or LibreOffice and save it again`, typed);
}

/** A date cell of serial 60, which Excel shows as 1900-02-29: no such day was (values/excel-serial.ts). */
function fictitiousLeapDay(ref: string): UnreadableCell {
  return new UnreadableCell(ref, `${ref} holds 1900-02-29 (serial 60), a day that never was: Excel counts one for a leap-year bug of 1900; type the date it should be, then save the workbook again`, '1900-02-29');
}

function damaged(ref: string, what: string, typed: string): UnreadableCell {
  return new UnreadableCell(ref, `${ref} holds ${what}, which cannot be read (the workbook may be damaged); open it in Excel or LibreOffice and save it again`, typed);
}

// ---------------------------------------------------------------------------------------------
// Quoting

/** At most `MAX_QUOTE` characters of `s` (never half a surrogate pair), with `…` when cut. */
export function cut(s: string, max = MAX_QUOTE): string {
  if (s.length <= max) return s;
  let end = max;
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${s.slice(0, end)}…`;
}

/** `s` in double quotes, cut to `MAX_QUOTE` characters. */
export function quote(s: string): string {
  return JSON.stringify(cut(s));
}

/** A cell value as a user would recognise it in a message (at most `MAX_QUOTE` characters). */
export function describeValue(v: CellValue): string {
  if (v instanceof UnreadableCell) return quote(v.typed);
  if (v instanceof Date) return quote(v.toISOString().slice(0, 19));
  return quote(String(v));
}

// ---------------------------------------------------------------------------------------------
// Where a cell is

/** 1 → A, 27 → AA, 16384 → XFD (values/column-letter.ts). */
export { columnLetter };

/**
 * `D7` → { col: 4, row: 7 }; `$D$7` is accepted. Undefined when it is not a cell reference within
 * Excel's grid. Only the leading letters are needed when the row is known: `row` is NaN then.
 */
export function parseCellRef(ref: string): { col: number; row: number } | undefined {
  let i = 0;
  let col = 0;
  if (ref.charCodeAt(i) === 36) i++; // $
  for (; i < ref.length; i++) {
    const ch = ref.charCodeAt(i) | 0x20; // lower case
    if (ch < 97 || ch > 122) break;
    col = col * 26 + (ch - 96);
    if (col > MAX_SHEET_COLUMN) return undefined;
  }
  if (col === 0) return undefined;
  if (ref.charCodeAt(i) === 36) i++;
  const digits = ref.slice(i);
  if (!/^\d{1,7}$/.test(digits)) return undefined;
  return { col, row: Number(digits) };
}

/**
 * How Excel names a sheet in a reference: `Sheet1`, or `'My Sheet'` with quotes (doubled inside)
 * when the name has anything but letters, digits, `_` and `.`, starts with a digit, or could be
 * read as a cell reference.
 */
export function sheetRefName(name: string): string {
  const plain = /^[\p{L}_][\p{L}\p{N}_.]*$/u.test(name) && !/^[A-Za-z]{1,3}\d+$/.test(name) && !/^[Rr](\d*)[Cc](\d*)$|^[RrCc]$/.test(name);
  return plain ? name : `'${name.replace(/'/g, "''")}'`;
}

/** `Sheet1!D7`, `'My Sheet'!D7`. */
export function cellRef(sheetPrefix: string, col: number, row: number): string {
  return `${sheetPrefix}!${columnLetter(col)}${row}`;
}

// ---------------------------------------------------------------------------------------------
// Dates

/**
 * A `t="d"` cell's ISO 8601 text: `2026-03-01`, `2026-03-01T08:30:00(.000)(Z|+02:00)`, or a
 * time alone (`08:30:00`, on Excel's day 0 as a numeric time cell reads). A zone designator is
 * dropped: Excel keeps wall-clock times, and so does `CellValue`.
 */
export function parseIsoDate(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(text);
  if (m) {
    const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '0'] = m;
    const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Math.round(Number(`0.${frac}`) * 1000)));
    if (date.getUTCFullYear() !== Number(y) || date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d)) return undefined;
    if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
    date.setUTCFullYear(Number(y)); // years 0-99 are not 1900-1999
    return date;
  }
  const t = /^(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?$/.exec(text);
  if (t) {
    const [, h, mi, s = '0', frac = '0'] = t;
    if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
    return new Date(Date.UTC(1899, 11, 30, Number(h), Number(mi), Number(s), Math.round(Number(`0.${frac}`) * 1000)));
  }
  return undefined;
}

/** Built-in number formats (no `numFmt` element in styles.xml) that show dates or times. */
const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81]);

/**
 * Whether number format `id` (with its `formatCode` when styles.xml defines one) shows a date or
 * a time: a built-in date format, or a code with a date or time letter (y m d h s, either case)
 * outside quotes, `[...]` sections (colours, locales, `[h]` is a time anyway), `\x` escapes and the
 * `_x` / `*x` padding. Only the first section counts (`yyyy-mm-dd;@`).
 */
export function isDateNumFmt(id: number, formatCode: string | undefined): boolean {
  if (formatCode === undefined) return BUILTIN_DATE_FORMATS.has(id);
  const bare = formatCode
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/[_*]./g, '')
    .replace(/\[(?:h+|m+|s+)\]/gi, 'h')
    .replace(/\[[^\]]*]/g, '')
    .split(';')[0]!;
  if (/^general$/i.test(bare.trim())) return false;
  return /[ymdhs]/i.test(bare);
}

// ---------------------------------------------------------------------------------------------
// Shared formulas

/**
 * Moves a formula by `dRow` rows and `dCol` columns, as Excel does when it copies it: relative
 * references move, `$`-anchored parts stay; a reference moved off the grid becomes `#REF!`.
 * Used to show a shared-formula follower (`<f t="shared" si="0"/>`, which holds no text) as the
 * formula it holds. Strings, quoted sheet names and `[...]` (structured references, external
 * workbooks) are copied unchanged; a name followed by `(` is a function, not a reference.
 */
export function shiftFormula(formula: string, dRow: number, dCol: number): string {
  if (dRow === 0 && dCol === 0) return formula;
  let out = '';
  let i = 0;
  const n = formula.length;
  const ref = /(\$?)([A-Za-z]{1,3})(\$?)(\d{1,7})(?![A-Za-z0-9_(.])/y;
  const cols = /(\$?)([A-Za-z]{1,3}):(\$?)([A-Za-z]{1,3})(?![A-Za-z0-9_(.!])/y;
  const rows = /(\$?)(\d{1,7}):(\$?)(\d{1,7})(?![A-Za-z0-9_(.!])/y;
  while (i < n) {
    const ch = formula[i]!;
    if (ch === '"' || ch === "'") {
      let j = i + 1;
      while (j < n) {
        if (formula[j] === ch) {
          if (formula[j + 1] === ch) j += 2;
          else break;
        } else j++;
      }
      out += formula.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (ch === '[') {
      let depth = 0;
      let j = i;
      for (; j < n; j++) {
        if (formula[j] === '[') depth++;
        else if (formula[j] === ']' && --depth === 0) break;
      }
      out += formula.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    const prev = i > 0 ? formula[i - 1]! : '';
    if (!/[A-Za-z0-9_.]/.test(prev)) {
      cols.lastIndex = i;
      let m = cols.exec(formula);
      if (m) {
        out += `${moveCol(m[1]!, m[2]!, dCol)}:${moveCol(m[3]!, m[4]!, dCol)}`;
        i = cols.lastIndex;
        continue;
      }
      rows.lastIndex = i;
      m = rows.exec(formula);
      if (m) {
        out += `${moveRow(m[1]!, m[2]!, dRow)}:${moveRow(m[3]!, m[4]!, dRow)}`;
        i = rows.lastIndex;
        continue;
      }
      ref.lastIndex = i;
      m = ref.exec(formula);
      if (m) {
        const c = moveCol(m[1]!, m[2]!, dCol);
        const r = moveRow(m[3]!, m[4]!, dRow);
        out += c === '#REF!' || r === '#REF!' ? '#REF!' : c + r;
        i = ref.lastIndex;
        continue;
      }
    }
    out += ch;
    i++;
  }
  return out;
}

function moveCol(anchor: string, letters: string, d: number): string {
  const at = parseCellRef(`${letters}1`);
  if (at === undefined) return anchor + letters;
  if (anchor === '$' || d === 0) return anchor + letters;
  const col = at.col + d;
  return col < 1 || col > MAX_SHEET_COLUMN ? '#REF!' : columnLetter(col);
}

function moveRow(anchor: string, digits: string, d: number): string {
  if (anchor === '$' || d === 0) return anchor + digits;
  const row = Number(digits) + d;
  return row < 1 || row > 1_048_576 ? '#REF!' : String(row);
}

// ---------------------------------------------------------------------------------------------
// Headers

/** The header text of a cell: its value as text, kept as written (headers are not trimmed here). */
export function xlsxHeaderText(value: CellValue): string {
  if (value === null) return '';
  if (value instanceof Date) return value.toISOString().slice(0, 19);
  if (value instanceof UnreadableCell) return value.typed;
  return String(value);
}
