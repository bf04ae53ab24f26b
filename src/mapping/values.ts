import { UnreadableCell, type CellValue } from '../tables/index.ts';
import { BuildsyncError, RowError } from '../errors/index.ts';
import { fitsDecimalPlaces } from '../payloads/index.ts';

/**
 * Cell value parsing shared by the estimate and bill importers (CONTRACT.md §3, §4).
 *
 * Every parser takes a `CellValue` (CSV cells are strings; .xlsx cells may be numbers, booleans
 * or `Date`s) and returns the value, or `undefined` for a blank cell (null, empty or only
 * spaces): whether a blank is allowed is the caller's decision. A value that cannot be read
 * throws `CellValueError` whose message says what was expected and what was found; the caller
 * adds file, line and column with `parseCell` (or `new RowError(file, line, column, err.message)`).
 *
 * How a file writes numbers and dates is not in its cells: `ReadingRules` carries the decimal
 * separator and the day/month order, settled once per file (`settleReadingRules` in
 * `reading-rules.ts`) before any row is mapped. An `UnreadableCell` (an .xlsx error value, a
 * formula without a result) is refused by every parser, whatever the column.
 */

/** How one file writes numbers and dates (CONTRACT.md §3). */
export interface ReadingRules {
  /** `.`: `1,234.50`; `,`: `1.234,50`, `1 234,50`, `480,00`. */
  decimalSeparator: '.' | ',';
  /** How a `03/02/2026`-shaped date is read; ISO dates and .xlsx date cells are read the same in every order. */
  dateOrder: DateOrder;
}

export type DateOrder = 'MDY' | 'DMY' | 'YMD';

/** The rules of a file that settled nothing: US forms. */
export const US_RULES: ReadingRules = Object.freeze({ decimalSeparator: '.', dateOrder: 'MDY' });

/** A cell that cannot be read as the column's type. The message names the value, not the place. */
export class CellValueError extends BuildsyncError {
  constructor(message: string) {
    super('BUILDSYNC_ROW_INVALID', message);
  }
}

/** Runs `parse` on one cell and turns its `CellValueError` into a `RowError` naming the place. */
export function parseCell<T>(parse: (cell: CellValue) => T, cell: CellValue, file: string, line: number, column: string): T {
  try {
    return parse(cell);
  } catch (err) {
    if (err instanceof CellValueError) throw new RowError(file, line, column, err.message);
    throw err;
  }
}

/** Throws the reason of an unreadable .xlsx cell (a `CellValueError`, so the row is invalid). */
function refuseUnreadable(cell: UnreadableCell): never {
  throw new CellValueError(cell.reason);
}

/** Blank: no value, an empty string or only white space. */
export function isBlank(cell: CellValue | undefined): boolean {
  return cell === null || cell === undefined || (typeof cell === 'string' && cell.trim() === '');
}

// ---- text -------------------------------------------------------------------------------------

/** Trimmed text; blank → undefined. Numbers, booleans and dates from .xlsx are written out as text. */
export function parseText(cell: CellValue): string | undefined {
  if (isBlank(cell)) return undefined;
  if (typeof cell === 'string') return cell.trim();
  if (typeof cell === 'number') return numberToDecimalText(cell);
  if (typeof cell === 'boolean') return cell ? 'true' : 'false';
  if (cell instanceof UnreadableCell) refuseUnreadable(cell);
  return cell instanceof Date ? formatDateTime(cell) : undefined;
}

// ---- numbers ----------------------------------------------------------------------------------

/** The parts of a number written as text; see `readDecimal`. */
interface DecimalParts {
  negative: boolean;
  /** Integer digits without grouping separators or leading zeros ('0' at least). */
  int: string;
  /** Fraction digits as written (may be ''). */
  frac: string;
}

const NUMBER_EXPECTED = 'expected a number like 1,234.50';
const NUMBER_EXPECTED_COMMA = 'expected a number like 1.234,50 (the decimal separator of this file is ",")';
/** `1234`, `1,234` (commas only in groups of three), with an optional fraction; or `.5`. */
const DIGITS = /^(?:([1-9]\d{0,2}(?:,\d{3})+|\d+)(?:\.(\d+))?|\.(\d+))$/;
/**
 * Decimal comma: `1234`, `1.234`, `1 234`, `1'234` (one grouping character, groups of three;
 * spaces include the no-break spaces spreadsheets write), an optional `,` fraction; or `,5`.
 */
const DIGITS_COMMA = /^(?:([1-9]\d{0,2}(?:([. '\u00a0\u202f])\d{3})(?:\2\d{3})*|\d+)(?:,(\d+))?|,(\d+))$/;
/** A lone `.` decimal point in a decimal-comma file, which grouping cannot explain: `12.5`, `1234.567`. */
const POINT_IN_COMMA_FILE = /^(\d+)\.(\d+)$/;

/**
 * Strips what surrounds the digits: `(12.00)` (negative, accounting style), one sign, a `$` or
 * `€` before or `€` after, and `%` (= the percent figure). Returns the digits and the sign, or
 * undefined for two signs, a currency with `%`, and the like.
 */
function stripAround(text: string): { s: string; negative: boolean } | undefined {
  let s = text.trim();
  let negative = false;
  let signs = 0;
  if (s.startsWith('(') && s.endsWith(')')) {
    negative = true;
    signs++;
    s = s.slice(1, -1).trim();
  }
  // The sign test is written out twice rather than as a nested function: a closure per call is
  // garbage on every money cell of a big import.
  if (s.startsWith('-') || s.startsWith('+')) {
    negative ||= s.startsWith('-');
    signs++;
    s = s.slice(1).trimStart();
  }
  let currency = false;
  if (s.startsWith('$') || s.startsWith('€')) {
    currency = true;
    s = s.slice(1).trimStart();
    if (s.startsWith('-') || s.startsWith('+')) {
      negative ||= s.startsWith('-');
      signs++;
      s = s.slice(1).trimStart();
    }
  } else if (s.endsWith('€')) {
    currency = true;
    s = s.slice(0, -1).trimEnd();
  }
  if (s.endsWith('%')) {
    if (currency) return undefined;
    s = s.slice(0, -1).trimEnd();
  }
  if (signs > 1) return undefined;
  return { s, negative };
}

/**
 * Reads a number written as text under the file's decimal separator (CONTRACT.md §3):
 * `.`: `1234.5`, `1,234.50`, `$1,234.50`, `-3`, `(12.00)`, `15%` (= 15);
 * `,`: `1.234,50`, `1 234,50`, `2'500,00`, `480,00`, and a lone `.` point grouping cannot
 * explain (`12.5`). Anything else (letters, `1e5`, `0x10`, `NaN`, two signs) is refused.
 * A value two readings fit is refused naming both (`2,500` in a decimal-comma file).
 */
function readDecimal(text: string, separator: '.' | ','): DecimalParts | undefined {
  const around = stripAround(text);
  if (around === undefined) return undefined;
  const { s, negative } = around;
  if (separator === '.') {
    const m = DIGITS.exec(s);
    if (m === null) return undefined;
    return { negative, int: (m[1] ?? '0').replace(/,/g, '').replace(/^0+(?=\d)/, ''), frac: m[2] ?? m[3] ?? '' };
  }
  const m = DIGITS_COMMA.exec(s);
  if (m !== null) {
    const int = (m[1] ?? '0').replace(/[. '\u00a0\u202f]/g, '').replace(/^0+(?=\d)/, '');
    const frac = m[3] ?? m[4] ?? '';
    // `2,500` (1-3 digits, one comma, three digits): a decimal comma, or a thousands comma
    // from a file saved elsewhere; `1.234` alone: grouping, or a decimal point. Both readings
    // fit: never guess.
    if (m[2] === undefined && m[3] !== undefined && m[3].length === 3 && m[1]!.length <= 3 && m[1] !== '0') {
      throw new CellValueError(ambiguous(text, `${m[1]}${m[3]}`, `${m[1]}.${m[3]}`, ','));
    }
    if (m[2] === '.' && m[3] === undefined && /^\d{1,3}\.\d{3}$/.test(m[1]!) && !m[1]!.startsWith('0')) {
      throw new CellValueError(ambiguous(text, int, m[1]!, '.'));
    }
    return { negative, int, frac };
  }
  const p = POINT_IN_COMMA_FILE.exec(s);
  if (p !== null) return { negative, int: p[1]!.replace(/^0+(?=\d)/, ''), frac: p[2]! };
  return undefined;
}

function ambiguous(text: string, grouped: string, decimal: string, mark: string): string {
  return `${describe(text)} can be read two ways: ${grouped} (with "${mark}" grouping thousands) or ${decimal} (with "${mark}" as the decimal mark). ` +
    `Write ${grouped} for the first or ${unambiguousComma(decimal)} for the second, or say how the file writes numbers with --decimal-separator . or ,`;
}

/** `2.500` → `2,5`; `1.234` → `1,2340` (one comma and three digits would be ambiguous again). */
function unambiguousComma(decimal: string): string {
  let [int, frac = ''] = decimal.split('.');
  frac = frac.replace(/0+$/, '');
  if (frac.length === 3) frac += '0';
  return frac === '' ? int! : `${int},${frac}`;
}

function numberRefused(cell: CellValue, separator: '.' | ','): CellValueError {
  if (cell instanceof UnreadableCell) return new CellValueError(cell.reason);
  const hint = separator === '.' && typeof cell === 'string' && /^\s*[-+($€]*\s*\d{1,3}(?:[. ]\d{3})*,\d+\s*%?\)?\s*€?\s*$/.test(cell)
    ? ' (if "," is the decimal separator of this file, pass --decimal-separator ,)'
    : '';
  return new CellValueError(`${separator === '.' ? NUMBER_EXPECTED : NUMBER_EXPECTED_COMMA}, got ${describe(cell)}${hint}`);
}

/** A number (see `readDecimal` for the text forms); .xlsx numbers pass through. Blank → undefined. */
export function parseNumber(cell: CellValue, rules: ReadingRules = US_RULES): number | undefined {
  if (typeof cell === 'number') {
    if (!Number.isFinite(cell)) throw numberRefused(cell, rules.decimalSeparator);
    return cell;
  }
  if (isBlank(cell)) return undefined;
  if (typeof cell !== 'string') throw numberRefused(cell, rules.decimalSeparator);
  const parts = readDecimal(cell, rules.decimalSeparator);
  if (parts === undefined) throw numberRefused(cell, rules.decimalSeparator);
  const n = Number(`${parts.int}.${parts.frac || '0'}`);
  if (!Number.isFinite(n)) throw numberRefused(cell, rules.decimalSeparator);
  return parts.negative && n !== 0 ? -n : n;
}

/**
 * Exact decimal text for money (a bill's RATE is sent as decimal text, CONTRACT.md §4): the same
 * forms as `parseNumber`, returned as `-1234.50`-style text with the fraction digits as written
 * and no floating point on the way. An .xlsx number becomes its shortest round-trip text
 * (`0.1` stays `0.1`). Blank → undefined.
 */
export function parseDecimalText(cell: CellValue, rules: ReadingRules = US_RULES): string | undefined {
  if (typeof cell === 'number') {
    if (!Number.isFinite(cell)) throw numberRefused(cell, rules.decimalSeparator);
    return numberToDecimalText(cell);
  }
  if (isBlank(cell)) return undefined;
  if (typeof cell !== 'string') throw numberRefused(cell, rules.decimalSeparator);
  const parts = readDecimal(cell, rules.decimalSeparator);
  if (parts === undefined) throw numberRefused(cell, rules.decimalSeparator);
  return joinDecimal(parts);
}

/**
 * A bill item's rate: decimal text with at most two decimals that are not zeros (it goes on the
 * wire with exactly two, CONTRACT.md §4). `1,234.567` is refused, never rounded.
 */
export function parseRateText(cell: CellValue, rules: ReadingRules = US_RULES): string | undefined {
  const text = parseDecimalText(cell, rules);
  if (text !== undefined && !fitsDecimalPlaces(text, 2)) {
    throw new CellValueError(`${describe(cell)} has more than two decimals; a rate is sent with exactly two and is never rounded. Write the rate to the cent (or split the line into a quantity and a unit rate)`);
  }
  return text;
}

function joinDecimal({ negative, int, frac }: DecimalParts): string {
  const zero = /^0*$/.test(int) && /^0*$/.test(frac);
  return `${negative && !zero ? '-' : ''}${int}${frac ? `.${frac}` : ''}`;
}

/** The shortest text that reads back as `n` (JavaScript's own), with any exponent written out. */
function numberToDecimalText(n: number): string {
  const s = String(n === 0 ? 0 : n); // -0 → '0'
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (m === null) return s;
  const digits = m[2]! + (m[3] ?? '');
  const point = m[2]!.length + Number(m[4]);
  const body =
    point <= 0 ? `0.${'0'.repeat(-point)}${digits}` : point >= digits.length ? digits + '0'.repeat(point - digits.length) : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return m[1] + body;
}

// ---- identifiers ------------------------------------------------------------------------------

const ID_EXPECTED = 'expected a positive whole number like 1042';

/**
 * A positive whole number (an ID): digits, optionally grouped by commas as spreadsheets display
 * them (`1,042`); leading zeros are ignored. Signs, fractions and other text are refused.
 * Blank → undefined.
 */
export function parseId(cell: CellValue): number | undefined {
  if (typeof cell === 'number') {
    if (Number.isSafeInteger(cell) && cell > 0) return cell;
    throw new CellValueError(`${ID_EXPECTED}, got ${describe(cell)}`);
  }
  if (isBlank(cell)) return undefined;
  if (cell instanceof UnreadableCell) refuseUnreadable(cell);
  if (typeof cell !== 'string') throw new CellValueError(`${ID_EXPECTED}, got ${describe(cell)}`);
  const s = cell.trim();
  if (!/^(?:\d{1,3}(?:,\d{3})+|\d+)$/.test(s)) throw new CellValueError(`${ID_EXPECTED}, got ${describe(cell)}`);
  const n = Number(s.replace(/,/g, ''));
  if (!Number.isSafeInteger(n) || n <= 0) throw new CellValueError(`${ID_EXPECTED}, got ${describe(cell)}`);
  return n;
}

// ---- booleans ---------------------------------------------------------------------------------

const TRUE_WORDS = new Set(['true', 'yes', 'y', '1', 'x']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0']);

/**
 * `true/false`, `yes/no`, `y/n`, `1/0` (any case), and `x` for true. Blank → undefined: the
 * "x / empty" convention of check-mark columns reads an empty cell as not set, which the caller
 * sends as false or leaves to the service's default (false, seed §2.2). .xlsx booleans and the
 * numbers 1/0 pass through.
 */
export function parseBoolean(cell: CellValue): boolean | undefined {
  if (typeof cell === 'boolean') return cell;
  if (cell === 1 || cell === 0) return cell === 1;
  if (isBlank(cell)) return undefined;
  if (cell instanceof UnreadableCell) refuseUnreadable(cell);
  if (typeof cell === 'string') {
    const word = cell.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  throw new CellValueError(`expected true/false, yes/no, y/n, 1/0 or x, got ${describe(cell)}`);
}

// ---- dates ------------------------------------------------------------------------------------

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
/** `03/02/2026`, `3.2.2026`, `03-02-2026`, with an optional `h:mm[:ss] [AM|PM]`: day and month in an order the file settles. */
const DAY_MONTH = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*([AP]M))?)?$/i;
/** `2026/03/02`, `2026.03.02` (year first, as YMD files write it). */
const YEAR_FIRST = /^(\d{4})([/.])(\d{1,2})\2(\d{1,2})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;
/** A two-digit year: never read (which century?). */
const SHORT_YEAR = /^\d{1,2}[/.-]\d{1,2}[/.-]\d{2}(?:\s|$)/;
/** Excel's serial for 9999-12-31, its last date. */
const MAX_SERIAL = 2_958_465;

const EXAMPLE_BY_ORDER: Record<DateOrder, string> = { MDY: '03/01/2026', DMY: '01/03/2026', YMD: '2026/03/01' };

function dateExpected(order: DateOrder): string {
  return `expected a date like 2026-03-01, 2026-03-01T08:30:00 or ${EXAMPLE_BY_ORDER[order]}`;
}

/**
 * What a text cell says about the file's day/month order (CONTRACT.md §3): a `D/M/YYYY`-shaped
 * date whose first part is over 12 proves day first, one whose second part is over 12 proves
 * month first, one with both parts 12 or under is ambiguous. Anything else carries no evidence.
 */
export function dayMonthEvidence(cell: CellValue): 'day-first' | 'month-first' | 'ambiguous' | undefined {
  if (typeof cell !== 'string') return undefined;
  const m = DAY_MONTH.exec(cell.trim());
  if (m === null) return undefined;
  const a = +m[1]!;
  const b = +m[3]!;
  if (a > 12 && b <= 12) return 'day-first';
  if (b > 12 && a <= 12) return 'month-first';
  if (a <= 12 && b <= 12) return 'ambiguous';
  return undefined;
}

/**
 * A date or date-time, returned as `YYYY-MM-DDTHH:MM:SS` with no zone (the service's form, seed
 * §2). Accepts ISO 8601 (`2026-03-01`, `2026-03-01T08:30`, `2026-03-01 08:30:00`, fractions of a
 * second dropped), `D/M/YYYY`-shaped dates with `/`, `.` or `-` read in the file's order
 * (`rules.dateOrder`), year-first `2026/03/01`, and from .xlsx `Date`s and serial day numbers.
 * The date must exist (`2026-02-30`, `31/02/2026` are refused); a two-digit year is refused.
 *
 * A zone suffix (`Z`, `+02:00`) is dropped and the wall-clock time kept as written: the service
 * stores zone-less local times, and converting would need a target zone the file does not give.
 * Blank → undefined.
 */
export function parseDate(cell: CellValue, rules: ReadingRules = US_RULES): string | undefined {
  const order = rules.dateOrder;
  if (cell instanceof Date) {
    if (Number.isNaN(cell.getTime())) throw new CellValueError(`${dateExpected(order)}, got an invalid date`);
    return formatDateTime(cell);
  }
  if (typeof cell === 'number') {
    // An .xlsx number in a date column whose cell is not date-formatted: Excel's serial day.
    if (!Number.isFinite(cell) || cell < 1 || cell > MAX_SERIAL) throw new CellValueError(`${dateExpected(order)}, got ${describe(cell)}`);
    return formatDateTime(new Date(Math.round((cell - 25569) * 86_400_000)));
  }
  if (isBlank(cell)) return undefined;
  if (cell instanceof UnreadableCell) refuseUnreadable(cell);
  if (typeof cell !== 'string') throw new CellValueError(`${dateExpected(order)}, got ${describe(cell)}`);
  const s = cell.trim();
  let m = ISO.exec(s);
  if (m !== null) return dateTime(cell, +m[1]!, +m[2]!, +m[3]!, +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0));
  m = YEAR_FIRST.exec(s);
  if (m !== null) return dateTime(cell, +m[1]!, +m[3]!, +m[4]!, +(m[5] ?? 0), +(m[6] ?? 0), +(m[7] ?? 0));
  m = DAY_MONTH.exec(s);
  if (m !== null) {
    if (order === 'YMD') {
      throw new CellValueError(`${describe(cell)} is not year-first, but --date-format YMD says the dates of this file are; write 2026-03-01, or pass the file's order with --date-format MDY or DMY`);
    }
    let hour = +(m[5] ?? 0);
    const half = m[8]?.toUpperCase();
    if (half !== undefined) {
      if (hour < 1 || hour > 12) throw new CellValueError(`${describe(cell)} has an hour outside 1-12 before ${half}`);
      hour = (hour % 12) + (half === 'PM' ? 12 : 0);
    }
    const [month, day] = order === 'DMY' ? [+m[3]!, +m[1]!] : [+m[1]!, +m[3]!];
    if (month > 12 && day <= 12) {
      throw new CellValueError(`${describe(cell)} is not a date in the order ${order === 'DMY' ? 'day/month/year' : 'month/day/year'} this file is read in (its ${order === 'DMY' ? 'second' : 'first'} part, ${month}, is not a month); check the value, or --date-format`);
    }
    return dateTime(cell, +m[4]!, month, day, hour, +(m[6] ?? 0), +(m[7] ?? 0));
  }
  if (SHORT_YEAR.test(s)) throw new CellValueError(`${describe(cell)} has a two-digit year; write the year with four digits (${EXAMPLE_BY_ORDER[order]})`);
  throw new CellValueError(`${dateExpected(order)}, got ${describe(cell)}`);
}

function dateTime(cell: string, year: number, month: number, day: number, hour: number, minute: number, second: number): string {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new CellValueError(`${describe(cell)} is not a calendar date${month >= 1 && month <= 12 ? ` (${MONTHS[month - 1]} ${year} has ${daysInMonth(year, month)} days)` : ' (the month must be 1-12)'}`);
  }
  if (hour > 23 || minute > 59 || second > 59) throw new CellValueError(`${describe(cell)} is not a valid time of day`);
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}`;
}

/**
 * A `Date` as `YYYY-MM-DDTHH:MM:SS`, read from its UTC fields: exceljs builds the `Date`s of
 * .xlsx cells so that their UTC fields are the wall-clock time shown in Excel.
 */
export function formatDateTime(date: Date): string {
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** The offending value as the user typed it, quoted and cut short. */
function describe(cell: CellValue | undefined): string {
  if (cell instanceof Date) return formatDateTime(cell);
  if (cell instanceof UnreadableCell) return cell.typed;
  if (typeof cell === 'string') return JSON.stringify(cell.length > 60 ? `${cell.slice(0, 57)}...` : cell);
  return String(cell);
}
