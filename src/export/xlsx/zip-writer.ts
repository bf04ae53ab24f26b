import { constants, crc32, createDeflateRaw, deflateRawSync, type DeflateRaw } from 'node:zlib';
import { FileError } from '../../errors/index.ts';
import {
  centralDirectoryEntry,
  dataDescriptor,
  dosDateTime,
  endOfCentralDirectory,
  FLAG_DATA_DESCRIPTOR,
  FLAG_UTF8_NAME,
  localFileHeader,
  METHOD_DEFLATED,
  ZIP32_MAX,
  type DosDateTime,
  type PlacedEntry,
} from '../../zip/records.ts';

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
 * past 4 GiB is refused with a message), no encryption, no comments; the records themselves are
 * laid out by `src/zip/records.ts`.
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
/** Sizes and CRC in a data descriptor; the name is UTF-8. */
const FLAGS = FLAG_DATA_DESCRIPTOR | FLAG_UTF8_NAME;

export class ZipWriter {
  private readonly entries: PlacedEntry[] = [];
  private offset = 0;
  private readonly modified: DosDateTime;
  private open: EntryWriter | undefined;

  constructor(
    private readonly sink: ZipSink,
    /** Names the archive in the messages of its limits. */
    private readonly file: string,
    now = new Date(),
  ) {
    this.modified = dosDateTime(now);
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
    const directory = Buffer.concat(this.entries.map((e) => centralDirectoryEntry(e)));
    const end = endOfCentralDirectory(this.entries.length, directory.length, start);
    this.check(start + directory.length, 'the archive');
    await this.put(Buffer.concat([directory, end]));
  }

  private async begin(name: string): Promise<PlacedEntry> {
    if (this.open) throw new Error(`zip entry still open in ${this.file}`);
    const entry: PlacedEntry = { name: Buffer.from(name, 'utf8'), flags: FLAGS, method: METHOD_DEFLATED, modified: this.modified, offset: this.offset, crc: 0, compressed: 0, size: 0 };
    // The CRC and sizes are 0 here: they follow the data (bit 3), and the central entry has them.
    await this.put(localFileHeader(entry));
    return entry;
  }

  private async end(entry: PlacedEntry, crc: number, compressed: number, size: number): Promise<void> {
    this.check(size, entry.name.toString('utf8'));
    this.check(this.offset, 'the archive');
    Object.assign(entry, { crc, compressed, size });
    await this.put(dataDescriptor(crc, compressed, size));
    this.entries.push(entry);
  }

  private check(bytes: number, what: string): void {
    if (bytes > ZIP32_MAX) {
      throw new FileError(this.file, `${what} of ${this.file} passed 4 GiB, more than an .xlsx written without zip64 can hold; export as csv instead`);
    }
  }

  private put(chunk: Uint8Array): Promise<void> {
    this.offset += chunk.length;
    return this.sink.write(chunk);
  }
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
