/*
 * The zip format's records (PKWARE APPNOTE 6.3), as the project's zip writer writes them (the
 * export's streaming `ZipWriter`, `src/export/xlsx/zip-writer.ts`); the workbook reader
 * (`src/tables/xlsx/zip.ts`) looks for the same signatures. Only the part an .xlsx needs: no
 * ZIP64 (a value past `ZIP32_MAX` must be refused by the writer, in its own words), no
 * encryption, no extra fields, no comments. Every field is little-endian.
 */

export const LOCAL_FILE_SIGNATURE = 0x04034b50;
export const CENTRAL_FILE_SIGNATURE = 0x02014b50;
export const END_SIGNATURE = 0x06054b50;
export const DATA_DESCRIPTOR_SIGNATURE = 0x08074b50;

/** Version 2.0 (deflate), both the version that made an entry and the one needed to read it. */
export const ZIP_VERSION = 20;
/** General purpose bit 3: the CRC and sizes follow the data, in a data descriptor. */
export const FLAG_DATA_DESCRIPTOR = 0x0008;
/** General purpose bit 11: the name is UTF-8. */
export const FLAG_UTF8_NAME = 0x0800;
export const METHOD_DEFLATED = 8;
/** The largest size or offset a record holds without ZIP64: 4 GiB less one byte. */
export const ZIP32_MAX = 0xffff_ffff;

/** A modification time as the records hold it: MS-DOS time and date fields, local time. */
export interface DosDateTime {
  time: number;
  date: number;
}

/** `when` in the DOS fields (two-second steps; a year before 1980, the format's first, as 1980). */
export function dosDateTime(when: Date): DosDateTime {
  return {
    time: (when.getHours() << 11) | (when.getMinutes() << 5) | (when.getSeconds() >> 1),
    date: ((Math.max(when.getFullYear(), 1980) - 1980) << 9) | ((when.getMonth() + 1) << 5) | when.getDate(),
  };
}

/** 1980-01-01 00:00, the format's first day: for an entry that keeps no modification time. */
export const DOS_FIRST_DAY: DosDateTime = { time: 0, date: (1 << 5) | 1 };

/** The fields a local file header and its central directory entry share. */
export interface EntryRecord {
  /** The name's bytes (UTF-8 when `flags` has `FLAG_UTF8_NAME`). */
  name: Buffer;
  flags: number;
  method: number;
  modified: DosDateTime;
  /** 0 in a local header whose data is followed by a data descriptor (bit 3), as are the sizes. */
  crc: number;
  compressed: number;
  size: number;
}

/** An entry as the central directory names it: its fields and where its local header starts. */
export interface PlacedEntry extends EntryRecord {
  offset: number;
}

const LOCAL_FIXED = 30;
const CENTRAL_FIXED = 46;

/** A local file header and the entry's name (no extra field). */
export function localFileHeader(e: EntryRecord): Buffer {
  return entryRecord(e, false);
}

/**
 * A central directory entry: the local header's fields, the version that made it, then no extra
 * field, comment or attributes, on disk 0, and the offset of the entry's local header.
 */
export function centralDirectoryEntry(e: PlacedEntry): Buffer {
  return entryRecord(e, true, e.offset);
}

function entryRecord(e: EntryRecord, central: boolean, localOffset = 0): Buffer {
  const fixed = central ? CENTRAL_FIXED : LOCAL_FIXED;
  const b = Buffer.alloc(fixed + e.name.length);
  b.writeUInt32LE(central ? CENTRAL_FILE_SIGNATURE : LOCAL_FILE_SIGNATURE, 0);
  if (central) b.writeUInt16LE(ZIP_VERSION, 4);
  const at = central ? 6 : 4;
  b.writeUInt16LE(ZIP_VERSION, at);
  b.writeUInt16LE(e.flags, at + 2);
  b.writeUInt16LE(e.method, at + 4);
  b.writeUInt16LE(e.modified.time, at + 6);
  b.writeUInt16LE(e.modified.date, at + 8);
  b.writeUInt32LE(e.crc, at + 10);
  b.writeUInt32LE(e.compressed, at + 14);
  b.writeUInt32LE(e.size, at + 18);
  b.writeUInt16LE(e.name.length, at + 22);
  if (central) b.writeUInt32LE(localOffset, 42);
  e.name.copy(b, fixed);
  return b;
}

/** The data descriptor that follows an entry's data (bit 3): signature, CRC, sizes. */
export function dataDescriptor(crc: number, compressed: number, size: number): Buffer {
  return le([4, DATA_DESCRIPTOR_SIGNATURE], [4, crc], [4, compressed], [4, size]);
}

/**
 * The end of central directory record: one disk (numbers 0), `entries` on it and in all, the
 * directory's size and offset, no comment.
 */
export function endOfCentralDirectory(entries: number, directorySize: number, directoryOffset: number): Buffer {
  return le([4, END_SIGNATURE], [4, 0], [2, entries], [2, entries], [4, directorySize], [4, directoryOffset], [2, 0]);
}

/** Little-endian fields of 2 or 4 bytes, one after the other. */
function le(...fields: [bytes: 2 | 4, value: number][]): Buffer {
  const b = Buffer.alloc(fields.reduce((n, [bytes]) => n + bytes, 0));
  let at = 0;
  for (const [bytes, value] of fields) {
    if (bytes === 2) b.writeUInt16LE(value, at);
    else b.writeUInt32LE(value, at);
    at += bytes;
  }
  return b;
}
