import { isAscii } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { FileError } from '../errors/index.ts';

/** The encodings CONTRACT.md §3 accepts, as reported in `OpenedTable.encoding`. */
export type InputEncoding = 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'windows-1252';

/**
 * Turns the raw chunks of a CSV file into chunks csv-parse can read (UTF-8 bytes), deciding the
 * encoding on the way without reading the file twice:
 *
 * - a BOM decides: EF BB BF is UTF-8, FF FE UTF-16 LE, FE FF UTF-16 BE;
 * - otherwise the file is UTF-8 if its bytes are valid UTF-8, else Windows-1252. While every byte
 *   seen is ASCII (identical in both), chunks pass through untouched. The first chunk with a
 *   non-ASCII byte decides: valid UTF-8 → UTF-8 (later chunks are still validated), invalid →
 *   Windows-1252 from there on, which is lossless because everything before it was ASCII.
 *   A file whose first non-ASCII text is valid UTF-8 but which later holds invalid bytes mixes
 *   encodings; rows were already handed out, so that is a `FileError` telling the user to re-save.
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

  constructor(private readonly file: string) {}

  decode(chunk: Buffer): Buffer {
    if (!this.started) {
      this.started = true;
      chunk = this.start(chunk);
    }
    const offset = this.bytesSeen;
    this.bytesSeen += chunk.length;
    if (this.text) return Buffer.from(this.text.decode(chunk, { stream: true }), 'utf8');
    if (this.asciiSoFar) {
      if (isAscii(chunk)) return chunk;
      this.asciiSoFar = false;
      try {
        this.utf8Validator().decode(chunk, { stream: true });
        return chunk;
      } catch {
        if (this.encoding === 'utf-8-bom') throw this.invalidUtf8(offset);
        this.encoding = 'windows-1252';
        this.text = new TextDecoder('windows-1252');
        return Buffer.from(this.text.decode(chunk, { stream: true }), 'utf8');
      }
    }
    try {
      this.utf8Validator().decode(chunk, { stream: true });
    } catch {
      throw this.invalidUtf8(offset);
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
        throw this.invalidUtf8(this.bytesSeen);
      }
    }
    return undefined;
  }

  private start(chunk: Buffer): Buffer {
    if (chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
      this.encoding = 'utf-8-bom';
      return chunk.subarray(3);
    }
    if (chunk.length >= 2 && chunk[0] === 0xff && chunk[1] === 0xfe) {
      this.encoding = 'utf-16le';
      this.text = new TextDecoder('utf-16le', { ignoreBOM: false });
      return chunk;
    }
    if (chunk.length >= 2 && chunk[0] === 0xfe && chunk[1] === 0xff) {
      this.encoding = 'utf-16be';
      this.text = new TextDecoder('utf-16be', { ignoreBOM: false });
      return chunk;
    }
    // NUL bytes never occur in text CSV; they do in UTF-16 saved without a BOM, which would
    // otherwise pass as (valid) UTF-8 and produce headers full of NULs.
    if (chunk.indexOf(0) !== -1) {
      throw new FileError(
        this.file,
        `${this.file} contains NUL bytes: it is not a text CSV file (UTF-16 without a byte order mark, or a binary file). Save it as "CSV UTF-8" or as .xlsx.`,
      );
    }
    return chunk;
  }

  private utf8Validator(): TextDecoder {
    this.validator ??= new TextDecoder('utf-8', { fatal: true });
    return this.validator;
  }

  private invalidUtf8(offset: number): FileError {
    return new FileError(
      this.file,
      `${this.file} is not valid UTF-8 (invalid bytes near byte ${offset}), yet earlier text was UTF-8: the file mixes encodings. Open it in a spreadsheet and save it again as "CSV UTF-8".`,
    );
  }
}
