/**
 * Fast paths in front of the value parsers of `values.ts`, for the planning loop (a
 * 1,000,000-row import must stay close to raw csv-parse speed). Each returns exactly what the
 * full parser would; only the common, unambiguous shapes skip it.
 */
import type { CellFormat, CellValue } from '../tables/index.ts';
import { parseNumber, parseText, type ReadingRules } from './values.ts';

/**
 * `parseText`: a string with no white space at either end is returned as it is. `format` (the
 * cell's entry of `SourceRow.formats`) only matters to .xlsx numbers and dates.
 */
export function textOf(cell: CellValue, format?: CellFormat): string | undefined {
  if (typeof cell === 'string' && cell.length > 0) {
    const first = cell.charCodeAt(0);
    const last = cell.charCodeAt(cell.length - 1);
    // Printable ASCII at both ends: nothing for trim() to remove.
    if (first > 32 && first < 127 && last > 32 && last < 127) return cell;
  }
  return parseText(cell, format);
}

/**
 * Plain decimal notation (`12`, `-3`, `14.25`) of at most 15 digits, which `Number` reads
 * exactly as `parseNumber` does; `2.500` is not one (a point and three digits can be grouping).
 */
const PLAIN_NUMBER = /^-?(?:\d+|\d{1,3}\.(?:\d{1,2}|\d{4,})|\d{4,}\.\d+)$/;

/**
 * Two more shapes spreadsheets write all the time: an amount with a dollar sign and thousands
 * separators (`$1,234.56`, `$12`) and a plain percentage (`10%`, `12.5%`, read as 10 and 12.5).
 * Both are what `parseNumber` reads as the digits without `$`, `,` and `%`, and hold at most 14 digits.
 */
const CURRENCY = /^\$\d{1,3}(?:,\d{3}){0,3}(?:\.\d{1,2})?$/;
const PERCENT = /^\d{1,6}(?:\.\d{1,2})?%$/;

/** Whole numbers, which read the same whatever the decimal separator. */
const PLAIN_INTEGER = /^-?\d{1,15}$/;

/**
 * `parseNumber` with fast paths for plain decimals, dollar amounts and percentages (in a
 * decimal-comma file, whole numbers only: `1.234` is not 1.234 there). `format` and `percent`
 * only matter to .xlsx numbers, which `parseNumber` reads.
 */
export function numberOf(cell: CellValue, rules: ReadingRules, format?: CellFormat, percent = false): number | undefined {
  if (typeof cell === 'string' && rules.decimalSeparator === ',') {
    if (PLAIN_INTEGER.test(cell)) return Number(cell) || 0;
    return parseNumber(cell, rules, format, percent);
  }
  if (typeof cell === 'string') {
    if (PLAIN_NUMBER.test(cell) && digitCount(cell) <= 15) return Number(cell) || 0; // `|| 0`: no -0
    // `$1,234.50`: the dollar is any dollar, so only an account in US dollars (the default) takes the fast path.
    if (CURRENCY.test(cell) && (rules.currency === undefined || rules.currency === 'USD')) return Number(cell.slice(1).replaceAll(',', ''));
    if (PERCENT.test(cell)) return Number(cell.slice(0, -1));
  }
  return parseNumber(cell, rules, format, percent);
}

/** The digits of plain decimal notation: its length without the sign and the point. */
function digitCount(plain: string): number {
  return plain.length - (plain.charCodeAt(0) === 45 ? 1 : 0) - (plain.includes('.') ? 1 : 0);
}
