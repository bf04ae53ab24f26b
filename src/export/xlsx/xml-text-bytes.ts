/**
 * A text cell's characters written straight into the sheet's buffer as escaped UTF-8, in one
 * pass and without making a string: the export writes a few hundred megabytes of sheet XML for
 * 200,000 projects, most of it text, and escaping with `replace` then encoding with
 * `Buffer#write` cost more than the rest of the sheet's formatting together.
 *
 * The one escaper of the export's .xlsx text (`xmlText` gives the same as a string, for the
 * header row): `&`, `<`, `>` as entities; control
 * characters and CR as Excel's `_xHHHH_` (ECMA-376 §22.9.2.19 ST_Xstring; XML 1.0 cannot hold the
 * controls, and a parser turns CR into LF); the `_` of a literal `_xHHHH_` as `_x005F_`, so a
 * reader does not decode it; U+FFFE and U+FFFF as `_xFFFE_`, `_xFFFF_`; a lone surrogate as
 * U+FFFD.
 */

/** Bytes one UTF-16 unit can take here at most (`_x0001_`). */
export const MAX_BYTES_PER_UNIT = 7;

/** Whether the text last written holds a tab, LF or CR (its `<t>` then needs `xml:space="preserve"`). */
export let lastHadBreak = false;

const HEX = '0123456789ABCDEF';
/** Below this length a loop in JavaScript beats the native encoder's call. */
const NATIVE_FROM = 64;
/** Anything the loop below would not copy as it is (a tab, LF or CR included: they set lastHadBreak). */
const ANY_ESCAPE = /[&<>\x00-\x1F_\uD800-\uDFFF\uFFFE\uFFFF]/;

/** Writes `text` escaped at `at`; returns the position after it. The caller made room for `MAX_BYTES_PER_UNIT * text.length`. */
export function writeXmlText(buf: Buffer, at: number, text: string): number {
  const n = text.length;
  // Long text with nothing to escape (most names, addresses and notes): the native encoder.
  if (n > NATIVE_FROM && !ANY_ESCAPE.test(text)) {
    lastHadBreak = false;
    return at + buf.write(text, at, 'utf8');
  }
  let breaks = false;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20) {
        if (c === 0x26) {
          // &amp;
          buf[at] = 0x26; buf[at + 1] = 0x61; buf[at + 2] = 0x6d; buf[at + 3] = 0x70; buf[at + 4] = 0x3b;
          at += 5;
        } else if (c === 0x3c || c === 0x3e) {
          // &lt; &gt;
          buf[at] = 0x26; buf[at + 1] = c === 0x3c ? 0x6c : 0x67; buf[at + 2] = 0x74; buf[at + 3] = 0x3b;
          at += 4;
        } else if (c === 0x5f && isEscapeAt(text, i)) {
          at = writeEscape(buf, at, c);
        } else {
          buf[at++] = c;
        }
      } else if (c === 0x09 || c === 0x0a) {
        breaks = true;
        buf[at++] = c;
      } else {
        if (c === 0x0d) breaks = true;
        at = writeEscape(buf, at, c);
      }
      continue;
    }
    if (c < 0x800) {
      buf[at++] = 0xc0 | (c >> 6);
      buf[at++] = 0x80 | (c & 0x3f);
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < n ? text.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        buf[at++] = 0xf0 | (cp >> 18);
        buf[at++] = 0x80 | ((cp >> 12) & 0x3f);
        buf[at++] = 0x80 | ((cp >> 6) & 0x3f);
        buf[at++] = 0x80 | (cp & 0x3f);
        i++;
        continue;
      }
      c = 0xfffd;
    } else if (c === 0xfffe || c === 0xffff) {
      at = writeEscape(buf, at, c);
      continue;
    }
    buf[at++] = 0xe0 | (c >> 12);
    buf[at++] = 0x80 | ((c >> 6) & 0x3f);
    buf[at++] = 0x80 | (c & 0x3f);
  }
  lastHadBreak = breaks;
  return at;
}

/** `text` escaped as `writeXmlText` writes it, as a string (the header row's names; tests). */
export function xmlText(text: string): string {
  const buf = Buffer.allocUnsafe(text.length * MAX_BYTES_PER_UNIT);
  return buf.toString('utf8', 0, writeXmlText(buf, 0, text));
}

/** `_xHHHH_` at `i` (the `_` of a literal one is escaped, or a reader would decode it). */
function isEscapeAt(text: string, i: number): boolean {
  if (i + 6 >= text.length || text.charCodeAt(i + 1) !== 0x78 || text.charCodeAt(i + 6) !== 0x5f) return false;
  for (let k = i + 2; k < i + 6; k++) {
    const h = text.charCodeAt(k);
    if (!((h >= 0x30 && h <= 0x39) || (h >= 0x41 && h <= 0x46) || (h >= 0x61 && h <= 0x66))) return false;
  }
  return true;
}

/** `_xHHHH_` of the UTF-16 unit `c`. */
function writeEscape(buf: Buffer, at: number, c: number): number {
  buf[at] = 0x5f;
  buf[at + 1] = 0x78;
  buf[at + 2] = HEX.charCodeAt((c >> 12) & 15);
  buf[at + 3] = HEX.charCodeAt((c >> 8) & 15);
  buf[at + 4] = HEX.charCodeAt((c >> 4) & 15);
  buf[at + 5] = HEX.charCodeAt(c & 15);
  buf[at + 6] = 0x5f;
  return at + 7;
}
