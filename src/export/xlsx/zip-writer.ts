import { constants, crc32, createDeflateRaw, deflateRawSync, type DeflateRaw } from 'node:zlib';
import { FileError } from '../../errors/index.ts';

/**
 * A minimal streaming zip writer (PKWARE APPNOTE 6.3): deflated entries whose CRC and sizes follow
 * the data in a data descriptor (general purpose bit 3), so an entry of any length is written
 * as it is made and nothing of it is held in memory; the central directory (a few hundred bytes
 * per entry) is written at the end.
 *
 * Why not archiver or jszip (both installed with exceljs): jszip builds the whole archive in
 * memory; archiver adds a stream per entry (zip-stream, crc32-stream) for what is here one
 * entry and a few small parts, and brings no speed of its own (the deflate is node:zlib's either
 * way). This is the part of the format an .xlsx needs, no more: no zip64 (an entry or archive
 * past 4 GiB is refused with a message), no encryption, no comments.
 */
export interface ZipSink {
  write(chunk: Uint8Array): Promise<void>;
}

/**
 * Level 1: on the export's sheet XML (repetitive markup) it compresses to about a tenth, like the
 * default level 6, at two to three times its speed; the deflate runs on libuv's thread pool while
 * the main thread formats the next rows.
 */
const LEVEL = constants.Z_BEST_SPEED;
/**
 * The deflate stream's output buffer: large enough for a whole compressed batch (256 KB of sheet
 * XML deflates to about 35 KB), so each batch is one trip to the thread pool instead of several.
 */
const OUT_CHUNK = 128 * 1024;
const LIMIT = 0xffff_ffff;
/** Bit 3: sizes and CRC in a data descriptor; bit 11: the name is UTF-8. */
const FLAGS = 0x0808;
const DEFLATED = 8;
const VERSION = 20;

interface Entry {
  name: Buffer;
  offset: number;
  crc: number;
  compressed: number;
  size: number;
}

export class ZipWriter {
  private readonly entries: Entry[] = [];
  private offset = 0;
  private readonly time: number;
  private readonly date: number;
  private open: EntryWriter | undefined;

  constructor(
    private readonly sink: ZipSink,
    /** Names the archive in the messages of its limits. */
    private readonly file: string,
    now = new Date(),
  ) {
    this.time = (now.getHours() << 11) | (now.getMinutes() << 5) | (now.getSeconds() >> 1);
    this.date = ((Math.max(now.getFullYear(), 1980) - 1980) << 9) | ((now.getMonth() + 1) << 5) | now.getDate();
  }

  /** A small entry given whole (the workbook's parts besides the sheet). */
  async add(name: string, content: string | Uint8Array): Promise<void> {
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const entry = await this.begin(name);
    const packed = deflateRawSync(data, { level: LEVEL });
    await this.put(packed);
    await this.end(entry, crc32(data), packed.length, data.length);
  }

  /** An entry written in chunks; the next entry may start once `end()` resolved. */
  async stream(name: string): Promise<EntryWriter> {
    const entry = await this.begin(name);
    this.open = new EntryWriter(createDeflateRaw({ level: LEVEL, chunkSize: OUT_CHUNK }), (chunk) => this.put(chunk), this.file);
    const writer = this.open;
    writer.onEnd = async () => {
      this.open = undefined;
      await this.end(entry, writer.crc, writer.compressed, writer.size);
    };
    return writer;
  }

  /** The central directory and its end record: the archive is complete once this resolves. */
  async finish(): Promise<void> {
    if (this.open) throw new Error(`zip entry still open in ${this.file}`);
    const start = this.offset;
    const parts: Buffer[] = [];
    for (const e of this.entries) {
      // Central directory header: signature, versions made by and needed, flags, method, time,
      // date, CRC, sizes, name length, then extra, comment, disk, attributes (0), local offset.
      parts.push(le([4, 0x02014b50], [2, VERSION], [2, VERSION], [2, FLAGS], [2, DEFLATED], [2, this.time], [2, this.date], [4, e.crc], [4, e.compressed], [4, e.size], [2, e.name.length], [12, 0], [4, e.offset]), e.name);
    }
    const directory = Buffer.concat(parts);
    // End of central directory: signature, disk numbers (0), entries on this disk and in all, size, offset, comment length.
    const end = le([4, 0x06054b50], [4, 0], [2, this.entries.length], [2, this.entries.length], [4, directory.length], [4, start], [2, 0]);
    this.check(start + directory.length, 'the archive');
    await this.put(Buffer.concat([directory, end]));
  }

  private async begin(name: string): Promise<Entry> {
    if (this.open) throw new Error(`zip entry still open in ${this.file}`);
    const entry: Entry = { name: Buffer.from(name, 'utf8'), offset: this.offset, crc: 0, compressed: 0, size: 0 };
    // Local header: signature, version needed, flags, method, time, date; CRC and sizes 0 (they
    // follow the data, bit 3); name length; no extra field.
    const h = le([4, 0x04034b50], [2, VERSION], [2, FLAGS], [2, DEFLATED], [2, this.time], [2, this.date], [12, 0], [2, entry.name.length], [2, 0]);
    await this.put(Buffer.concat([h, entry.name]));
    return entry;
  }

  private async end(entry: Entry, crc: number, compressed: number, size: number): Promise<void> {
    this.check(size, entry.name.toString('utf8'));
    this.check(this.offset, 'the archive');
    Object.assign(entry, { crc, compressed, size });
    const d = le([4, 0x08074b50], [4, crc], [4, compressed], [4, size]);
    await this.put(d);
    this.entries.push(entry);
  }

  private check(bytes: number, what: string): void {
    if (bytes > LIMIT) {
      throw new FileError(this.file, `${what} of ${this.file} passed 4 GiB, more than an .xlsx written without zip64 can hold; export as csv instead`);
    }
  }

  private put(chunk: Uint8Array): Promise<void> {
    this.offset += chunk.length;
    return this.sink.write(chunk);
  }
}

/** Little-endian fields of 2 or 4 bytes (or `[n, 0]`: n zero bytes), one after the other. */
function le(...fields: [bytes: number, value: number][]): Buffer {
  const b = Buffer.alloc(fields.reduce((n, [bytes]) => n + bytes, 0));
  let at = 0;
  for (const [bytes, value] of fields) {
    if (bytes === 2) b.writeUInt16LE(value, at);
    else if (bytes === 4) b.writeUInt32LE(value, at);
    at += bytes;
  }
  return b;
}

/**
 * One streamed entry: chunks go through a deflate stream (on the thread pool, while the caller
 * formats the next chunk), and its output to the sink in order, one write at a time.
 */
export class EntryWriter {
  crc = 0;
  size = 0;
  compressed = 0;
  /** Set by the ZipWriter: writes the data descriptor once the data is out. */
  onEnd: () => Promise<void> = async () => {};
  private failed: unknown;
  private pending: Promise<void> = Promise.resolve();
  /** The previous chunk's compression (a destroyed stream calls back with its error). */
  private previous: Promise<void> = Promise.resolve();

  constructor(
    private readonly deflate: DeflateRaw,
    put: (chunk: Uint8Array) => Promise<void>,
    file: string,
  ) {
    deflate.on('data', (chunk: Buffer) => {
      this.compressed += chunk.length;
      deflate.pause();
      this.pending = put(chunk).then(
        () => void deflate.resume(),
        (err: unknown) => this.fail(err),
      );
    });
    deflate.on('error', (err) => this.fail(new FileError(file, `cannot compress ${file}: ${err.message}`, { cause: err })));
  }

  /**
   * Queues a chunk. Resolves once the previous chunk has been compressed, so at most one chunk
   * waits in the deflate stream while the caller fills the next one; and the chunk's bytes are
   * read by the deflate stream until the next `write` resolved, not copied (the export's batches
   * take turns in two buffers, as they do for `AtomicFile.write`).
   */
  async write(chunk: Uint8Array): Promise<void> {
    if (this.failed) throw this.failed;
    await this.previous;
    if (this.failed) throw this.failed;
    this.crc = crc32(chunk, this.crc);
    this.size += chunk.length;
    this.previous = new Promise((resolve) => this.deflate.write(chunk, () => resolve()));
  }

  async end(): Promise<void> {
    if (this.failed) throw this.failed;
    await this.previous;
    await new Promise<void>((resolve, reject) => {
      this.deflate.once('end', resolve);
      // A failed write to the sink destroys the stream: 'close' without 'end'.
      this.deflate.once('close', resolve);
      this.deflate.once('error', reject);
      this.deflate.end();
    });
    await this.pending;
    if (this.failed) throw this.failed;
    await this.onEnd();
  }

  /** Stops the deflate stream (an aborted export); what it held is dropped. */
  destroy(): void {
    this.deflate.destroy();
  }

  private fail(err: unknown): void {
    this.failed ??= err;
    this.deflate.destroy();
  }
}
