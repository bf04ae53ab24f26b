import { createReadStream } from 'node:fs';

/**
 * The line and column of byte `offset` of `file` (both 1-based; CR, LF and CRLF end a line; the
 * column counts characters, a UTF-8 sequence as one). Reads the file again up to `offset`: it is
 * only called to name the place of an error, so the read path itself counts nothing.
 */
export async function locateByte(file: string, offset: number): Promise<{ line: number; column: number }> {
  let line = 1;
  let column = 1;
  let previous = -1;
  const stream = createReadStream(file, { end: Math.max(0, offset - 1), highWaterMark: 256 * 1024 });
  try {
    if (offset > 0) {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        for (let i = 0; i < chunk.length; i++) {
          const b = chunk[i]!;
          if (b === 0x0a) {
            if (previous !== 0x0d) line++;
            column = 1;
          } else if (b === 0x0d) {
            line++;
            column = 1;
          } else if (b < 0x80 || b >= 0xc0) column++;
          previous = b;
        }
      }
    }
  } finally {
    stream.destroy();
  }
  return { line, column };
}
