import { UnreadableCell, type CellFormat, type CellValue } from '../tables/index.ts';
import { RowError, wordedOf } from '../errors/index.ts';
import { currencyShown, writtenCurrency, writtenIn } from '../values/written-currency.ts';
import {
  CellValueError,
  dateExpected,
  decimalNumber,
  excelErrorRefusal,
  decimalText,
  fitsDecimalPlaces,
  formatDateTime,
  looksLikeDecimalComma,
  numberToDecimalText,
  percentShown,
  quoteWritten,
  readWrittenDate,
  readWrittenNumber,
  showNumber,
  showWholeNumber,
  storedNumber,
  storedNumberText,
  type DateOrder,
  type DecimalParts,
  type DecimalSeparator,
} from '../values/index.ts';

/**
 * Cell value parsing shared by the estimate and bill importers (docs/reading-rules.md, §4).
 *
 * Every parser takes a `CellValue` (CSV cells are strings; .xlsx cells may be numbers, booleans
 * or `Date`s) and returns the value, or `undefined` for a blank cell (null, empty or only
 * spaces): whether a blank is allowed is the caller's decision. A value that cannot be read
 * throws `CellValueError` whose message says what was expected and what was found; the caller
 * adds file, line and column with `parseCell` (or `new RowError(file, line, column, err.message)`).
 *
 * How a file writes numbers and dates is not in its cells: `ReadingRules` carries the decimal
 * separator, the day/month order and the workbook's date system, settled once per file
 * (`settleReadingRules` in `reading-rules.ts`) before any row is mapped. An `UnreadableCell` (an
 * .xlsx error value, a formula without a result) is refused by every parser, whatever the column.
 *
 * This module holds the rules of reading a cell for a field (blank, which types a field takes,
 * what the messages say); how a number or a date is written is read by the primitives of
 * `src/values/` (`readWrittenNumber`, `readWrittenDate`, `excelSerialToDate`).
 *
 * What an .xlsx cell shows (README "What a cell shows"): a number cell is read at Excel's 15
 * significant digits (`storedNumber`), and the parsers that take a `format` (the cell's
 * `SourceRow.formats` entry, undefined for General and for every CSV cell) read it as shown: a
 * percent-formatted fraction is the percentage in a percent field (`PERCENT_COLUMNS`) and a row
 * error in another numeric field; a padded code (`0000`) is its shown text in a text field; a date
 * cell in a text field is a row error.
 */

/** How one file writes numbers and dates (docs/reading-rules.md). */
export interface ReadingRules {
  /** `.`: `1,234.50`; `,`: `1.234,50`, `1 234,50`, `480,00`. */
  decimalSeparator: DecimalSeparator;
  /**
   * The file proved `decimalSeparator`, or an option named it: a value whose only separator is
   * one mark and three digits is then read with it (`4.850` is 4.85 where `.` is proved, `1.250`
   * is 1250 where `,` is). Absent: the separator is assumed, and such a value is a row error
   * naming both readings.
   */
  decimalSettled?: boolean;
  /** How a `03/02/2026`-shaped date is read; ISO dates and .xlsx date cells are read the same in every order. */
  dateOrder: DateOrder;
  /**
   * .xlsx: the workbook counts serial days in the 1904 date system (`OpenedTable.date1904`), so
   * a plain number in a date column is read from 1904-01-01. Absent: the 1900 system.
   */
  date1904?: boolean;
  /**
   * Set when no date of the file proved the order and the account's `BUILDSYNC_DATE_FORMAT`
   * gave it: that variable's name, for the summary line that says so.
   */
  dateOrderFrom?: string;
  /**
   * The account's currency (`BUILDSYNC_CURRENCY`, ISO 4217; the CLI and the page always give it,
   * USD by default); absent: no currency is checked (the value readers' own tests). A number written with
   * the symbol or code of another currency (`€1,250.00` in a USD account) is refused: estimates
   * and bills carry no currency, so it would be sent as if in the account's.
   */
  currency?: string;
  /** The variable that holds it (`BUILDSYNC_<NAME>_CURRENCY`), for messages. */
  currencyVariable?: string;
}

// What the parsers throw, and the order type of `ReadingRules`, are the mapping layer's API too.
export { CellValueError, type DateOrder } from '../values/index.ts';

/**
 * The fields whose numbers are percentages (`15%` = 15): a percent-formatted .xlsx cell holding
 * 0.15 is read as the 15 it shows in these, and is a row error in any other numeric field.
 */
export const PERCENT_COLUMNS: ReadonlySet<string> = new Set(['line_item_markup', 'markup_value', 'tax_percent']);

/** The rules of a file that settled nothing: US forms. */
export const US_RULES: ReadingRules = Object.freeze({ decimalSeparator: '.', dateOrder: 'MDY' });

/** Runs `parse` on one cell and turns its `CellValueError` into a `RowError` naming the place. */
export function parseCell<T>(parse: (cell: CellValue) => T, cell: CellValue, file: string, line: number, column: string): T {
  try {
    return parse(cell);
  } catch (err) {
    if (err instanceof CellValueError) throw new RowError(file, line, column, wordedOf(err));
    throw err;
  }
}

/** A CSV cell holding one of Excel's error texts (`#N/A`) is a row error in any field, as the .xlsx error value is. */
function refuseExcelError(cell: string): void {
  const refusal = excelErrorRefusal(cell);
  if (refusal !== undefined) throw refusal;
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

/**
 * Trimmed text; blank → undefined. An .xlsx number is the text its `format` shows when that
 * format pads or labels it (`0000` shows 310 as `0310`), else its digits (`123456789012`); a
 * boolean is `true`/`false`. A date cell is refused: Excel turned what was typed (`3-4`, `1/2`)
 * into a date, and its timestamp is not what the user meant.
 */
export function parseText(cell: CellValue, format?: CellFormat): string | undefined {
  if (isBlank(cell)) return undefined;
  if (typeof cell === 'string') {
    refuseExcelError(cell);
    return cell.trim();
  }
  if (typeof cell === 'number') {
    if (format?.kind === 'date') throw dateInText(format.code);
    if (format?.shown === true && format.kind !== 'text') {
      const shown = showNumber(storedNumberText(cell), format.code)?.trim();
      if (shown !== undefined && shown !== '') return shown;
    }
    return (format?.kind === 'padded' ? showWholeNumber(cell, format.code) : undefined) ?? storedNumberText(cell);
  }
  if (typeof cell === 'boolean') return cell ? 'true' : 'false';
  if (cell instanceof UnreadableCell) refuseUnreadable(cell);
  throw dateInText(format?.code, cell as Date);
}

function dateInText(code: string | undefined, date?: Date): CellValueError {
  const shown = date === undefined ? 'a date' : `the date ${formatDateTime(date).replace(/T00:00:00$/, '')}`;
  return new CellValueError(`Excel stored this as a date; type it as text: the cell holds ${shown}${code === undefined ? '' : ` (formatted "${code}")`}, not the text typed. Format the column as Text (or start the entry with ') and type the value again`);
}

// ---- numbers ----------------------------------------------------------------------------------

const NUMBER_EXPECTED = 'expected a number like 1,234.50';
const NUMBER_EXPECTED_COMMA = 'expected a number like 1.234,50 (the decimal separator of this file is ",")';

function numberRefused(cell: CellValue, separator: DecimalSeparator): CellValueError {
  if (cell instanceof UnreadableCell) return new CellValueError(cell.reason);
  const refused = `${separator === '.' ? NUMBER_EXPECTED : NUMBER_EXPECTED_COMMA}, got ${describe(cell)}`;
  if (separator === '.' && typeof cell === 'string' && looksLikeDecimalComma(cell)) return new CellValueError([`${refused} (`, { kind: 'decimal-comma-hint' }, ')']);
  return new CellValueError(refused);
}

/**
 * An .xlsx number as a numeric field reads it: at 15 significant digits; a percent-formatted
 * one as the percentage it shows in a percent field (`percent`), refused in any other.
 */
function storedParts(n: number, format: CellFormat | undefined, percent: boolean): number | DecimalParts {
  if (format?.kind !== 'percent') return storedNumber(n);
  const shown = percentShown(n);
  if (percent) return shown;
  throw new CellValueError(`this cell is formatted as a percent: it shows ${decimalText(shown)}% (the number ${storedNumberText(n)}), and this column is not a percentage. Type the number it means without the percent format`);
}

/**
 * A number (see `readWrittenNumber` for the text forms); an .xlsx number as `storedParts` reads
 * it with its `format`, `percent` for the fields of `PERCENT_COLUMNS`. Blank → undefined.
 */
export function parseNumber(cell: CellValue, rules: ReadingRules = US_RULES, format?: CellFormat, percent = false): number | undefined {
  if (typeof cell === 'number') {
    if (!Number.isFinite(cell)) throw numberRefused(cell, rules.decimalSeparator);
    const read = storedParts(cell, format, percent);
    return typeof read === 'number' ? read : decimalNumber(read);
  }
  if (isBlank(cell)) return undefined;
  if (typeof cell !== 'string') throw numberRefused(cell, rules.decimalSeparator);
  refuseExcelError(cell);
  refuseForeignCurrency(cell, rules);
  const parts = readWrittenNumber(cell, rules.decimalSeparator, rules.decimalSettled === true);
  if (parts === undefined) throw numberRefused(cell, rules.decimalSeparator);
  const n = decimalNumber(parts);
  if (!Number.isFinite(n)) throw numberRefused(cell, rules.decimalSeparator);
  return n;
}

/**
 * Exact decimal text for money (a bill's RATE is sent as decimal text, README, import bills): the same
 * forms as `parseNumber`, returned as `-1234.50`-style text with the fraction digits as written
 * and no floating point on the way. An .xlsx number is read as `parseNumber` reads it, as text
 * (`0.1` stays `0.1`, `=100*1.15` is `115`). Blank → undefined.
 */
export function parseDecimalText(cell: CellValue, rules: ReadingRules = US_RULES, format?: CellFormat, percent = false): string | undefined {
  if (typeof cell === 'number') {
    if (!Number.isFinite(cell)) throw numberRefused(cell, rules.decimalSeparator);
    const read = storedParts(cell, format, percent);
    return typeof read === 'number' ? numberToDecimalText(read) : decimalText(read);
  }
  if (isBlank(cell)) return undefined;
  if (typeof cell !== 'string') throw numberRefused(cell, rules.decimalSeparator);
  refuseExcelError(cell);
  refuseForeignCurrency(cell, rules);
  const parts = readWrittenNumber(cell, rules.decimalSeparator, rules.decimalSettled === true);
  if (parts === undefined) throw numberRefused(cell, rules.decimalSeparator);
  return decimalText(parts);
}

/**
 * A bill item's rate: decimal text with at most two decimals that are not zeros (it goes on the
 * wire with exactly two, README, import bills). `1,234.567` is refused, never rounded.
 */
export function parseRateText(cell: CellValue, rules: ReadingRules = US_RULES, format?: CellFormat): string | undefined {
  const text = parseDecimalText(cell, rules, format);
  if (text !== undefined && !fitsDecimalPlaces(text, 2)) {
    throw new CellValueError(`${describe(cell)} has more than two decimals; a rate is sent with exactly two and is never rounded. Write the rate to the cent (or split the line into a quantity and a unit rate)`);
  }
  return text;
}

// ---- identifiers ------------------------------------------------------------------------------

const ID_EXPECTED = 'expected a positive whole number like 1042';
/** A whole number, plain or with thousands separators (one RegExp object, not one per call). */
const ID_TEXT = /^(?:\d{1,3}(?:,\d{3})+|\d+)$/;

/**
 * A positive whole number (an ID): digits, optionally grouped by commas as spreadsheets display
 * them (`1,042`); leading zeros are ignored. Signs, fractions and other text are refused.
 * Blank → undefined.
 */
export function parseId(cell: CellValue, format?: CellFormat): number | undefined {
  if (typeof cell === 'number') {
    const n = storedParts(cell, format, false) as number;
    if (Number.isSafeInteger(n) && n > 0) return n;
    throw new CellValueError(`${ID_EXPECTED}, got ${describe(cell)}`);
  }
  if (isBlank(cell)) return undefined;
  if (cell instanceof UnreadableCell) refuseUnreadable(cell);
  if (typeof cell !== 'string') throw new CellValueError(`${ID_EXPECTED}, got ${describe(cell)}`);
  refuseExcelError(cell);
  const s = cell.trim();
  if (!ID_TEXT.test(s)) throw new CellValueError(`${ID_EXPECTED}, got ${describe(cell)}`);
  const n = Number(s.includes(',') ? s.replaceAll(',', '') : s);
  if (!Number.isSafeInteger(n) || n <= 0) throw new CellValueError(`${ID_EXPECTED}, got ${describe(cell)}`);
  return n;
}

// ---- booleans ---------------------------------------------------------------------------------

const TRUE_WORDS = new Set(['true', 'yes', 'y', '1', 'x']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0']);

/**
 * `true/false`, `yes/no`, `y/n`, `1/0` (any case), and `x` for true. Blank → undefined: the
 * "x / empty" convention of check-mark columns reads an empty cell as not set, which the caller
 * sends as false or leaves to the service's default (false, docs/service.md, Estimates). .xlsx booleans and the
 * numbers 1/0 pass through.
 */
export function parseBoolean(cell: CellValue): boolean | undefined {
  if (typeof cell === 'boolean') return cell;
  if (cell === 1 || cell === 0) return cell === 1;
  if (isBlank(cell)) return undefined;
  if (cell instanceof UnreadableCell) refuseUnreadable(cell);
  if (typeof cell === 'string') {
    refuseExcelError(cell);
    const word = cell.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  throw new CellValueError(`expected true/false, yes/no, y/n, 1/0 or x, got ${describe(cell)}`);
}

// ---- dates ------------------------------------------------------------------------------------

/**
 * A date or date-time, returned as `YYYY-MM-DDTHH:MM:SS` with no zone (the service's form, seed
 * §2): text as `readWrittenDate` reads it in the file's order (`rules.dateOrder`), or an .xlsx
 * `Date` (a date-formatted cell, read in the workbook's date system by the reader). A plain .xlsx
 * number is refused. Blank → undefined.
 */
export function parseDate(cell: CellValue, rules: ReadingRules = US_RULES): string | undefined {
  const order = rules.dateOrder;
  if (cell instanceof Date) {
    if (Number.isNaN(cell.getTime())) throw new CellValueError(`${dateExpected(order)}, got an invalid date`);
    return formatDateTime(cell);
  }
  if (typeof cell === 'number') {
    // An .xlsx number whose cell is not date-formatted (General, #,##0, …) shows a number, not a
    // date (docs/reading-rules.md): 43990 is never read as the serial day it might be.
    throw new CellValueError(
      `${dateExpected(order)}, got the number ${storedNumberText(cell)}: the cell is not formatted as a date, so Excel shows it as a number, not a date. ` +
        'Format the cell as a date (or type the date) and save the workbook again',
    );
  }
  if (isBlank(cell)) return undefined;
  if (cell instanceof UnreadableCell) refuseUnreadable(cell);
  if (typeof cell !== 'string') throw new CellValueError(`${dateExpected(order)}, got ${describe(cell)}`);
  refuseExcelError(cell);
  return readWrittenDate(cell, order);
}

/** The offending value as the user typed it, quoted and cut short. */
function describe(cell: CellValue | undefined): string {
  if (cell instanceof Date) return formatDateTime(cell);
  if (cell instanceof UnreadableCell) return cell.typed;
  if (typeof cell === 'string') return quoteWritten(cell);
  return String(cell);
}

/**
 * An amount written in a currency other than the account's is never read as the account's
 * (README, "Amounts the service cannot hold"): `€1,250.00` in a USD account stops its row.
 */
function refuseForeignCurrency(cell: string, rules: ReadingRules): void {
  const currency = rules.currency;
  if (currency === undefined) return;
  const written = writtenCurrency(cell);
  if (written === undefined || writtenIn(written, currency)) return;
  throw new CellValueError(
    `${JSON.stringify(cell.trim())} is in ${currencyShown(written)}, but this account's amounts are in ${currency} (${rules.currencyVariable ?? 'BUILDSYNC_CURRENCY'}); ` +
      'estimates and bills carry no currency: convert the amount, or import it under the account of that currency',
  );
}
