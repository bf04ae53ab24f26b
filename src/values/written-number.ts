import { integerDigits, type DecimalParts } from './decimal.ts';
import { CellValueError, quoteWritten } from './value-error.ts';

/**
 * A number as a file writes it (CONTRACT.md §3), read into exact `DecimalParts` under the file's
 * decimal separator: grouping, currency, signs, accounting parentheses and `%` are decided here,
 * once, for every importer.
 */

/** `.`: `1,234.50`; `,`: `1.234,50`, `1 234,50`, `480,00`. */
export type DecimalSeparator = '.' | ',';

/** `1234`, `1,234` (commas only in groups of three), with an optional fraction; or `.5`. */
const DIGITS = /^(?:([1-9]\d{0,2}(?:,\d{3})+|\d+)(?:\.(\d+))?|\.(\d+))$/;
/**
 * Decimal comma: `1234`, `1.234`, `1 234`, `1'234` (one grouping character, groups of three;
 * spaces include the no-break spaces spreadsheets write), an optional `,` fraction; or `,5`.
 */
const DIGITS_COMMA = /^(?:([1-9]\d{0,2}(?:([. '\u00a0\u202f])\d{3})(?:\2\d{3})*|\d+)(?:,(\d+))?|,(\d+))$/;
/** A lone `.` decimal point in a decimal-comma file, which grouping cannot explain: `12.5`, `1234.567`. */
const POINT_IN_COMMA_FILE = /^(\d+)\.(\d+)$/;
/** What a decimal-comma number looks like (`1.234,50`, `-480,00 €`), to hint at the separator option. */
const COMMA_DECIMAL_SHAPE = /^\s*[-+($€]*\s*\d{1,3}(?:[. ]\d{3})*,\d+\s*%?\)?\s*€?\s*$/;

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
 * Reads a number written as text under the file's decimal separator:
 * `.`: `1234.5`, `1,234.50`, `$1,234.50`, `-3`, `(12.00)`, `15%` (= 15);
 * `,`: `1.234,50`, `1 234,50`, `2'500,00`, `480,00`, and a lone `.` point grouping cannot
 * explain (`12.5`). Anything else (letters, `1e5`, `0x10`, `NaN`, two signs) is undefined.
 * A value two readings fit throws a `CellValueError` naming both (`2,500` in a decimal-comma file).
 */
export function readWrittenNumber(text: string, separator: DecimalSeparator): DecimalParts | undefined {
  const around = stripAround(text);
  if (around === undefined) return undefined;
  const { s, negative } = around;
  if (separator === '.') {
    const m = DIGITS.exec(s);
    if (m === null) return undefined;
    return { negative, int: integerDigits((m[1] ?? '').replace(/,/g, '')), frac: m[2] ?? m[3] ?? '' };
  }
  const m = DIGITS_COMMA.exec(s);
  if (m !== null) {
    const int = integerDigits((m[1] ?? '').replace(/[. '\u00a0\u202f]/g, ''));
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
  if (p !== null) return { negative, int: integerDigits(p[1]!), frac: p[2]! };
  return undefined;
}

/** Whether `text` looks like a decimal-comma number (`1.234,50`), as a `.` file would misread it. */
export function looksLikeDecimalComma(text: string): boolean {
  return COMMA_DECIMAL_SHAPE.test(text);
}

function ambiguous(text: string, grouped: string, decimal: string, mark: string): string {
  return `${quoteWritten(text)} can be read two ways: ${grouped} (with "${mark}" grouping thousands) or ${decimal} (with "${mark}" as the decimal mark). ` +
    `Write ${grouped} for the first or ${unambiguousComma(decimal)} for the second, or say how the file writes numbers with --decimal-separator . or ,`;
}

/** `2.500` → `2,5`; `1.234` → `1,2340` (one comma and three digits would be ambiguous again). */
function unambiguousComma(decimal: string): string {
  let [int, frac = ''] = decimal.split('.');
  frac = frac.replace(/0+$/, '');
  if (frac.length === 3) frac += '0';
  return frac === '' ? int! : `${int},${frac}`;
}
