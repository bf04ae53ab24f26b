import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import yauzl from 'yauzl';
import { fileSystemError } from '../file-errors.ts';
import { checkXlsxSignature } from '../sniff.ts';

/*
 * The zip of a workbook, read with yauzl from its central directory, so that its parts can be read
 * in the order they are needed, whatever their order in the file, and a sheet streamed straight
 * from the file. yauzl checks each part's size against its directory entry as it inflates
 * (`validateEntrySizes`) and refuses names that climb out of the archive; this module adds the CRC
 * check yauzl leaves out, the bound on the number of parts and the workbook's own words for each
 * damage. Chosen by measurement over the reader written here before (docs/benchmarks.md,
 * "Libraries"): the same speed within 15 %, so the library.
 */

/** One part of the zip, from its central directory entry. */
export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

export interface Zip {
  /** The part at `path` (part names are case-insensitive in a workbook). */
  entry(path: string): ZipEntry | undefined;
  /** The bytes of a part, inflated, checked against its size and CRC as they are read. */
  read(entry: ZipEntry): AsyncGenerator<Buffer>;
  /** Every part, in the order of the zip's directory. */
  entries(): ZipEntry[];
  /** The bytes of a part as stored (deflated or not), to copy it as it is. */
  raw(entry: ZipEntry): AsyncGenerator<Buffer>;
}

/** A zip that cannot be read; the reader wraps it in a FileError saying the workbook is damaged. */
class ZipDamage extends Error {}

/**
 * A workbook has a few parts per sheet; the 1,000-sheet limit (README, "Input limits") needs a few
 * thousand. More than this many parts is not a workbook, and listing them would cost memory.
 */
const MAX_PARTS = 65_536;
/** `zlib.crc32` is in Node 20.15 and later. */
const crc32 = (zlib as { crc32?: (data: Buffer, value?: number) => number }).crc32;

/** yauzl's words for the damages a cut or altered file shows, in the workbook's. */
function damage(err: unknown): ZipDamage {
  const message = (err as Error)?.message ?? String(err);
  if (/end of central directory record signature not found/.test(message)) {
    return new ZipDamage('the end of its zip directory is missing: the file is cut short');
  }
  if (/unexpected EOF|central directory .* exceeds|past the end/i.test(message)) return new ZipDamage('the file is cut short');
  return new ZipDamage(message);
}

/** Checks that FILE can be a workbook, then reads its zip's central directory. */
export async function openZip(file: string, handle: FileHandle): Promise<Zip> {
  const stat = await handle.stat();
  if (stat.isDirectory()) throw fileSystemError(file, Object.assign(new Error('is a directory'), { code: 'EISDIR' }));
  const head = Buffer.alloc(Math.min(stat.size, 512));
  await handle.read(head, 0, head.length, 0);
  checkXlsxSignature(file, head, stat.size);

  let zipfile: yauzl.ZipFile;
  try {
    zipfile = await yauzl.fromFdPromise(handle.fd, { lazyEntries: true, autoClose: false, validateEntrySizes: true, decodeStrings: true });
  } catch (err) {
    throw damage(err);
  }
  if (zipfile.entryCount > MAX_PARTS) {
    throw new ZipDamage(`its zip directory lists ${zipfile.entryCount} parts, far more than a workbook has (at most ${MAX_PARTS})`);
  }
  const entries = new Map<string, ZipEntry>();
  const native = new WeakMap<ZipEntry, yauzl.Entry>();
  try {
    for await (const e of zipfile.eachEntry()) {
      const entry: ZipEntry = {
        name: e.fileName,
        method: e.compressionMethod,
        flags: e.generalPurposeBitFlag,
        crc: e.crc32,
        compressedSize: e.compressedSize,
        size: e.uncompressedSize,
        localOffset: e.relativeOffsetOfLocalHeader,
      };
      native.set(entry, e);
      entries.set(entry.name.replace(/\\/g, '/').replace(/^\/+/, '').toLowerCase(), entry);
    }
  } catch (err) {
    throw damage(err);
  }

  async function open(entry: ZipEntry, decode: boolean): Promise<Readable> {
    const e = native.get(entry);
    if (!e) throw new ZipDamage(`its part ${entry.name} is not in its zip directory`);
    try {
      // Decoded: no options at all. yauzl 3.4.0 reads `decodeFileData: true` as "do not inflate"
      // (index.js: `decompress = options.decodeFileData !== true`), so only `false` is passed.
      return await zipfile.openReadStreamPromise(e, decode ? {} : { decodeFileData: false });
    } catch (err) {
      throw damage(err);
    }
  }

  async function* chunks(stream: Readable, entry: ZipEntry): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of stream) yield chunk as Buffer;
    } catch (err) {
      if (err instanceof ZipDamage) throw err;
      const message = (err as Error)?.message ?? '';
      if (/too many bytes in the stream|expected \d+ bytes/i.test(message)) throw new ZipDamage(`its part ${entry.name} holds more than its zip directory says`);
      if (/too few bytes in the stream|unexpected end/i.test(message)) throw new ZipDamage(`its part ${entry.name} is cut short`);
      throw damage(err);
    } finally {
      stream.destroy();
    }
  }

  return {
    entry: (path) => entries.get(path.toLowerCase()),
    entries: () => [...entries.values()],
    async *raw(entry) {
      yield* chunks(await open(entry, false), entry);
    },
    async *read(entry) {
      if (entry.flags & 0x1) throw new ZipDamage(`its part ${entry.name} is encrypted`);
      if (entry.method !== 0 && entry.method !== 8) throw new ZipDamage(`its part ${entry.name} is compressed with method ${entry.method}, which only deflate (8) and none (0) are for a workbook`);
      let crc = 0;
      for await (const chunk of chunks(await open(entry, true), entry)) {
        if (crc32) crc = crc32(chunk, crc);
        yield chunk;
      }
      if (crc32 && crc >>> 0 !== entry.crc) throw new ZipDamage(`its part ${entry.name} fails its checksum`);
    },
  };
}
