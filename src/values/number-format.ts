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
