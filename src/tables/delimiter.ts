/** The delimiters docs/reading-rules.md accepts, in the order that wins a tie. */
export const DELIMITERS = [',', ';', '\t', '|'] as const;
export type Delimiter = (typeof DELIMITERS)[number];

/** `--delimiter` (mapping key `"delimiter"`): `auto` finds it; the others force one. */
export const DELIMITER_OPTIONS = ['auto', ',', ';', 'tab', 'pipe'] as const;
export type DelimiterOption = (typeof DELIMITER_OPTIONS)[number];

/** The delimiter an option forces, or undefined for `auto`. */
export function delimiterOf(option: DelimiterOption | undefined): Delimiter | undefined {
  return option === undefined || option === 'auto' ? undefined : option === 'tab' ? '\t' : option === 'pipe' ? '|' : option;
}

/** The option that forces `delimiter` (`pipe` for `|`). */
export function delimiterOption(delimiter: Delimiter): DelimiterOption {
  return delimiter === '\t' ? 'tab' : delimiter === '|' ? 'pipe' : delimiter;
}

/** How a message names a delimiter: `tab`, or the character quoted (`"|"`). */
export function delimiterShown(delimiter: string): string {
  return delimiter === '\t' ? 'tab' : `"${delimiter}"`;
}

/**
 * Where the header line ends: the index of the first CR or LF outside double quotes, or -1 when
 * `text` holds no complete line yet.
 */
export function headerLineEnd(text: string): number {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) quoted = !quoted;
    else if (!quoted && (c === 0x0a || c === 0x0d)) return i;
  }
  return -1;
}

/**
 * Picks the delimiter from the header line: the candidate that occurs most often outside quotes.
 * Header names seldom contain delimiters, whereas data rows may (`$1,234.50` in a `;` file), so
 * only the header is counted. A one-column file has none; it defaults to a comma.
 */
export function detectDelimiter(headerLine: string): Delimiter {
  const counts = DELIMITERS.map(() => 0);
  let quoted = false;
  for (let i = 0; i < headerLine.length; i++) {
    const c = headerLine[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted) {
      const k = DELIMITERS.indexOf(c as Delimiter);
      if (k !== -1) counts[k]! += 1;
    }
  }
  let best = 0;
  for (let k = 1; k < DELIMITERS.length; k++) if (counts[k]! > counts[best]!) best = k;
  return DELIMITERS[best]!;
}
