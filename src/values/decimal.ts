/**
 * Decimal digits: the one home of how buildsync holds and writes an exact number. Amounts travel
 * as text from the cell to the wire and are never passed through binary floating point
 * (`Number('2.675')` is 2.67499999…). Nothing here rounds: an amount with more digits than the
 * wire form holds is refused, since a rounded amount in a company's books is a silently wrong
 * record (README, import bills: "never rounded").
 *
 * How a file writes a number (separators, grouping, currency, signs) is read into
 * `DecimalParts` by `written-number.ts`; this module only knows the parts and plain notation.
 */

/** An exact number, as digits. */
export interface DecimalParts {
  negative: boolean;
  /** Integer digits without grouping separators or leading zeros ('0' at least). */
  int: string;
  /** Fraction digits as written (may be ''). */
  frac: string;
}

// Plain decimal notation only: an optional sign, digits, an optional fraction. No exponent, no
// thousands separators, no currency: those are read by `written-number.ts` under the file's
// rules, and guessing here could turn '1,250' into 1.25 or 1250.
const PLAIN = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/** The parts of plain decimal notation (`1250`, `-0.25`, `.5`, `5.`), or undefined. */
function plainParts(text: string): DecimalParts | undefined {
  const m = PLAIN.exec(text);
  const intDigits = m?.[2] ?? '';
  const frac = m?.[3] ?? '';
  if (m === null || intDigits.length + frac.length === 0) return undefined;
  return { negative: m[1] === '-', int: integerDigits(intDigits), frac };
}

/** Integer digits without leading zeros: '007' → '7', '' → '0'. */
export function integerDigits(digits: string): string {
  return digits.replace(/^0+(?=\d)/, '') || '0';
}

/**
 * How many significant digits the parts hold: from the first non-zero digit to the last one
 * (`0.00120` has 2, `1250.00` has 3). Past 15 a binary number, and Excel, no longer keep them.
 */
export function significantDigits({ int, frac }: DecimalParts): number {
  const digits = (int + frac).replace(/^0+/, '').replace(/0+$/, '');
  return digits.length;
}

/** True when every fraction digit past `places` is a zero. */
function fitsPlaces(frac: string, places: number): boolean {
  return /^0*$/.test(frac.slice(places));
}

/** True when `text` is plain decimal notation (`1250`, `-0.25`, `.5`). */
export function isDecimalText(text: string): boolean {
  return plainParts(text) !== undefined;
}

/** True when `text` is plain decimal notation whose digits past `places` decimals are all zeros. */
export function fitsDecimalPlaces(text: string, places: number): boolean {
  const parts = plainParts(text);
  return parts !== undefined && fitsPlaces(parts.frac, places);
}

/**
 * Writes decimal text with exactly `places` decimals, without rounding: '1250' → '1250.00',
 * '12.5' → '12.50', '12.3400' → '12.34'. Throws a RangeError naming the text when it is not
 * plain decimal notation, or when a digit past `places` is not zero ('12.345'): the caller
 * checks with `fitsDecimalPlaces` first and reports the cell.
 */
export function fixedDecimalText(text: string, places = 2): string {
  const parts = plainParts(text.trim());
  if (parts === undefined) {
    throw new RangeError(`'${text}' is not a plain decimal number (digits, an optional '.' and fraction; no exponent or separators)`);
  }
  if (!fitsPlaces(parts.frac, places)) {
    throw new RangeError(`'${text}' has more than ${places} decimals; it is refused rather than rounded`);
  }
  return decimalText({ ...parts, frac: parts.frac.slice(0, places).padEnd(places, '0') });
}

/** The parts as plain decimal text (`-1234.50`), with the fraction digits as held; no negative zero. */
export function decimalText({ negative, int, frac }: DecimalParts): string {
  const zero = /^0*$/.test(int) && /^0*$/.test(frac);
  return `${negative && !zero ? '-' : ''}${int}${frac ? `.${frac}` : ''}`;
}

/** The parts as the nearest binary number (for quantities; never for money); no negative zero. */
export function decimalNumber({ negative, int, frac }: DecimalParts): number {
  const n = Number(`${int}.${frac || '0'}`);
  return negative && n !== 0 ? -n : n;
}

/** The shortest text that reads back as `n` (JavaScript's own), with any exponent written out. */
export function numberToDecimalText(n: number): string {
  const s = String(n === 0 ? 0 : n); // -0 → '0'
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (m === null) return s;
  const digits = m[2]! + (m[3] ?? '');
  const point = m[2]!.length + Number(m[4]);
  const body =
    point <= 0 ? `0.${'0'.repeat(-point)}${digits}` : point >= digits.length ? digits + '0'.repeat(point - digits.length) : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return m[1] + body;
}

/**
 * Exact arithmetic on plain decimal text, for what the import page shows of a record (README, The
 * import page): a bill's or an estimate's total as its lines add up, digit for digit. Held as an
 * integer and a count of decimals (`BigInt`), never as a binary number.
 */
interface Scaled {
  digits: bigint;
  scale: number;
}

function scaledOf(text: string): Scaled {
  const parts = plainParts(text.trim());
  if (parts === undefined) throw new RangeError(`'${text}' is not a plain decimal number`);
  const digits = BigInt(parts.int + parts.frac);
  return { digits: parts.negative ? -digits : digits, scale: parts.frac.length };
}

function scaledText({ digits, scale }: Scaled): string {
  const negative = digits < 0n;
  const all = (negative ? -digits : digits).toString().padStart(scale + 1, '0');
  return decimalText({ negative, int: integerDigits(all.slice(0, all.length - scale)), frac: all.slice(all.length - scale) });
}

function rescaled(s: Scaled, scale: number): bigint {
  return s.digits * 10n ** BigInt(scale - s.scale);
}

/** `a × b`, exactly (`'12.5'`, `'3'` → `'37.5'`). Throws a RangeError for text that is not plain decimal notation. */
export function decimalProduct(a: string, b: string): string {
  const x = scaledOf(a);
  const y = scaledOf(b);
  return scaledText({ digits: x.digits * y.digits, scale: x.scale + y.scale });
}

/** The sum of `texts`, exactly ('0' for none). */
export function decimalSum(texts: Iterable<string>): string {
  const all = [...texts].map(scaledOf);
  const scale = all.reduce((m, s) => Math.max(m, s.scale), 0);
  return scaledText({ digits: all.reduce((sum, s) => sum + rescaled(s, scale), 0n), scale });
}

/**
 * Decimal text as a person reads an amount: `places` decimals and the thousands grouped with `,`
 * (`'630370'` → `'630,370.00'`). More decimals than `places` are rounded half away from zero: this
 * is for showing a total, never for what is sent (which is refused rather than rounded).
 */
export function groupedDecimalText(text: string, places = 2): string {
  const s = scaledOf(text);
  let digits: bigint;
  if (s.scale <= places) digits = rescaled(s, places);
  else {
    const unit = 10n ** BigInt(s.scale - places);
    const magnitude = s.digits < 0n ? -s.digits : s.digits;
    const rounded = (magnitude + unit / 2n) / unit;
    digits = s.digits < 0n ? -rounded : rounded;
  }
  const plain = scaledText({ digits, scale: places });
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(plain)!;
  return `${m[1]}${m[2]!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${m[3] ?? ''}`;
}

/**
 * The percentage p with the fewest decimals (at most two) for which `base` × p / 100, rounded
 * half up to cents, is `tax` (README, "Amounts the service cannot hold": 2.47 on 12.34 is 20,
 * 20.00 on 100.00 is 20), as decimal text; undefined when there is none. Signs are ignored (a
 * credit's line and its tax); among several such p of the fewest decimals (a tax of a few cents),
 * the one nearest tax / base.
 */
export function taxPercentOf(base: string, tax: string): string | undefined {
  const b = scaledOf(base);
  const t = scaledOf(tax);
  const bn = b.digits < 0n ? -b.digits : b.digits;
  const tn = t.digits < 0n ? -t.digits : t.digits;
  // The tax in whole cents, or none: a rounded amount has no fraction of a cent.
  if (t.scale > 2 && tn % 10n ** BigInt(t.scale - 2) !== 0n) return undefined;
  const cents = t.scale >= 2 ? tn / 10n ** BigInt(t.scale - 2) : tn * 10n ** BigInt(2 - t.scale);
  if (bn === 0n) return cents === 0n ? '0' : undefined;
  for (let d = 0; d <= 2; d++) {
    // base × k / 10^d cents rounds to `cents` ⇔ (2·cents − 1)·10^(s+d) ≤ 2·bn·k < (2·cents + 1)·10^(s+d).
    const unit = 10n ** BigInt(b.scale + d);
    const low = ceilDiv((2n * cents - 1n) * unit, 2n * bn);
    const high = ceilDiv((2n * cents + 1n) * unit, 2n * bn) - 1n;
    const from = low < 0n ? 0n : low;
    if (from > high) continue;
    // Nearest the exact ratio cents·10^(s+d) / bn, rounded half up, kept in [from, high].
    let k = (2n * cents * unit + bn) / (2n * bn);
    if (k < from) k = from;
    if (k > high) k = high;
    return scaledText({ digits: k, scale: d });
  }
  return undefined;
}

/** ⌈a / b⌉ for b > 0. */
function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return q * b < a ? q + 1n : q;
}
