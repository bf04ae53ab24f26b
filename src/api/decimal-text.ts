/**
 * Money amounts are rounded on their decimal TEXT, never through binary floating point:
 * `Number('2.675').toFixed(2)` is '2.67' because 2.675 is stored as 2.67499999…, while the
 * service's observed bill shape (seed §2.3) wants RATE as text with exactly two decimals and a
 * user who typed 2.675 expects 2.68.
 */

// Plain decimal notation only: an optional sign, digits, an optional fraction. No exponent, no
// thousands separators, no currency: those are the mapping layer's job, and guessing here could
// turn '1,250' into 1.25 or 1250.
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/** True when `text` is plain decimal notation that `roundDecimalText` accepts. */
export function isDecimalText(text: string): boolean {
  const m = DECIMAL.exec(text);
  return m !== null && ((m[2] ?? '') + (m[3] ?? '')).length > 0;
}

/**
 * Rounds decimal text to `places` decimals, half away from zero, and writes exactly that many
 * decimals: '0.125' → '0.13', '2.675' → '2.68', '-1.005' → '-1.01', '1250.5' → '1250.50'.
 * Throws a RangeError naming the text when it is not plain decimal notation ('1e3', '1,250', '').
 */
export function roundDecimalText(text: string, places = 2): string {
  const m = DECIMAL.exec(text.trim());
  const intDigits = m?.[2] ?? '';
  const fracDigits = m?.[3] ?? '';
  if (!m || intDigits.length + fracDigits.length === 0) {
    throw new RangeError(`'${text}' is not a plain decimal number (digits, an optional '.' and fraction; no exponent or separators)`);
  }
  const negative = m[1] === '-';
  const kept = fracDigits.slice(0, places).padEnd(places, '0');
  // The first dropped digit decides: 5 or more means the dropped part is at least one half.
  const roundUp = fracDigits.length > places && fracDigits.charCodeAt(places) >= 0x35; /* '5' */
  let scaled = BigInt((intDigits || '0') + kept);
  if (roundUp) scaled += 1n;
  const digits = scaled.toString().padStart(places + 1, '0');
  const result = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  // No negative zero: '-0.001' is '0.00'.
  return negative && scaled !== 0n ? `-${result}` : result;
}
