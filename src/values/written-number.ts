import { integerDigits, significantDigits, type DecimalParts } from './decimal.ts';
import { CellValueError, quoteWritten } from './value-error.ts';
import type { Wording } from '../errors/index.ts';
import { writtenCurrency } from './written-currency.ts';

/**
 * A number as a file writes it (docs/reading-rules.md), read into exact `DecimalParts` under the file's
 * decimal separator: grouping, currency, signs, accounting parentheses and `%` are decided here,
 * once, for every importer.
 */

/** `.`: `1,234.50`; `,`: `1.234,50`, `1 234,50`, `480,00`. */
export type DecimalSeparator = '.' | ',';

/**
 * Decimal point: `1234`, `1,234` or `1'234` (one grouping character, groups of three), or Indian
 * grouping (`1,23,456`: groups of two before the last three), an optional `.` fraction; or `.5`.
 * Groups: 1 the integer digits, 2 the grouping character (of groups of three), 3 the fraction
 * after digits, 4 a fraction alone.
 */
const DIGITS = /^(?:([1-9]\d{0,2}(?:([,'])\d{3})(?:\2\d{3})*|[1-9]\d?(?:,\d\d)+,\d{3}|\d+)(?:\.(\d+))?|\.(\d+))$/;
/**
 * Decimal comma: `1234`, `1.234`, `1 234`, `1'234` (one grouping character, groups of three;
 * spaces include the no-break spaces spreadsheets write), an optional `,` fraction; or `,5`.
 * The same groups as `DIGITS`.
 */
const DIGITS_COMMA = /^(?:([1-9]\d{0,2}(?:([. '\u00a0\u202f])\d{3})(?:\2\d{3})*|\d+)(?:,(\d+))?|,(\d+))$/;
/** One group of three after one to three digits: `2,500` (with `.`), `1.234` (with `,`). */
const ONE_COMMA_GROUP = /^[1-9]\d{0,2},\d{3}$/;
const ONE_POINT_GROUP = /^[1-9]\d{0,2}\.\d{3}$/;
/** A lone `.` decimal point in a decimal-comma file, which grouping cannot explain: `12.5`, `1234.567`. */
const POINT_IN_COMMA_FILE = /^(\d+)\.(\d+)$/;
/** What a decimal-comma number looks like (`1.234,50`, `-480,00 €`), to hint at the separator option. */
const COMMA_DECIMAL_SHAPE = /^\s*[-+($€]*\s*\d{1,3}(?:[. ]\d{3})*,\d+\s*%?\)?\s*€?\s*$/;
/** Excel's accounting zero and the dashes people write for nothing: ` $ -   `, `-`, `—`, `- €`. */
const DASH_ZERO = /^\s*(?:[$€]\s*)?[-\u2013\u2014]\s*(?:€\s*)?$/;
/** Past this many significant digits a number loses its last ones (a double keeps 15, as Excel does). */
const MAX_SIGNIFICANT_DIGITS = 15;

/** Full-width forms (`１２３．５`, `－５０`, `＄`) and the minus sign `−`, which spreadsheets keep as text. */
const WIDE_FORMS = /[\uff01-\uff5e\uffe5\u2212]/;

/**
 * `text` with full-width digits, signs and marks (U+FF01 to U+FF5E, `￥`) and the minus sign `−`
 * as their ASCII forms (`１２３．５` is `123.5`), docs/reading-rules.md; other text as it is.
 */
export function asciiNumberForm(text: string): string {
  if (!WIDE_FORMS.test(text)) return text;
  return text.replace(/[\uff01-\uff5e]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0)).replace(/\uffe5/g, '¥').replace(/\u2212/g, '-');
}

function isAsciiDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Strips what surrounds the digits: `(12.00)` or `$(12.00)` (negative, accounting style), one sign, a `$` or
 * `€` before or `€` after, and `%` (= the percent figure). Returns the digits and the sign, or
 * undefined for two signs, a currency with `%`, and the like.
 */
function stripAround(text: string): { s: string; negative: boolean } | undefined {
  let s = asciiNumberForm(text).trim();
  let negative = false;
  let signs = 0;
  let currency = false;
  // A symbol or code other than `$` and `€` before, or any after (`£12`, `CHF 1'250.00`,
  // `850,00 $`, `850.00 CAD`): taken off as `writtenCurrency` reads it, which is how the
  // currency itself is exposed (the mapping layer decides whether it may be sent).
  const first = s.charCodeAt(0);
  if (first !== 36 && first !== 0x20ac && !(first >= 48 && first <= 57 && isAsciiDigit(s.charCodeAt(s.length - 1)))) {
    const written = writtenCurrency(s);
    if (written !== undefined) {
      currency = true;
      s = written.amount.trim();
    }
  }
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
  if (!currency && (s.startsWith('$') || s.startsWith('€'))) {
    currency = true;
    s = s.slice(1).trimStart();
    if (s.startsWith('-') || s.startsWith('+')) {
      negative ||= s.startsWith('-');
      signs++;
      s = s.slice(1).trimStart();
    } else if (s.startsWith('(') && s.endsWith(')')) {
      // Excel's accounting format writes a negative amount ` $(1,250.00)`.
      negative = true;
      signs++;
      s = s.slice(1, -1).trim();
    }
  } else if (!currency && s.endsWith('€')) {
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
 * `.`: `1234.5`, `1,234.50`, `1'234.50`, `$1,234.50`, `-3`, `(12.00)`, `15%` (= 15);
 * `,`: `1.234,50`, `1 234,50`, `2'500,00`, `480,00`, and a lone `.` point grouping cannot
 * explain (`12.5`); either: `-`, `—` and Excel's accounting zero (` $ -   `) are 0.
 * Anything else (letters, `1e5`, `0x10`, `NaN`, two signs) is undefined. Throws a
 * `CellValueError` for a value two readings fit, naming both (`2,500` with `,`, `2.500` with
 * `.`), and for one with more than 15 significant digits (they would be lost).
 */
export function readWrittenNumber(text: string, separator: DecimalSeparator, settled = false): DecimalParts | undefined {
  if (DASH_ZERO.test(text)) return { negative: false, int: '0', frac: '' };
  const around = stripAround(text);
  if (around === undefined) return undefined;
  const { s, negative } = around;
  let parts: DecimalParts | undefined;
  const m = (separator === '.' ? DIGITS : DIGITS_COMMA).exec(s);
  if (m !== null) {
    const written = m[1] ?? '';
    // Until the file proves its separator or an option names it, a value whose only separator is
    // one `,` or `.` followed by three digits reads two ways (`2,500`, `2.500`, `1.234`): the
    // decimal mark, or grouping from a file saved elsewhere. Never guess.
    if (!settled) {
      if (m[2] === undefined && m[3] !== undefined && couldBeGrouping(written, m[3])) {
        throw new CellValueError(ambiguous(text, `${written}${m[3]}`, `${written}.${m[3]}`, separator, separator));
      }
      const other = separator === ',' ? '.' : ',';
      if (m[2] === other && m[3] === undefined && (separator === ',' ? ONE_POINT_GROUP : ONE_COMMA_GROUP).test(written)) {
        const [int, frac] = written.split(other) as [string, string];
        throw new CellValueError(ambiguous(text, `${int}${frac}`, `${int}.${frac}`, other, separator));
      }
    }
    parts = { negative, int: integerDigits(written.replace(/[,. '\u00a0\u202f]/g, '')), frac: m[3] ?? m[4] ?? '' };
  } else if (separator === ',') {
    const p = POINT_IN_COMMA_FILE.exec(s);
    if (p !== null) parts = { negative, int: integerDigits(p[1]!), frac: p[2]! };
  }
  if (parts !== undefined && significantDigits(parts) > MAX_SIGNIFICANT_DIGITS) {
    throw new CellValueError(`${quoteWritten(text)} has ${significantDigits(parts)} significant digits; a number keeps ${MAX_SIGNIFICANT_DIGITS} (as Excel does), so the last ones would be lost. Check the value, or write it with ${MAX_SIGNIFICANT_DIGITS} digits or fewer`);
  }
  return parts;
}

/**
 * What a written number says about the file's decimal separator (docs/reading-rules.md): a value with
 * both marks proves the last one (`1,234.50` and `1'234.50` prove `.`, `1.234,50` proves `,`);
 * so does one mark that grouping cannot explain: followed by other than three digits (`2.35`,
 * `480,00`), or after digits no group starts with (`0,500`, `1234.567`). `2,500`, `1.234`,
 * whole numbers, and anything that is not a number carry no evidence.
 */
export function decimalEvidence(value: unknown): DecimalSeparator | undefined {
  if (typeof value !== 'string' || (value.indexOf('.') < 0 && value.indexOf(',') < 0 && value.indexOf('．') < 0 && value.indexOf('，') < 0)) return undefined;
  const around = stripAround(value);
  if (around === undefined) return undefined;
  for (const mark of ['.', ','] as const) {
    const m = (mark === '.' ? DIGITS : DIGITS_COMMA).exec(around.s);
    if (m === null) continue;
    if (m[4] !== undefined) return mark;
    if (m[3] !== undefined && (m[2] !== undefined || !couldBeGrouping(m[1]!, m[3]))) return mark;
  }
  return undefined;
}

/**
 * Whether `text` ends, before what follows its digits (a currency, `%`, `)`), in a digit, one `.`
 * or `,` and exactly three digits (`4.850`, `2,500`, `$1.250`): a value that reads two ways until
 * the file proves its separator (the weighing notes it, so that a proof found later settles it).
 */
export function endsInThreeDecimals(text: string): boolean {
  let i = text.length - 1;
  while (i >= 0 && !isAsciiDigit(text.charCodeAt(i))) i--;
  if (i < 4 || !isAsciiDigit(text.charCodeAt(i - 1)) || !isAsciiDigit(text.charCodeAt(i - 2))) return false;
  const mark = text.charCodeAt(i - 3);
  return (mark === 46 || mark === 44) && isAsciiDigit(text.charCodeAt(i - 4)) && !isAsciiDigit(text.charCodeAt(i + 1));
}

/** Whether `int` and three more digits could be one number grouped in thousands (`2` and `500`; not `0` and `500`, not `1234` and `567`). */
function couldBeGrouping(int: string, frac: string): boolean {
  return frac.length === 3 && int.length <= 3 && !int.startsWith('0');
}

/** Whether `text` looks like a decimal-comma number (`1.234,50`), as a `.` file would misread it. */
export function looksLikeDecimalComma(text: string): boolean {
  return COMMA_DECIMAL_SHAPE.test(text);
}

function ambiguous(text: string, grouped: string, decimal: string, mark: string, separator: DecimalSeparator): Wording {
  return [
    `${quoteWritten(text)} can be read two ways: ${grouped} (with "${mark}" grouping thousands) or ${decimal} (with "${mark}" as the decimal mark). ` +
      `Write ${grouped} for the first or ${unambiguous(decimal, separator)} for the second, `,
    { kind: 'decimal-separator-ambiguous' },
  ];
}

/**
 * `2.500` → `2,5` (`2.5` in a decimal-point file); `1.234` → `1,2340` (one mark and three digits
 * would be ambiguous again).
 */
function unambiguous(decimal: string, separator: DecimalSeparator): string {
  const [int, written = ''] = decimal.split('.');
  let frac = written.replace(/0+$/, '');
  if (frac.length === 3) frac += '0';
  return frac === '' ? int! : `${int}${separator}${frac}`;
}
