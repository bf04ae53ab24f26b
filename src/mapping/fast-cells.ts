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
    // Printable ASCII at both ends: nothing for trim() to remove; `#` may start an Excel error text.
    if (first > 35 && first < 127 && last > 32 && last < 127) return cell;
    if (first > 32 && first < 35 && last > 32 && last < 127) return cell;
  }
  return parseText(cell, format);
}

/**
 * The shapes read here, which `parseNumber` reads as the number of their digits (`Number` of the
 * text without `$`, `,` and `%`):
 *   - plain decimal notation (`12`, `-3`, `14.25`) of at most 15 digits; `2.500` is not one (a
 *     point and three digits can be grouping), nor is `5.` or `.5`;
 *   - an amount with a dollar sign and thousands separators (`$1,234.56`, `$12`): `$`, one to
 *     three digits, up to three groups `,ddd`, one or two decimals; only for an account in US
 *     dollars (the default), since the dollar is any dollar;
 *   - a plain percentage (`10%`, `12.5%`, read as 10 and 12.5): one to six digits, one or two decimals.
 * In a decimal-comma file only whole numbers (`-?` and 1 to 15 digits), which read the same
 * whatever the decimal separator.
 */

/**
 * `parseNumber` with fast paths for the shapes above. `format` and `percent` only matter to
 * .xlsx numbers, which `parseNumber` reads.
 */
export function numberOf(cell: CellValue, rules: ReadingRules, format?: CellFormat, percent = false): number | undefined {
  if (typeof cell !== 'string') return parseNumber(cell, rules, format, percent);
  for (let i = 0; i < RECENT.length; i++) {
    const r = RECENT[i]!;
    if (r.cell === cell && r.rules === rules && r.format === format && r.percent === percent) return r.value;
  }
  const fast = rules.decimalSeparator === ',' ? wholeNumber(cell) : shapedNumber(cell, rules.currency === undefined || rules.currency === 'USD', rules.decimalSettled === true);
  const value = fast ?? parseNumber(cell, rules, format, percent);
  const r = RECENT[(next = (next + 1) % RECENT.length)]!;
  r.cell = cell;
  r.rules = rules;
  r.format = format;
  r.percent = percent;
  r.value = value;
  return value;
}

/**
 * The last text cells `numberOf` read and what each read as (a cell that is refused is not
 * kept). The row rules' totals (rows/totals.ts) read each row's unit cost and quantity, and the
 * grouper then reads the same cells again: the second reading is found here. Reading a cell
 * depends on nothing but what `numberOf` is given.
 */
const RECENT: Array<{ cell: string | null; rules: ReadingRules | undefined; format: CellFormat | undefined; percent: boolean; value: number | undefined }> = [
  { cell: null, rules: undefined, format: undefined, percent: false, value: undefined },
  { cell: null, rules: undefined, format: undefined, percent: false, value: undefined },
];
let next = 0;

/**
 * How the shapes are read: their digits (at most 15) make one whole number, exact in a double,
 * divided once by the power of ten of the decimals' count. Division rounds correctly, so the
 * result is the double nearest the decimal written, which is what `Number` gives for its text.
 */
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/** `-?` and 1 to 15 digits, else undefined. */
function wholeNumber(cell: string): number | undefined {
  const negative = cell.charCodeAt(0) === 45; // -
  let i = negative ? 1 : 0;
  const start = i;
  let value = 0;
  for (; i < cell.length; i++) {
    const d = cell.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    value = value * 10 + d;
  }
  const digits = i - start;
  if (digits === 0 || digits > 15) return undefined;
  return (negative ? -value : value) || 0; // `|| 0`: no -0
}

/** Plain decimal notation, a dollar amount (when `dollars`) or a percentage, else undefined. */
function shapedNumber(cell: string, dollars: boolean, settled: boolean): number | undefined {
  const n = cell.length;
  const first = cell.charCodeAt(0);
  if (first === 36) return dollars ? dollarAmount(cell, settled) : undefined; // $
  const negative = first === 45; // -
  let i = negative ? 1 : 0;
  let value = 0;
  const start = i;
  for (; i < n; i++) {
    const d = cell.charCodeAt(i) - 48;
    if (d < 0 || d > 9) break;
    value = value * 10 + d;
  }
  const whole = i - start;
  if (whole === 0) return undefined;
  if (i === n) return whole > 15 ? undefined : (negative ? -value : value) || 0;
  let decimals = 0;
  if (cell.charCodeAt(i) === 46) { // .
    const from = ++i;
    for (; i < n; i++) {
      const d = cell.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      value = value * 10 + d;
    }
    decimals = i - from;
    if (decimals === 0) return undefined;
    if (i === n) {
      if ((whole <= 3 && decimals === 3) || whole + decimals > 15) return undefined;
      return (negative ? -value : value) / POW10[decimals]! || 0;
    }
  }
  // A percentage: no sign, at most six digits and two decimals, `%` last.
  if (negative || whole > 6 || decimals > 2 || i !== n - 1 || cell.charCodeAt(i) !== 37) return undefined;
  return value / POW10[decimals]!;
}

/**
 * `$`, 1 to 3 digits, 0 to 3 groups `,ddd`, then `.` and 1 or 2 decimals or nothing; else
 * undefined. One group and no decimals (`$2,500`) reads two ways until the separator is settled:
 * the full parser says so.
 */
function dollarAmount(cell: string, settled: boolean): number | undefined {
  const n = cell.length;
  let i = 1;
  let value = 0;
  for (; i < n && i <= 4; i++) {
    const d = cell.charCodeAt(i) - 48;
    if (d < 0 || d > 9) break;
    value = value * 10 + d;
  }
  if (i === 1 || i > 4) return undefined;
  for (let groups = 0; i < n && cell.charCodeAt(i) === 44; groups++) { // ,
    if (groups === 3 || i + 3 >= n) return undefined;
    for (let k = 1; k <= 3; k++) {
      const d = cell.charCodeAt(i + k) - 48;
      if (!(d >= 0 && d <= 9)) return undefined;
      value = value * 10 + d;
    }
    i += 4;
  }
  if (i === n) return settled || n > 8 || cell.charCodeAt(n - 4) !== 44 || n < 6 ? value : undefined;
  if (cell.charCodeAt(i) !== 46) return undefined; // .
  const from = ++i;
  for (; i < n; i++) {
    const d = cell.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    value = value * 10 + d;
  }
  const decimals = i - from;
  return decimals === 0 || decimals > 2 ? undefined : value / POW10[decimals]!;
}
