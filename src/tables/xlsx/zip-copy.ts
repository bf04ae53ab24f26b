import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { crc32, createDeflateRaw } from 'node:zlib';
import type { Zip, ZipEntry } from './zip.ts';

/*
 * A copy of a workbook's zip with some parts replaced (`edit-cells.ts`): every other part is
 * copied as it is stored, byte for byte (the same deflated bytes, CRC and sizes), so that it reads
 * exactly as before. PKWARE APPNOTE 6.3, the part an .xlsx upload needs: no ZIP64 (an upload is a
 * few tens of MB), no encryption, no comments.
 */

const LOCAL_FILE = 0x04034b50;
const CENTRAL_FILE = 0x02014b50;
const END = 0x06054b50;
const VERSION = 20;
/** Bit 11: the name is UTF-8 (kept from the original entry); nothing else is written. */
const UTF8_NAME = 0x0800;
const DEFLATED = 8;
const LIMIT = 0xffff_ffff;
/** 1980-01-01 00:00, the zip format's first day: the copy keeps no modification times. */
const DOS_TIME = 0;
const DOS_DATE = (1 << 5) | 1;

interface Written {
  name: Buffer;
  flags: number;
  method: number;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
}

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
    const written: Written[] = [];
    for (const entry of zip.entries()) {
      const name = Buffer.from(entry.name, entry.flags & UTF8_NAME ? 'utf8' : 'latin1');
      const content = replaced.get(entry.name);
      const packed = content === undefined ? undefined : await deflated(content());
      const w: Written = packed === undefined
        ? { name, flags: entry.flags & UTF8_NAME, method: entry.method, crc: entry.crc, compressed: entry.compressedSize, size: entry.size, offset }
        : { name, flags: entry.flags & UTF8_NAME, method: DEFLATED, crc: packed.crc, compressed: packed.bytes.length, size: packed.size, offset };
      if (w.offset > LIMIT || w.compressed > LIMIT || w.size > LIMIT) throw new RangeError(`the workbook's part ${entry.name} is too large to copy (over 4 GiB)`);
      await put(header(w, false));
      if (packed !== undefined) await put(packed.bytes);
      else for await (const chunk of zip.raw(entry as ZipEntry)) await put(chunk);
      written.push(w);
    }
    const dirOffset = offset;
    for (const w of written) await put(header(w, true));
    const end = Buffer.alloc(22);
    end.writeUInt32LE(END, 0);
    end.writeUInt16LE(written.length, 8);
    end.writeUInt16LE(written.length, 10);
    end.writeUInt32LE(offset - dirOffset, 12);
    end.writeUInt32LE(dirOffset, 16);
    await put(end);
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

/** A local file header (`central` false) or a central directory entry: the same fields, at two offsets. */
function header(w: Written, central: boolean): Buffer {
  const fixed = central ? 46 : 30;
  const b = Buffer.alloc(fixed + w.name.length);
  b.writeUInt32LE(central ? CENTRAL_FILE : LOCAL_FILE, 0);
  // The central entry says which version made it, then the same fields as the local header.
  if (central) b.writeUInt16LE(VERSION, 4);
  const at = central ? 6 : 4;
  b.writeUInt16LE(VERSION, at);
  b.writeUInt16LE(w.flags, at + 2);
  b.writeUInt16LE(w.method, at + 4);
  b.writeUInt16LE(DOS_TIME, at + 6);
  b.writeUInt16LE(DOS_DATE, at + 8);
  b.writeUInt32LE(w.crc, at + 10);
  b.writeUInt32LE(w.compressed, at + 14);
  b.writeUInt32LE(w.size, at + 18);
  b.writeUInt16LE(w.name.length, at + 22);
  if (central) b.writeUInt32LE(w.offset, 42);
  w.name.copy(b, fixed);
  return b;
}
