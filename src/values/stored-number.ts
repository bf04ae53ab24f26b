import { integerDigits, numberToDecimalText, type DecimalParts } from './decimal.ts';
import { CellValueError } from './value-error.ts';

/**
 * A number as a spreadsheet holds it: the one reading of an .xlsx number cell, whatever field it
 * is read for. Excel keeps and shows 15 significant digits; the binary double in the file may
 * carry noise past them (`=100*1.15` is stored 114.99999999999999 and shown 115.00, `=0.1+0.2`
 * 0.30000000000000004 shown 0.3), so the number is read at 15 digits, as Excel shows it.
 */

/** Past this a whole number has more than 15 digits, more than a spreadsheet keeps. */
const FIFTEEN_DIGITS = 1e15;

/**
 * `n` at 15 significant digits. Throws a `CellValueError` for a number of 1e15 or more: its
 * digits past the 15th are not held by the workbook (a 20-digit quantity is stored
 * 1.23456789012346E+19), so whatever was typed is already lost and is not sent changed.
 */
export function storedNumber(n: number): number {
  if (Number.isInteger(n) && n < FIFTEEN_DIGITS && n > -FIFTEEN_DIGITS) return n;
  if (!Number.isFinite(n)) throw new CellValueError(`${String(n)} is not a number`);
  if (n >= FIFTEEN_DIGITS || n <= -FIFTEEN_DIGITS) {
    throw new CellValueError(
      `the number ${numberToDecimalText(n)} has more than 15 digits; a spreadsheet keeps 15 significant digits (Excel shows it as ${n.toExponential(5).toUpperCase()}), so its last digits are already lost. ` +
        'Check the value; if it is a code or a reference, type it as text (format the column as Text first)',
    );
  }
  return Number(n.toPrecision(15)) || 0; // `|| 0`: no -0
}

/** `storedNumber` as plain decimal text (`115`, `0.3`, `123456789012`; never `1.23457E+11`). */
export function storedNumberText(n: number): string {
  return numberToDecimalText(storedNumber(n));
}

/**
 * The percentage a percent-formatted cell shows: its fraction times 100, computed on the
 * decimal digits (0.0825 shows 8.25, never 8.250000000000002).
 */
export function percentShown(fraction: number): DecimalParts {
  const text = storedNumberText(fraction);
  const negative = text.startsWith('-');
  const [int = '0', frac = ''] = (negative ? text.slice(1) : text).split('.');
  const digits = `${int}${frac.padEnd(2, '0')}`;
  const point = int.length + 2;
  return { negative, int: integerDigits(digits.slice(0, point)), frac: digits.slice(point).replace(/0+$/, '') };
}
