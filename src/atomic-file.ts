import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { FileError } from './errors/index.ts';

/**
 * A file that appears at its final path only when complete (README, Reports, re-runs and `unknown`): everything is
 * written to a hidden temporary file in the same directory (so the rename stays on one file
 * system and is atomic), fsynced, then renamed over the final path. Until `commit()` succeeds
 * an earlier file at the final path is left untouched; `abort()` removes the temporary file.
 */
export interface AtomicFile {
  /** The final path the file gets on commit. */
  readonly path: string;
  /** The temporary file being written: `.NAME.<pid>.<random>.tmp` next to `path`. */
  readonly tempPath: string;
  /** Bytes handed to `write()` so far. */
  readonly bytesWritten: number;
  /**
   * Queues a chunk. Resolves once the previous chunk is on its way to the disk, so at most one
   * chunk waits behind the disk while the caller prepares the next (backpressure). A failed
   * write rejects this call or the next one, or `commit()`.
   */
  write(chunk: string | Uint8Array): Promise<void>;
  /** A Node Writable over `write()`, for piping; ending it does not commit. */
  writable(): Writable;
  /** Flushes, fsyncs, closes and renames over `path`. On failure the temp file is removed. */
  commit(): Promise<void>;
  /** Removes the temporary file; safe to call more than once and after a failed commit. */
  abort(): Promise<void>;
}

/** Opens the temporary file for `finalPath`, creating its directory when missing. */
export async function writeFileAtomically(finalPath: string): Promise<AtomicFile> {
  const dir = path.dirname(finalPath);
  const tempPath = path.join(
    dir,
    `.${path.basename(finalPath)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  let handle: FileHandle;
  try {
    await mkdir(dir, { recursive: true });
    // 'wx': never write into a file someone else holds, however unlikely the name collision.
    handle = await open(tempPath, 'wx');
  } catch (err) {
    throw fileError(finalPath, 'cannot create', err);
  }
  return new TempFile(finalPath, tempPath, handle);
}

class TempFile implements AtomicFile {
  private inFlight: Promise<void> = Promise.resolve();
  private state: 'open' | 'committing' | 'committed' | 'aborted' = 'open';
  private written = 0;

  constructor(
    readonly path: string,
    readonly tempPath: string,
    private readonly handle: FileHandle,
  ) {}

  get bytesWritten(): number {
    return this.written;
  }

  async write(chunk: string | Uint8Array): Promise<void> {
    if (this.state !== 'open') throw new Error(`write after ${this.state} of ${this.path}`);
    await this.inFlight;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.written += bytes.byteLength;
    this.inFlight = writeAll(this.handle, bytes).catch((err: unknown) => {
      throw fileError(this.path, 'cannot write', err);
    });
    // The rejection is observed by the next write() or commit(); keep it from being "unhandled".
    this.inFlight.catch(() => {});
  }

  writable(): Writable {
    return new Writable({
      write: (chunk: Buffer, _enc, cb) => {
        this.write(chunk).then(() => cb(), cb);
      },
      final: (cb) => {
        this.inFlight.then(() => cb(), cb);
      },
    });
  }

  async commit(): Promise<void> {
    if (this.state !== 'open') throw new Error(`commit after ${this.state} of ${this.path}`);
    this.state = 'committing';
    try {
      await this.inFlight;
      await this.handle.sync();
      await this.handle.close();
      await rename(this.tempPath, this.path);
    } catch (err) {
      await this.abort();
      throw err instanceof FileError ? err : fileError(this.path, 'cannot finish', err);
    }
    this.state = 'committed';
    await syncDirectory(path.dirname(this.path));
  }

  async abort(): Promise<void> {
    if (this.state === 'aborted' || this.state === 'committed') return;
    this.state = 'aborted';
    await this.inFlight.catch(() => {});
    await this.handle.close().catch(() => {});
    await unlink(this.tempPath).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw fileError(this.path, 'cannot remove the temporary file of', err);
    });
  }
}

async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.byteLength) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.byteLength - offset);
    offset += bytesWritten;
  }
}

/** Makes the rename itself durable; some platforms cannot fsync a directory, which is fine. */
async function syncDirectory(dir: string): Promise<void> {
  let h: FileHandle | undefined;
  try {
    h = await open(dir, 'r');
    await h.sync();
  } catch {
    // EISDIR/EPERM/EINVAL on platforms without directory fsync: the data itself is synced.
  } finally {
    await h?.close().catch(() => {});
  }
}

function fileError(file: string, what: string, err: unknown): FileError {
  const reason = err instanceof Error ? err.message : String(err);
  return new FileError(file, `${what} ${file}: ${reason}`, { cause: err });
}
