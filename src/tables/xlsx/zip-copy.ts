import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { crc32, createDeflateRaw } from 'node:zlib';
import { centralDirectoryEntry, DOS_FIRST_DAY, endOfCentralDirectory, FLAG_UTF8_NAME, localFileHeader, METHOD_DEFLATED, ZIP32_MAX, type PlacedEntry } from '../../zip/records.ts';
import type { Zip, ZipEntry } from './zip.ts';

/*
 * A copy of a workbook's zip with some parts replaced (`edit-cells.ts`): every other part is
 * copied as it is stored, byte for byte (the same deflated bytes, CRC and sizes), so that it reads
 * exactly as before. The records are laid out by `src/zip/records.ts`, the part an .xlsx upload
 * needs: no ZIP64 (an upload is a few tens of MB), no encryption, no comments. Of an entry's flags
 * only bit 11 (the name is UTF-8) is kept; the copy keeps no modification times (the format's
 * first day, 1980-01-01 00:00, for every entry).
 */

/** A part's new content, as it is made (the XML of a sheet, streamed). */
export type PartContent = () => AsyncIterable<Buffer>;

/**
 * Writes `zip` to `out` (mode 0600), each part named in `replaced` (by its directory name) holding
 * the content given, deflated; only the deflated bytes of a replaced part are held in memory.
 */
export async function writeZipCopy(zip: Zip, out: string, replaced: ReadonlyMap<string, PartContent>): Promise<void> {
  const handle = await open(out, 'w', 0o600);
  try {
    let offset = 0;
    const put = async (bytes: Uint8Array): Promise<void> => {
      await handle.write(bytes);
      offset += bytes.length;
    };
    const written: PlacedEntry[] = [];
    for (const entry of zip.entries()) {
      const name = Buffer.from(entry.name, entry.flags & FLAG_UTF8_NAME ? 'utf8' : 'latin1');
      const content = replaced.get(entry.name);
      const packed = content === undefined ? undefined : await deflated(content());
      const w: PlacedEntry = packed === undefined
        ? { name, flags: entry.flags & FLAG_UTF8_NAME, method: entry.method, modified: DOS_FIRST_DAY, crc: entry.crc, compressed: entry.compressedSize, size: entry.size, offset }
        : { name, flags: entry.flags & FLAG_UTF8_NAME, method: METHOD_DEFLATED, modified: DOS_FIRST_DAY, crc: packed.crc, compressed: packed.bytes.length, size: packed.size, offset };
      if (w.offset > ZIP32_MAX || w.compressed > ZIP32_MAX || w.size > ZIP32_MAX) throw new RangeError(`the workbook's part ${entry.name} is too large to copy (over 4 GiB)`);
      await put(localFileHeader(w));
      if (packed !== undefined) await put(packed.bytes);
      else for await (const chunk of zip.raw(entry as ZipEntry)) await put(chunk);
      written.push(w);
    }
    const dirOffset = offset;
    for (const w of written) await put(centralDirectoryEntry(w));
    await put(endOfCentralDirectory(written.length, offset - dirOffset, dirOffset));
  } finally {
    await handle.close();
  }
}

/** `content` deflated, with the CRC and size of what went in. */
async function deflated(content: AsyncIterable<Buffer>): Promise<{ bytes: Buffer; crc: number; size: number }> {
  let crc = 0;
  let size = 0;
  async function* counted(): AsyncGenerator<Buffer> {
    for await (const chunk of content) {
      crc = crc32(chunk, crc);
      size += chunk.length;
      yield chunk;
    }
  }
  const out: Buffer[] = [];
  await pipeline(counted, createDeflateRaw(), async (deflating: AsyncIterable<Buffer>) => {
    for await (const chunk of deflating) out.push(chunk);
  });
  return { bytes: Buffer.concat(out), crc: crc >>> 0, size };
}
