import type { FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream';
import * as zlib from 'node:zlib';
import { fileSystemError } from '../file-errors.ts';
import { CENTRAL_FILE_SIGNATURE, END_SIGNATURE, LOCAL_FILE_SIGNATURE } from '../../zip/records.ts';
import { checkXlsxSignature } from '../sniff.ts';

/*
 * The zip of a workbook, read from its central directory (node:fs, node:zlib; every part checked
 * against its size and CRC), so that its parts can be read in the order they are needed, whatever
 * their order in the file, and a sheet streamed straight from the file.
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

const ZIP64_END = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
/** A workbook's directory is a few kilobytes; more than this is not a workbook. */
const MAX_DIRECTORY = 64 * 1024 * 1024;
const READ_CHUNK = 64 * 1024;
/** `zlib.crc32` is in Node 20.15 and later; package.json allows 20.11. */
const crc32 = (zlib as { crc32?: (data: Buffer, value?: number) => number }).crc32;

/** Checks that FILE can be a workbook, then reads its zip's central directory. */
export async function openZip(file: string, handle: FileHandle): Promise<Zip> {
  const stat = await handle.stat();
  if (stat.isDirectory()) throw fileSystemError(file, Object.assign(new Error('is a directory'), { code: 'EISDIR' }));
  const size = stat.size;
  const head = Buffer.alloc(Math.min(size, 512));
  await readFully(handle, head, 0);
  checkXlsxSignature(file, head, size);

  const tailLength = Math.min(size, 22 + 0xffff + 20);
  const tail = Buffer.alloc(tailLength);
  await readFully(handle, tail, size - tailLength);
  let end = -1;
  for (let i = tailLength - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === END_SIGNATURE) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new ZipDamage('the end of its zip directory is missing: the file is cut short');
  let count = tail.readUInt16LE(end + 10);
  let dirSize = tail.readUInt32LE(end + 12);
  let dirOffset = tail.readUInt32LE(end + 16);
  if ((count === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff) && end >= 20 && tail.readUInt32LE(end - 20) === ZIP64_LOCATOR) {
    const zip64 = Buffer.alloc(56);
    await readFully(handle, zip64, Number(tail.readBigUInt64LE(end - 20 + 8)));
    if (zip64.readUInt32LE(0) !== ZIP64_END) throw new ZipDamage('its ZIP64 directory is missing');
    count = Number(zip64.readBigUInt64LE(32));
    dirSize = Number(zip64.readBigUInt64LE(40));
    dirOffset = Number(zip64.readBigUInt64LE(48));
  }
  if (dirOffset + dirSize > size) throw new ZipDamage('its zip directory points past the end of the file: the file is cut short');
  if (dirSize > MAX_DIRECTORY) throw new ZipDamage(`its zip directory is ${dirSize} bytes, far more than a workbook has`);
  const dir = Buffer.alloc(dirSize);
  await readFully(handle, dir, dirOffset);

  const entries = new Map<string, ZipEntry>();
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > dir.length || dir.readUInt32LE(at) !== CENTRAL_FILE_SIGNATURE) throw new ZipDamage('its zip directory is damaged');
    const flags = dir.readUInt16LE(at + 8);
    const nameLength = dir.readUInt16LE(at + 28);
    const extraLength = dir.readUInt16LE(at + 30);
    const commentLength = dir.readUInt16LE(at + 32);
    const nameBytes = dir.subarray(at + 46, at + 46 + nameLength);
    const entry: ZipEntry = {
      name: nameBytes.toString(flags & 0x800 ? 'utf8' : 'latin1'),
      method: dir.readUInt16LE(at + 10),
      flags,
      crc: dir.readUInt32LE(at + 16),
      compressedSize: dir.readUInt32LE(at + 20),
      size: dir.readUInt32LE(at + 24),
      localOffset: dir.readUInt32LE(at + 42),
    };
    // ZIP64: the sizes and offset that do not fit in 32 bits are in extra field 0x0001, in this order.
    let extra = at + 46 + nameLength;
    const extraEnd = extra + extraLength;
    while (extra + 4 <= extraEnd) {
      const id = dir.readUInt16LE(extra);
      const length = dir.readUInt16LE(extra + 2);
      if (id === 0x0001) {
        let p = extra + 4;
        for (const field of ['size', 'compressedSize', 'localOffset'] as const) {
          if (entry[field] === 0xffffffff && p + 8 <= extra + 4 + length) {
            entry[field] = Number(dir.readBigUInt64LE(p));
            p += 8;
          }
        }
      }
      extra += 4 + length;
    }
    entries.set(entry.name.replace(/\\/g, '/').replace(/^\/+/, '').toLowerCase(), entry);
    at = extraEnd + commentLength;
  }

  async function* raw(entry: ZipEntry): AsyncGenerator<Buffer> {
    const local = Buffer.alloc(30);
    await readFully(handle, local, entry.localOffset);
    if (local.readUInt32LE(0) !== LOCAL_FILE_SIGNATURE) throw new ZipDamage(`its part ${entry.name} is not where its zip directory says`);
    let position = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    const end = position + entry.compressedSize;
    if (end > size) throw new ZipDamage(`its part ${entry.name} is cut short`);
    while (position < end) {
      const length = Math.min(READ_CHUNK, end - position);
      const buffer = Buffer.allocUnsafe(length);
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      if (bytesRead === 0) throw new ZipDamage(`its part ${entry.name} is cut short`);
      position += bytesRead;
      yield bytesRead === length ? buffer : buffer.subarray(0, bytesRead);
    }
  }

  return {
    entry: (path) => entries.get(path.toLowerCase()),
    entries: () => [...entries.values()],
    raw,
    async *read(entry) {
      if (entry.flags & 0x1) throw new ZipDamage(`its part ${entry.name} is encrypted`);
      if (entry.method !== 0 && entry.method !== 8) throw new ZipDamage(`its part ${entry.name} is compressed with method ${entry.method}, which only deflate (8) and none (0) are for a workbook`);
      const source: AsyncIterable<Buffer> = entry.method === 8 ? pipeline(raw(entry), zlib.createInflateRaw(), () => {}) : raw(entry);
      let total = 0;
      let crc = 0;
      for await (const chunk of source) {
        total += chunk.length;
        if (total > entry.size) throw new ZipDamage(`its part ${entry.name} holds more than its zip directory says`);
        if (crc32) crc = crc32(chunk, crc);
        yield chunk;
      }
      if (total !== entry.size) throw new ZipDamage(`its part ${entry.name} is cut short`);
      if (crc32 && crc >>> 0 !== entry.crc) throw new ZipDamage(`its part ${entry.name} fails its checksum`);
    },
  };
}

async function readFully(handle: FileHandle, buffer: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buffer.length) {
    const { bytesRead } = await handle.read(buffer, done, buffer.length - done, position + done);
    if (bytesRead === 0) throw new ZipDamage('the file is cut short');
    done += bytesRead;
  }
}
