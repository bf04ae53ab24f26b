/**
 * The text a whole-number format shows, for the formats that pad or label a code: `0000` shows
 * 310 as `0310`, `00\-000` shows 2410 as `02-410`, `"INV-"0000` shows 42 as `INV-0042`. Only
 * digit placeholders (`0` pads with a zero, `#` shows a digit only when there is one), quoted
 * text, `\`-escaped characters, `-` and spaces are rendered; anything else (decimals, grouping,
 * colours, conditions, `?`, `@`, a section for negatives or zero) is not, and the caller reads
 * the number as its digits.
 */

type Token = { placeholder: '0' | '#' } | { literal: string };

/** Parsed codes, by code: a workbook has few formats and many cells. */
const parsed = new Map<string, Token[] | null>();

/**
 * `n` as format `code` shows it, or undefined when `n` is not a whole number from 0 up or the
 * code holds more than this renders.
 */
export function showWholeNumber(n: number, code: string): string | undefined {
  if (!Number.isSafeInteger(n) || n < 0) return undefined;
  let tokens = parsed.get(code);
  if (tokens === undefined) {
    tokens = tokenize(code);
    if (parsed.size >= 256) parsed.clear(); // a long-lived process reads many workbooks
    parsed.set(code, tokens);
  }
  if (tokens === null) return undefined;
  const digits = n === 0 ? '' : String(n);
  let places = 0;
  for (const t of tokens) if ('placeholder' in t) places++;
  // Digits fill the placeholders from the right; any left over go to the first one, as Excel does.
  let next = digits.length - 1;
  const out: string[] = new Array(tokens.length);
  let seen = 0;
  for (let i = tokens.length - 1; i >= 0; i--) {
    const t = tokens[i]!;
    if ('literal' in t) {
      out[i] = t.literal;
      continue;
    }
    seen++;
    if (seen === places) {
      const rest = next >= 0 ? digits.slice(0, next + 1) : '';
      out[i] = rest !== '' ? rest : t.placeholder === '0' ? '0' : '';
    } else {
      out[i] = next >= 0 ? digits[next]! : t.placeholder === '0' ? '0' : '';
      next--;
    }
  }
  return places === 0 ? undefined : out.join('');
}

/** The tokens of a one-section code, or null when it holds anything not rendered here. */
function tokenize(code: string): Token[] | null {
  const tokens: Token[] = [];
  for (let i = 0; i < code.length; i++) {
    const ch = code[i]!;
    if (ch === '0' || ch === '#') tokens.push({ placeholder: ch });
    else if (ch === '-' || ch === ' ') tokens.push({ literal: ch });
    else if (ch === '\\' && i + 1 < code.length) tokens.push({ literal: code[++i]! });
    else if (ch === '"') {
      const end = code.indexOf('"', i + 1);
      if (end < 0) return null;
      tokens.push({ literal: code.slice(i + 1, end) });
      i = end;
    } else return null;
  }
  return tokens;
}

/**
 * `n` as Excel shows it under the number format `code` (docs/reading-rules.md "What a cell shows"),
 * for the fields that take the text a cell shows: `#,##0.00 €` shows 355232.32 as `355,232.32 €`,
 * `0.00%` shows 0.25 as `25.00%`, `(#,##0.00)` shows 38245.67 as `(38,245.67)`. Rendered: the
 * sections for positive, negative and zero numbers; digit placeholders `0`, `#` and `?` before and
 * after one `.`; `,` grouping; `%`; text in quotes, `\`-escaped characters, Excel's unquoted
 * literals (`$ - + ( ) : / ^ ' { } < > = !`, spaces and letters outside the ASCII range such as
 * `€`, `£`); `_x` as a space and `*x` as nothing; colours, and `[$€-407]` as its symbol. Anything
 * else (scientific notation, fractions, `@`, conditions, a literal between digit placeholders):
 * undefined, and the caller reads the number as its digits. The number is first read at Excel's 15
 * significant digits (`digits`: its plain decimal text) and rounded half away from zero.
 */
export function showNumber(digits: string, code: string): string | undefined {
  const negative = digits.startsWith('-');
  const abs = negative ? digits.slice(1) : digits;
  const sections = splitSections(code);
  if (sections === null || sections.length === 0 || sections.length > 4) return undefined;
  const zero = /^0*\.?0*$/.test(abs);
  let section = sections[0]!;
  let sign = negative ? '-' : '';
  if (negative && sections.length >= 2) {
    section = sections[1]!;
    sign = '';
  } else if (zero && sections.length >= 3) section = sections[2]!;
  const parts = parseSection(section);
  if (parts === null) return undefined;
  const value = parts.percent ? shiftPoint(abs, 2) : abs;
  // A section of text alone (`"-"` for zero) shows its text.
  const number = parts.int === '' && parts.frac === '' ? '' : renderDigits(value, parts);
  if (number === undefined) return undefined;
  return `${sign}${parts.prefix}${number}${parts.suffix}`;
}

interface SectionParts {
  prefix: string;
  suffix: string;
  /** Placeholders of the whole part (`0`, `#`, `?`), left to right. */
  int: string;
  /** Placeholders after the point. */
  frac: string;
  grouping: boolean;
  percent: boolean;
}

/** The sections of `code` (split at `;` outside quotes and brackets), or null when a quote is left open. */
function splitSections(code: string): string[] | null {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < code.length; i++) {
    const ch = code[i]!;
    if (ch === '"') {
      const end = code.indexOf('"', i + 1);
      if (end < 0) return null;
      cur += code.slice(i, end + 1);
      i = end;
    } else if (ch === '\\' && i + 1 < code.length) {
      cur += code.slice(i, i + 2);
      i++;
    } else if (ch === '[') {
      const end = code.indexOf(']', i + 1);
      if (end < 0) return null;
      cur += code.slice(i, end + 1);
      i = end;
    } else if (ch === ';') {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

const UNQUOTED_LITERALS = new Set(['$', '-', '+', '(', ')', ':', '/', '^', "'", '{', '}', '<', '>', '=', '!', '&', '~', ' ']);

/** One section as text before and after its number, and the number's placeholders; null when it holds what is not rendered. */
function parseSection(section: string): SectionParts | null {
  const parts: SectionParts = { prefix: '', suffix: '', int: '', frac: '', grouping: false, percent: false };
  /** 0: before the number, 1: in its whole part, 2: after the point, 3: after the number. */
  let stage = 0;
  const literal = (text: string): boolean => {
    if (stage === 0) parts.prefix += text;
    else if (stage === 3 || text === '') parts.suffix += text;
    else {
      // A literal right after the number ends it; one between placeholders is not rendered here.
      stage = 3;
      parts.suffix += text;
    }
    return true;
  };
  for (let i = 0; i < section.length; i++) {
    const ch = section[i]!;
    if (ch === '0' || ch === '#' || ch === '?') {
      if (stage === 3) return null;
      if (stage === 0) stage = 1;
      if (stage === 1) parts.int += ch;
      else parts.frac += ch;
    } else if (ch === '.') {
      if (stage === 3 || stage === 2) return null;
      stage = 2;
    } else if (ch === ',') {
      if (stage === 1 && /[0#?]/.test(section[i + 1] ?? '')) parts.grouping = true;
      else return null; // a trailing comma scales by 1,000
    } else if (ch === '%') {
      parts.percent = true;
      literal('%');
    } else if (ch === '"') {
      const end = section.indexOf('"', i + 1);
      literal(section.slice(i + 1, end));
      i = end;
    } else if (ch === '\\') {
      literal(section[++i] ?? '');
    } else if (ch === '_') {
      i++;
      literal(' ');
    } else if (ch === '*') {
      i++;
    } else if (ch === '[') {
      const end = section.indexOf(']', i + 1);
      const inside = section.slice(i + 1, end);
      i = end;
      const currency = /^\$([^-]*)(?:-[0-9A-Fa-f]+)?$/.exec(inside);
      if (currency !== null) literal(currency[1]!);
      else if (!/^(Black|Blue|Cyan|Green|Magenta|Red|White|Yellow|Color\d+)$/i.test(inside)) return null;
    } else if (UNQUOTED_LITERALS.has(ch) || ch.charCodeAt(0) > 127) {
      literal(ch);
    } else return null;
  }
  return parts;
}

/** `digits` (plain decimal text, no sign) with its point moved `places` to the right. */
function shiftPoint(digits: string, places: number): string {
  const [int = '', frac = ''] = digits.split('.');
  const padded = frac.padEnd(places, '0');
  const whole = `${int}${padded.slice(0, places)}`.replace(/^0+(?=\d)/, '');
  const rest = padded.slice(places);
  return rest === '' ? whole : `${whole}.${rest}`;
}

/** The number's digits under the placeholders: rounded half away from zero to the decimals shown, grouped when asked. */
function renderDigits(value: string, parts: SectionParts): string | undefined {
  const [intText = '0', fracText = ''] = value.split('.');
  const places = parts.frac.length;
  let digits = `${intText}${fracText.padEnd(places, '0').slice(0, places)}`;
  if ((fracText[places] ?? '0') >= '5') digits = addOne(digits);
  let int = digits.slice(0, digits.length - places).replace(/^0+/, '');
  let frac = digits.slice(digits.length - places);
  const minInt = (parts.int.match(/[0?]/g) ?? []).length;
  if (int.length < minInt) int = int.padStart(minInt, '0');
  if (parts.grouping) int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  // `#` after the point shows a digit only when it is not a trailing zero.
  let keep = frac.length;
  while (keep > 0 && parts.frac[keep - 1] === '#' && frac[keep - 1] === '0') keep--;
  frac = frac.slice(0, keep);
  return frac === '' ? (places > 0 ? `${int}.` : int) : `${int}.${frac}`;
}

/** A string of decimal digits plus one in its last place. */
function addOne(digits: string): string {
  const out = digits.split('');
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] === '9') out[i] = '0';
    else {
      out[i] = String(Number(out[i]) + 1);
      return out.join('');
    }
  }
  return `1${out.join('')}`;
}
