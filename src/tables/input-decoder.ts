import { isAscii } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { FileError, type Worded } from '../errors/index.ts';

/** The encodings docs/reading-rules.md accepts, as reported in `OpenedTable.encoding`. */
export type InputEncoding = 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'windows-1252';

/** `--encoding`: `auto` decides from the bytes; the others force one (docs/reading-rules.md). */
export type EncodingOption = 'auto' | 'utf8' | 'utf16le' | 'cp1252';

export const ENCODING_OPTIONS: readonly EncodingOption[] = ['auto', 'utf8', 'utf16le', 'cp1252'];

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
 * Turns the raw chunks of a CSV file into chunks csv-parse can read (UTF-8 bytes), deciding the
 * encoding on the way without reading the file twice. With `auto`:
 *
 * - a BOM decides: EF BB BF is UTF-8, FF FE UTF-16 LE, FE FF UTF-16 BE;
 * - otherwise the file is UTF-8 unless its bytes are not UTF-8 and show no UTF-8 sequence at all,
 *   then Windows-1252. While every byte seen is ASCII (identical in both), chunks pass through
 *   untouched. The first non-ASCII byte decides: part of a valid UTF-8 sequence → UTF-8 (later
 *   chunks are still validated); not → Windows-1252 from there on, which is lossless because
 *   everything before it was ASCII.
 * - a file that mixes both (a valid UTF-8 `é` in one place, a lone 0xE9 in another, in either
 *   order) stops with `EncodingMismatch` at the first byte that does not fit: never mojibake.
 *
 * A forced encoding decodes as told; `utf8` still refuses bytes that are not UTF-8.
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
  /** Set for UTF-16 and Windows-1252: the input is decoded to text. */
  private text: TextDecoder | undefined;
  /** Auto-detected Windows-1252: later bytes must show no UTF-8 sequence. */
  private watchForUtf8 = false;

  constructor(
    private readonly file: string,
    private readonly option: EncodingOption = 'auto',
  ) {}

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
        if (at !== -1) throw this.mixed(offset + at, chunk[at]!, 'a UTF-8 sequence after Windows-1252 text');
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
      if (this.option === 'utf8' || this.encoding === 'utf-8-bom' || firstNonAscii < bad) {
        throw this.mixed(offset + bad, chunk[bad]!, this.option === 'utf8' || this.encoding === 'utf-8-bom' ? 'a byte that is not UTF-8' : 'a byte that is not UTF-8 after UTF-8 text');
      }
      // The first non-ASCII byte is not UTF-8: Windows-1252, provided no UTF-8 follows.
      this.encoding = 'windows-1252';
      this.text = new TextDecoder('windows-1252');
      this.watchForUtf8 = true;
      const utf8 = firstUtf8Sequence(chunk, bad);
      if (utf8 !== -1) throw this.mixed(offset + utf8, chunk[utf8]!, 'a UTF-8 sequence after Windows-1252 text');
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
    switch (this.option) {
      case 'cp1252':
        this.encoding = 'windows-1252';
        this.text = new TextDecoder('windows-1252');
        return chunk;
      case 'utf16le':
        if (bomBE) throw new FileError(this.file, [`${this.file} starts with the byte order mark of UTF-16 big-endian, `, { kind: 'encoding-given', encoding: 'utf16le', reads: 'auto reads it' }, '.']);
        this.encoding = 'utf-16le';
        this.text = new TextDecoder('utf-16le', { ignoreBOM: false });
        return chunk;
      case 'utf8':
        if (bomLE || bomBE) throw new FileError(this.file, [`${this.file} starts with a UTF-16 byte order mark, `, { kind: 'encoding-given', encoding: 'utf8', reads: 'auto reads UTF-16 with a byte order mark' }, '.']);
        break;
      case 'auto':
        break;
    }
    if (bom8) {
      this.encoding = 'utf-8-bom';
      return chunk.subarray(3);
    }
    if (bomLE) {
      this.encoding = 'utf-16le';
      this.text = new TextDecoder('utf-16le', { ignoreBOM: false });
      return chunk;
    }
    if (bomBE) {
      this.encoding = 'utf-16be';
      this.text = new TextDecoder('utf-16be', { ignoreBOM: false });
      return chunk;
    }
    // NUL bytes never occur in text CSV; they do in UTF-16 saved without a BOM, which would
    // otherwise pass as (valid) UTF-8 and produce headers full of NULs.
    const nul = chunk.indexOf(0);
    if (nul !== -1) {
      const utf16le = nul % 2 === 1 && chunk.length >= 4 && chunk[1] === 0 && chunk[3] === 0;
      throw new NulByte(
        nul,
        utf16le
          ? ['It looks like UTF-16 LE without a byte order mark: ', { kind: 'encoding-utf16le' }, '.']
          : 'It is not a text CSV file there: a binary file, UTF-16 without a byte order mark, or a damaged cell. Save it as "CSV UTF-8" or as .xlsx, or delete that character.',
      );
    }
    return chunk;
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
