/**
 * The two byte writers the export's row formatters share (src/export/project-writer.ts for CSV,
 * src/export/postgres/copy-row.ts for PostgreSQL's COPY): text known to be ASCII written into a buffer
 * without making a string first. Each returns the position after what it wrote; the caller has
 * made room.
 */

/** `String(n)` of a whole number from 0 to 2^53 - 1 (-0 included, which is "0"); at most 16 bytes. */
export function writeWholeNumber(buf: Buffer, at: number, n: number): number {
  if (n < 10) {
    buf[at] = 0x30 + n;
    return at + 1;
  }
  let digits = 2;
  for (let rest = n; rest >= 100; rest = Math.floor(rest / 10)) digits++;
  const end = at + digits;
  let p = end;
  do {
    const d = n % 10;
    buf[--p] = 0x30 + d;
    n = (n - d) / 10;
  } while (n > 0);
  return end;
}

/** Text known to be ASCII with nothing to guard, quote or escape (numbers, true, false). */
export function writeAscii(buf: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) buf[at++] = text.charCodeAt(i);
  return at;
}
