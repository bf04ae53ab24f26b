/** The delimiters docs/reading-rules.md accepts, in the order that wins a tie. */
export const DELIMITERS = [',', ';', '\t'] as const;
export type Delimiter = (typeof DELIMITERS)[number];

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
  const counts = [0, 0, 0];
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
