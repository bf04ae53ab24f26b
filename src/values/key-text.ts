/**
 * How record keys are compared: as a person reads them (README "Which rows are records"). A
 * `bill_ref`, a vendor name, an estimate, category or subcategory name match another ignoring
 * case and leading, trailing and repeated spaces, whichever spaces they are. One rule, used by
 * every grouping of rows, the vendor list and the ledger's record keys.
 *
 * The rule, in order:
 *   1. Unicode NFKC: a no-break space (U+00A0), the en/em/thin spaces (U+2000–U+200A), the narrow
 *      no-break space (U+202F) and the ideographic space (U+3000) become a plain space; the
 *      full-width `ＩＮＶ-７` reads as `INV-7` and a ligature `ﬁ` as `fi`: what Excel and a PDF copy
 *      paste in, a person reads the same.
 *   2. Characters nobody sees are dropped: zero-width space, word joiner, byte-order mark, soft hyphen.
 *   3. Runs of white space (`\s`: tabs, line breaks and every Unicode space) become one space;
 *      the ends are trimmed.
 *   4. Case: `toLowerCase()`, then the two foldings where lower case is not enough for a reader:
 *      `ß` (and `ẞ`) is `ss`, a final `ς` is `σ` (Unicode's full case folding, CaseFolding.txt,
 *      for the letters a spreadsheet is likely to hold; NFKC already made `ſ` an `s` and split the
 *      ligatures). Not an upper-then-lower round trip: it would make the Turkish dotless `ı` an
 *      `i`, two letters to a Turkish reader. Not `toLocaleLowerCase(locale)`: a key must not
 *      depend on the machine's locale, or two workers would key one record two ways.
 *
 * The result is a key, never shown: the spelling sent is the first one met in the file
 * (`KeySpellings`, mapping/record-key.ts).
 */

/** Printable ASCII, single spaces between words: NFKC and the spaces change nothing, and ASCII case folds by `toLowerCase` alone (the common case). */
const PLAIN_ASCII = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;
/** Invisible characters that change nothing a reader sees. */
const INVISIBLE = /[\u00ad\u200b\u2060\ufeff]/g;
const SPACES = /\s+/gu;
/** What `toLowerCase` leaves that full case folding changes (see step 4). */
const FULL_FOLDS = /[ßς]/g;

/** The comparison form of a key's text (see the module comment); equal forms are the same key. */
export function keyText(text: string): string {
  if (PLAIN_ASCII.test(text)) return text.toLowerCase();
  return text.normalize('NFKC').replace(INVISIBLE, '').replace(SPACES, ' ').trim().toLowerCase().replace(FULL_FOLDS, (c) => (c === 'ß' ? 'ss' : 'σ'));
}

/** Whether two texts are the same key. */
export function sameKeyText(a: string, b: string): boolean {
  return a === b || keyText(a) === keyText(b);
}

/**
 * A number in E-notation as Excel shows a long number in a General cell and writes it to a CSV
 * (`1.23457E+11`, `1E+15`, `1,23457E+11` in a decimal-comma locale): a mantissa, `E`, a sign and
 * two or three digits. Its digits are already lost, so as a reference it would merge records
 * that differ in the digits Excel dropped. A ref like `12E34` (no sign) is not Excel's form.
 */
const E_NOTATION = /^[+-]?\d+(?:[.,]\d+)?[eE][+-]\d{2,3}$/;

/** Whether `text` (trimmed) is a number Excel wrote in E-notation. */
export function isENotation(text: string): boolean {
  return E_NOTATION.test(text.trim());
}
