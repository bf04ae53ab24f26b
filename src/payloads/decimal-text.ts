/**
 * Decimal text: the one implementation of money digits in buildsync. Amounts travel as text from
 * the cell to the wire and are never passed through binary floating point (`Number('2.675')` is
 * 2.67499999…). Nothing here rounds: an amount with more digits than the wire form holds is
 * refused, since a rounded amount in a company's books is a silently wrong record
 * (CONTRACT.md §4: "never rounded").
 */

// Plain decimal notation only: an optional sign, digits, an optional fraction. No exponent, no
// thousands separators, no currency: those are the mapping layer's job, and guessing here could
// turn '1,250' into 1.25 or 1250.
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/** True when `text` is plain decimal notation (`1250`, `-0.25`, `.5`). */
export function isDecimalText(text: string): boolean {
  const m = DECIMAL.exec(text);
  return m !== null && ((m[2] ?? '') + (m[3] ?? '')).length > 0;
}

/** True when `text` is plain decimal notation whose digits past `places` decimals are all zeros. */
export function fitsDecimalPlaces(text: string, places: number): boolean {
  const m = DECIMAL.exec(text);
  if (m === null || ((m[2] ?? '') + (m[3] ?? '')).length === 0) return false;
  return /^0*$/.test((m[3] ?? '').slice(places));
}

/**
 * Writes decimal text with exactly `places` decimals, without rounding: '1250' → '1250.00',
 * '12.5' → '12.50', '12.3400' → '12.34'. Throws a RangeError naming the text when it is not
 * plain decimal notation, or when a digit past `places` is not zero ('12.345'): the caller
 * checks with `fitsDecimalPlaces` first and reports the cell.
 */
export function fixedDecimalText(text: string, places = 2): string {
  const m = DECIMAL.exec(text.trim());
  const intDigits = m?.[2] ?? '';
  const fracDigits = m?.[3] ?? '';
  if (!m || intDigits.length + fracDigits.length === 0) {
    throw new RangeError(`'${text}' is not a plain decimal number (digits, an optional '.' and fraction; no exponent or separators)`);
  }
  if (!/^0*$/.test(fracDigits.slice(places))) {
    throw new RangeError(`'${text}' has more than ${places} decimals; it is refused rather than rounded`);
  }
  const int = intDigits.replace(/^0+(?=\d)/, '') || '0';
  const frac = fracDigits.slice(0, places).padEnd(places, '0');
  const zero = /^0*$/.test(int + frac);
  // No negative zero: '-0.00' is '0.00'.
  return `${m[1] === '-' && !zero ? '-' : ''}${int}${places > 0 ? `.${frac}` : ''}`;
}
