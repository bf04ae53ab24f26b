import { decodeBytes } from './encodings.ts';

/*
 * Which single-byte encoding a CSV that is not UTF-8 was saved in, by the evidence of its text
 * (docs/reading-rules.md, "Files"): Windows-1252 unless it reads implausibly in it, then whichever
 * of Windows-1250 and Mac Roman alone reads plausibly; otherwise the import stops and asks.
 */

/** The single-byte encodings spreadsheet programs write, in the order they are tried. */
export const SINGLE_BYTE_ENCODINGS = ['windows-1252', 'windows-1250', 'macintosh'] as const;

/** A C1 control character: no program writes one into a spreadsheet's text. */
const C1_CONTROL = /[\u0080-\u009f]/u;
/**
 * A symbol inside a word (`p³atnoœci`, `M‰rz`, `Grˆfle`): a non-ASCII symbol, number sign,
 * modifier letter or inverted/guillemet punctuation between two letters. Apostrophes, dashes and
 * the middle dot (`don’t`, `Lyon–Paris`, `col·lecció`) stand between letters in real words and
 * are not counted.
 */
const SYMBOL_IN_WORD = /\p{L}(?![\u0000-\u007f])[\p{S}\p{No}\p{Lm}¿¡«»¶§†‡•‰]\p{L}/u;
/** A non-ASCII capital after a letter (`RŽnovation`): implausible unless its word is all capitals. */
const CAPITAL_INSIDE = /\p{L}(?![\u0000-\u007f])\p{Lu}/gu;
const LETTER = /[\p{L}\p{M}]/u;
const LOWER = /\p{Ll}/u;

/**
 * Whether `text` reads as a person wrote it: no C1 control, no symbol inside a word, and no
 * non-ASCII capital that is neither first in its word nor in a word of capitals only.
 */
export function readsPlausibly(text: string): boolean {
  if (C1_CONTROL.test(text) || SYMBOL_IN_WORD.test(text)) return false;
  CAPITAL_INSIDE.lastIndex = 0;
  for (let m = CAPITAL_INSIDE.exec(text); m !== null; m = CAPITAL_INSIDE.exec(text)) {
    if (wordHasLower(text, m.index)) return false;
    CAPITAL_INSIDE.lastIndex = m.index + 1;
  }
  return true;
}

/** Whether the word around `at` holds a lower-case letter (it is then no word of capitals). */
function wordHasLower(text: string, at: number): boolean {
  let from = at;
  while (from > 0 && LETTER.test(text[from - 1]!)) from--;
  let to = at;
  while (to < text.length && LETTER.test(text[to]!)) to++;
  return LOWER.test(text.slice(from, to));
}

/** One reading of the evidence: the encoding and the word the message shows as it reads it. */
export interface Reading {
  encoding: string;
  word: string;
}

/** The verdict on bytes that are not UTF-8: the encoding, or the readings to stop with. */
export type SingleByteVerdict =
  | { encoding: string }
  /** `plausible`: several read plausibly (those are listed); otherwise none did (all are listed). `at`: the byte of the word shown, in `bytes`. */
  | { readings: Reading[]; plausible: boolean; at: number };

/**
 * The encoding of `bytes` (a read of the file that holds its first byte that is not UTF-8): the
 * rule of docs/reading-rules.md. Candidates that read the bytes identically count as one. The
 * words of a stop are taken from `shownBytes` (the same length: the bytes as read, where
 * `bytes` may have some masked).
 */
export function decideSingleByte(bytes: Uint8Array, shownBytes: Uint8Array = bytes): SingleByteVerdict {
  const texts = SINGLE_BYTE_ENCODINGS.map((encoding) => ({ encoding, text: decodeBytes(encoding, bytes) }));
  if (readsPlausibly(texts[0]!.text)) return { encoding: texts[0]!.encoding };
  const plausible = texts.slice(1).filter((t) => readsPlausibly(t.text));
  const distinct = plausible.filter((t, i) => plausible.findIndex((o) => o.text === t.text) === i);
  if (distinct.length === 1) return { encoding: distinct[0]!.encoding };
  const shown = (distinct.length === 0 ? texts : distinct).map((t) => ({ encoding: t.encoding, text: shownBytes === bytes ? t.text : decodeBytes(t.encoding, shownBytes) }));
  // The word shown is the first whose readings differ: single-byte encodings map byte i to character i.
  let at = 0;
  while (at < bytes.length && (bytes[at]! < 0x80 || shown.every((t) => t.text[at] === shown[0]!.text[at]))) at++;
  if (at === bytes.length) at = bytes.findIndex((b) => b >= 0x80);
  const [from, to] = wordAround(shownBytes, at);
  return { readings: shown.map((t) => ({ encoding: t.encoding, word: t.text.slice(from, to) })), plausible: distinct.length > 1, at: from };
}

/** The run of letters, digits and non-ASCII bytes around byte `at`. */
function wordAround(bytes: Uint8Array, at: number): [number, number] {
  const inWord = (b: number): boolean => b >= 0x80 || (b >= 0x30 && b <= 0x39) || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x7a);
  let from = at;
  while (from > 0 && inWord(bytes[from - 1]!)) from--;
  let to = at + 1;
  while (to < bytes.length && inWord(bytes[to]!) && to - from < 40) to++;
  return [from, to];
}

/**
 * UTF-16 without a byte order mark, by its zero bytes (docs/reading-rules.md): text of Latin
 * letters in UTF-16 LE has a zero in most odd bytes and in almost no even ones, and BE the other
 * way round. Undefined when the zeros show no such pattern (a binary file, a NUL in a cell).
 */
export function utf16ByZeros(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const n = Math.min(bytes.length, 4096) & ~1;
  if (n < 4) return undefined;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) even++;
    if (bytes[i + 1] === 0) odd++;
  }
  const pairs = n / 2;
  if (odd * 4 >= pairs && even * 20 <= odd) return 'utf-16le';
  if (even * 4 >= pairs && odd * 20 <= even) return 'utf-16be';
  return undefined;
}
