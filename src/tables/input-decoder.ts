import { isAscii } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { FileError, type Worded } from '../errors/index.ts';
import { decideSingleByte, utf16ByZeros, type Reading } from './encoding-evidence.ts';
import { decoderOf, encodingName, encodingOf, type EncodingOption, type InputEncoding } from './encodings.ts';

export type { EncodingOption, InputEncoding } from './encodings.ts';

/**
 * Where the bytes stop fitting the encoding: thrown by `InputDecoder.decode` with the byte's
 * offset in the file; the reader turns it into a `FileError` naming the line and column
 * (`locateByte`), which needs the file read again up to there, asynchronously.
 */
export class EncodingMismatch extends Error {
  constructor(
    readonly offset: number,
    readonly byte: number,
    readonly why: string,
  ) {
    super(why);
  }
}

/** A NUL byte: no text CSV holds one (UTF-16 without a BOM, a binary file, a damaged cell). */
export class NulByte extends EncodingMismatch {
  constructor(offset: number, readonly hint: Worded) {
    super(offset, 0, 'a NUL byte, which no text holds');
  }
}

/**
 * Text that is not UTF-8 and that no single-byte encoding, or more than one, reads plausibly
 * (docs/reading-rules.md): the import stops, showing a word as each candidate reads it.
 */
export class EncodingUndecided extends EncodingMismatch {
  constructor(
    offset: number,
    readonly readings: Reading[],
    readonly plausible: boolean,
  ) {
    super(offset, 0, plausible ? 'text that reads plausibly in more than one encoding' : 'text that reads plausibly in no encoding');
  }
}

/**
 * Turns the raw chunks of a CSV file into chunks csv-parse can read (UTF-8 bytes), deciding the
 * encoding on the way, in the first pass over the file (docs/reading-rules.md, "Files"). With `auto`:
 *
 * - a BOM decides: EF BB BF is UTF-8, FF FE UTF-16 LE, FE FF UTF-16 BE; without one, the pattern
 *   of zero bytes of the first read says UTF-16 LE or BE (`utf16ByZeros`);
 * - otherwise the file is UTF-8 unless its bytes are not UTF-8 and show no UTF-8 sequence at all.
 *   While every byte seen is ASCII (identical in every candidate), chunks pass through untouched.
 *   The first non-ASCII byte decides: part of a valid UTF-8 sequence → UTF-8 (later chunks are
 *   still validated); not → a single-byte encoding from there on, chosen on the evidence of the
 *   read that holds that byte (`decideSingleByte`: Windows-1252 unless implausible, then
 *   Windows-1250 or Mac Roman, whichever alone reads plausibly; else `EncodingUndecided`). That is
 *   lossless because everything before it was ASCII.
 * - a file that mixes UTF-8 and a single-byte encoding (a valid UTF-8 `é` in one place, a lone
 *   0xE9 in another, in either order) stops with `EncodingMismatch` at the first byte that does
 *   not fit: never mojibake.
 *
 * A forced encoding (`--encoding LABEL`, any WHATWG label) decodes as told; `utf8` still refuses
 * bytes that are not UTF-8.
 *
 * UTF-8 input stays as Buffers (csv-parse parses bytes, so the fast path does no decoding at all);
 * other encodings are decoded to strings and re-encoded as UTF-8 bytes.
 */
export class InputDecoder {
  encoding: InputEncoding = 'utf-8';
  private started = false;
  private asciiSoFar = true;
  private bytesSeen = 0;
  /** Validates UTF-8 across chunk boundaries (`stream: true` keeps a split sequence pending). */
  private validator: TextDecoder | undefined;
  /** Set for every encoding but UTF-8: the input is decoded to text. */
  private text: TextDecoder | undefined;
  /** An auto-detected single-byte encoding: later bytes must show no UTF-8 sequence. */
  private watchForUtf8 = false;
  /** The WHATWG encoding `--encoding` names, or `auto`. */
  private readonly forced: string;

  constructor(
    private readonly file: string,
    option: EncodingOption = 'auto',
  ) {
    const forced = encodingOf(option);
    if (forced === undefined) throw new FileError(file, [{ kind: 'option', option: 'encoding', value: option }, ' names no encoding buildsync reads: give auto, utf8, utf16le, utf16be, cp1252, or a WHATWG encoding label (windows-1250, macintosh, shift_jis, …).']);
    this.forced = forced;
  }

  decode(chunk: Buffer): Buffer {
    if (!this.started) {
      this.started = true;
      chunk = this.start(chunk);
    }
    const offset = this.bytesSeen;
    this.bytesSeen += chunk.length;
    if (this.text) {
      if (this.watchForUtf8) {
        const at = firstUtf8Sequence(chunk, 0);
        if (at !== -1) throw this.mixed(offset + at, chunk[at]!, `a UTF-8 sequence after ${encodingName(this.encoding)} text`);
      }
      return Buffer.from(this.text.decode(chunk, { stream: true }), 'utf8');
    }
    if (offset > 0) {
      const nul = chunk.indexOf(0);
      if (nul !== -1) throw new NulByte(offset + nul, 'A NUL byte is no text: delete that character (a damaged cell, or a binary file appended), then save the file again as "CSV UTF-8".');
    }
    if (this.asciiSoFar) {
      if (isAscii(chunk)) return chunk;
      this.asciiSoFar = false;
      const bad = firstInvalidUtf8(chunk);
      if (bad === -1) {
        this.utf8Validator().decode(chunk, { stream: true });
        return chunk;
      }
      if (bad === chunk.length) {
        // Only a sequence split at the chunk's end: the validator holds it until the next chunk.
        this.utf8Validator().decode(chunk, { stream: true });
        return chunk;
      }
      const firstNonAscii = chunk.findIndex((b) => b >= 0x80);
      const utf8Only = this.forced === 'utf-8' || this.encoding === 'utf-8-bom';
      if (utf8Only || firstNonAscii < bad) {
        throw this.mixed(offset + bad, chunk[bad]!, utf8Only ? 'a byte that is not UTF-8' : 'a byte that is not UTF-8 after UTF-8 text');
      }
      // The first non-ASCII byte is not UTF-8: a single-byte encoding, provided no UTF-8 follows.
      // The evidence leaves out what reads as UTF-8 after that byte: a file that mixes both is
      // told apart from one in a multi-byte encoding (Shift_JIS) whose bytes happen to form some.
      const utf8 = firstUtf8Sequence(chunk, bad);
      const verdict = decideSingleByte(utf8 === -1 ? chunk : maskUtf8Sequences(chunk, utf8), chunk);
      if ('readings' in verdict) throw new EncodingUndecided(offset + verdict.at, verdict.readings, verdict.plausible);
      this.encoding = verdict.encoding;
      this.text = decoderOf(verdict.encoding);
      this.watchForUtf8 = true;
      if (utf8 !== -1) throw this.mixed(offset + utf8, chunk[utf8]!, `a UTF-8 sequence after ${encodingName(this.encoding)} text`);
      return Buffer.from(this.text.decode(chunk, { stream: true }), 'utf8');
    }
    try {
      this.utf8Validator().decode(chunk, { stream: true });
    } catch {
      const bad = firstInvalidUtf8(chunk);
      throw this.mixed(offset + Math.max(0, Math.min(bad, chunk.length - 1)), chunk[Math.max(0, Math.min(bad, chunk.length - 1))] ?? 0, 'a byte that is not UTF-8 after UTF-8 text');
    }
    return chunk;
  }

  /** Flushes what a multi-byte sequence split at the end of the file left pending. */
  end(): Buffer | undefined {
    if (this.text) {
      const rest = this.text.decode();
      return rest ? Buffer.from(rest, 'utf8') : undefined;
    }
    if (this.validator) {
      try {
        this.validator.decode();
      } catch {
        throw this.mixed(Math.max(0, this.bytesSeen - 1), 0, 'a UTF-8 sequence cut short at the end of the file');
      }
    }
    return undefined;
  }

  private start(chunk: Buffer): Buffer {
    const bom8 = chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf;
    const bomLE = chunk.length >= 2 && chunk[0] === 0xff && chunk[1] === 0xfe;
    const bomBE = chunk.length >= 2 && chunk[0] === 0xfe && chunk[1] === 0xff;
    const forced = this.forced;
    if (forced === 'utf-16le' && bomBE) throw this.bomContradicts('utf16le', 'UTF-16 big-endian', 'auto reads it');
    if (forced === 'utf-16be' && bomLE) throw this.bomContradicts('utf16be', 'UTF-16 little-endian', 'auto reads it');
    if (forced === 'utf-8' && (bomLE || bomBE)) {
      throw new FileError(this.file, [`${this.file} starts with a UTF-16 byte order mark, `, { kind: 'encoding-given', encoding: 'utf8', reads: 'auto reads UTF-16 with a byte order mark' }, '.']);
    }
    if (forced !== 'auto' && forced !== 'utf-8') {
      this.encoding = forced;
      this.text = decoderOf(forced);
      // A UTF-8 byte order mark under another forced encoding is no text of the file.
      return bom8 && !forced.startsWith('utf-16') ? chunk.subarray(3) : chunk;
    }
    if (bom8) {
      this.encoding = 'utf-8-bom';
      return chunk.subarray(3);
    }
    if (forced === 'utf-8') return chunk;
    if (bomLE || bomBE) {
      this.encoding = bomLE ? 'utf-16le' : 'utf-16be';
      this.text = new TextDecoder(this.encoding, { ignoreBOM: false });
      return chunk;
    }
    // NUL bytes never occur in text CSV; they do in UTF-16 saved without a BOM, whose zero
    // bytes fall on every other byte.
    const nul = chunk.indexOf(0);
    if (nul !== -1) {
      const utf16 = utf16ByZeros(chunk);
      if (utf16 !== undefined) {
        this.encoding = utf16;
        this.text = new TextDecoder(utf16);
        return chunk;
      }
      throw new NulByte(nul, 'It is not a text CSV file there: a binary file, or a damaged cell. Save it as "CSV UTF-8" or as .xlsx, or delete that character.');
    }
    return chunk;
  }

  private bomContradicts(option: string, bom: string, reads: string): FileError {
    return new FileError(this.file, [`${this.file} starts with the byte order mark of ${bom}, `, { kind: 'encoding-given', encoding: option, reads }, '.']);
  }

  private utf8Validator(): TextDecoder {
    this.validator ??= new TextDecoder('utf-8', { fatal: true });
    return this.validator;
  }

  private mixed(offset: number, byte: number, what: string): EncodingMismatch {
    return new EncodingMismatch(offset, byte, what);
  }
}

/**
 * The index of the first byte of `buf` that does not belong to a valid UTF-8 sequence, `-1`
 * when every byte does, or `buf.length` when the only problem is a sequence cut off by the end
 * of `buf` (it may continue in the next chunk).
 */
export function firstInvalidUtf8(buf: Uint8Array): number {
  for (let i = 0; i < buf.length; ) {
    const b = buf[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const n = sequenceLength(buf, i);
    if (n === 0) return i;
    if (n === -1) return buf.length;
    i += n;
  }
  return -1;
}

/** The index of the first valid multi-byte UTF-8 sequence at or after `from`, or -1. */
export function firstUtf8Sequence(buf: Uint8Array, from: number): number {
  for (let i = from; i < buf.length; i++) {
    if (buf[i]! < 0xc2) continue;
    if (sequenceLength(buf, i) > 1) return i;
  }
  return -1;
}

/** A copy of `buf` whose valid multi-byte UTF-8 sequences at or after `from` are `x`s (each byte stays where it was). */
function maskUtf8Sequences(buf: Uint8Array, from: number): Uint8Array {
  const out = Uint8Array.from(buf);
  for (let i = from; i < out.length; i++) {
    if (out[i]! < 0xc2) continue;
    const n = sequenceLength(buf, i);
    if (n > 1) {
      out.fill(0x78, i, i + n);
      i += n - 1;
    }
  }
  return out;
}

/** Length of the valid UTF-8 sequence starting at `i` (2-4), 0 when invalid, -1 when cut off by the end of `buf`. */
function sequenceLength(buf: Uint8Array, i: number): number {
  const b = buf[i]!;
  let n: number;
  let min = 0x80;
  let max = 0xbf;
  if (b >= 0xc2 && b <= 0xdf) n = 2;
  else if (b >= 0xe0 && b <= 0xef) {
    n = 3;
    if (b === 0xe0) min = 0xa0;
    if (b === 0xed) max = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    n = 4;
    if (b === 0xf0) min = 0x90;
    if (b === 0xf4) max = 0x8f;
  } else return 0;
  for (let k = 1; k < n; k++) {
    if (i + k >= buf.length) return -1;
    const c = buf[i + k]!;
    if (k === 1 ? c < min || c > max : c < 0x80 || c > 0xbf) return 0;
  }
  return n;
}
