import { CellValueError, quoteWritten } from './value-error.ts';

/**
 * Dates as a file writes them (docs/reading-rules.md), read into the service's zone-less
 * `YYYY-MM-DDTHH:MM:SS` form: the one home of the date shapes buildsync accepts, the day/month
 * order they are read in, and the calendar checks. A number in a date column is Excel's serial
 * day, read by `excel-serial.ts`.
 */

/** How a `03/02/2026`-shaped date is read; ISO dates and .xlsx date cells are read the same in every order. */
export type DateOrder = 'MDY' | 'DMY' | 'YMD';

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
/** `03/02/2026`, `3.2.2026`, `03-02-2026`, with an optional `h:mm[:ss] [AM|PM]`: day and month in an order the file settles. */
const DAY_MONTH = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*([AP]M))?)?$/i;
/** `2026/03/02`, `2026.03.02` (year first, as YMD files write it). */
const YEAR_FIRST = /^(\d{4})([/.])(\d{1,2})\2(\d{1,2})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;
/** A two-digit year: never read (which century?). */
const SHORT_YEAR = /^\d{1,2}[/.-]\d{1,2}[/.-]\d{2}(?:\s|$)/;
/** English month names, full or in three letters (`Mar`, `march`; not `Sept`). */
const MONTH_NAME = 'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
/** `2 Mar 2026`, `9-Mar-2026`, `2 March 2026`: the day, the month's name, the year (two digits are caught to be refused). */
const DAY_MONTH_NAME = new RegExp(`^(\\d{1,2})([ -])(${MONTH_NAME})\\.?\\2(\\d{4}|\\d{2})$`, 'i');
/** `March 9, 2026`, `Mar 9 2026`. */
const MONTH_NAME_DAY = new RegExp(`^(${MONTH_NAME})\\.?\\s+(\\d{1,2}),?\\s+(\\d{4}|\\d{2})$`, 'i');
const MONTH_ABBREVIATIONS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

const EXAMPLE_BY_ORDER: Record<DateOrder, string> = { MDY: '03/01/2026', DMY: '01/03/2026', YMD: '2026/03/01' };

/** What a date column expects, with an example in the file's order: the start of every "not a date" message. */
export function dateExpected(order: DateOrder): string {
  return `expected a date like 2026-03-01, 2026-03-01T08:30:00 or ${EXAMPLE_BY_ORDER[order]}`;
}

/**
 * What a written value says about the file's day/month order: a `D/M/YYYY`-shaped date whose
 * first part is over 12 proves day first, one whose second part is over 12 proves month first,
 * one with both parts 12 or under is ambiguous. Anything else (not text, or not that shape)
 * carries no evidence.
 */
export function dayMonthEvidence(value: unknown): 'day-first' | 'month-first' | 'ambiguous' | undefined {
  if (typeof value !== 'string') return undefined;
  const m = DAY_MONTH.exec(value.trim());
  if (m === null) return undefined;
  const a = +m[1]!;
  const b = +m[3]!;
  if (a > 12 && b <= 12) return 'day-first';
  if (b > 12 && a <= 12) return 'month-first';
  if (a <= 12 && b <= 12) return 'ambiguous';
  return undefined;
}

/**
 * A date or date-time written as text, returned as `YYYY-MM-DDTHH:MM:SS`. Accepts ISO 8601
 * (`2026-03-01`, `2026-03-01T08:30`, `2026-03-01 08:30:00`, fractions of a second dropped),
 * `D/M/YYYY`-shaped dates with `/`, `.` or `-` read in `order`, year-first `2026/03/01`, and
 * English month names (`2 Mar 2026`, `March 9, 2026`, `9-Mar-2026`), which any order reads alike.
 * The date must exist (`2026-02-30`, `31/02/2026` are refused); a two-digit year is refused.
 * A zone suffix (`Z`, `+02:00`) is dropped and the wall-clock time kept as written: the service
 * stores zone-less local times, and converting would need a target zone the file does not give.
 * Throws a `CellValueError` quoting `text` when it is not such a date.
 */
export function readWrittenDate(text: string, order: DateOrder): string {
  const s = text.trim();
  let m = ISO.exec(s);
  if (m !== null) return dateTime(text, +m[1]!, +m[2]!, +m[3]!, +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0));
  m = YEAR_FIRST.exec(s);
  if (m !== null) return dateTime(text, +m[1]!, +m[3]!, +m[4]!, +(m[5] ?? 0), +(m[6] ?? 0), +(m[7] ?? 0));
  m = DAY_MONTH.exec(s);
  if (m !== null) {
    if (order === 'YMD') {
      throw new CellValueError([`${quoteWritten(text)} is not year-first, `, { kind: 'date-not-year-first' }]);
    }
    let hour = +(m[5] ?? 0);
    const half = m[8]?.toUpperCase();
    if (half !== undefined) {
      if (hour < 1 || hour > 12) throw new CellValueError(`${quoteWritten(text)} has an hour outside 1-12 before ${half}`);
      hour = (hour % 12) + (half === 'PM' ? 12 : 0);
    }
    const [month, day] = order === 'DMY' ? [+m[3]!, +m[1]!] : [+m[1]!, +m[3]!];
    if (month > 12 && day <= 12) {
      throw new CellValueError([`${quoteWritten(text)} is not a date in the order ${order === 'DMY' ? 'day/month/year' : 'month/day/year'} this file is read in (its ${order === 'DMY' ? 'second' : 'first'} part, ${month}, is not a month); `, { kind: 'date-order-check' }]);
    }
    return dateTime(text, +m[4]!, month, day, hour, +(m[6] ?? 0), +(m[7] ?? 0));
  }
  const named = namedMonth(s);
  if (named !== undefined) {
    if (named.year.length === 2) throw new CellValueError(`${quoteWritten(text)} has a two-digit year; write the year with four digits (${named.example})`);
    return dateTime(text, +named.year, MONTH_ABBREVIATIONS.indexOf(named.name.slice(0, 3).toLowerCase()) + 1, +named.day, 0, 0, 0);
  }
  if (SHORT_YEAR.test(s)) throw new CellValueError(`${quoteWritten(text)} has a two-digit year; write the year with four digits (${EXAMPLE_BY_ORDER[order]})`);
  throw new CellValueError(`${dateExpected(order)}, got ${quoteWritten(text)}`);
}

/** The parts of a date written with the month's name, and an example of its shape with four year digits. */
function namedMonth(s: string): { day: string; name: string; year: string; example: string } | undefined {
  const d = DAY_MONTH_NAME.exec(s);
  if (d !== null) return { day: d[1]!, name: d[3]!, year: d[4]!, example: d[2] === '-' ? '9-Mar-2026' : '9 Mar 2026' };
  const m = MONTH_NAME_DAY.exec(s);
  if (m !== null) return { day: m[2]!, name: m[1]!, year: m[3]!, example: 'March 9, 2026' };
  return undefined;
}

function dateTime(text: string, year: number, month: number, day: number, hour: number, minute: number, second: number): string {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new CellValueError(`${quoteWritten(text)} is not a calendar date${month >= 1 && month <= 12 ? ` (${MONTHS[month - 1]} ${year} has ${daysInMonth(year, month)} days)` : ' (the month must be 1-12)'}`);
  }
  if (hour > 23 || minute > 59 || second > 59) throw new CellValueError(`${quoteWritten(text)} is not a valid time of day`);
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}`;
}

/**
 * A `Date` as `YYYY-MM-DDTHH:MM:SS`, read from its UTC fields: the .xlsx reader builds the
 * `Date`s of its cells (`excelSerialToDate`) so that their UTC fields are the wall-clock time
 * shown in Excel.
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
