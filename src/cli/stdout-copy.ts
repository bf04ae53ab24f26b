import { createReadStream, fstatSync, write as writeCb } from 'node:fs';
import { stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { OutputIncompleteError } from '../errors/index.ts';
import { claimStdout } from './command.ts';

const writeFd = promisify(writeCb);

/**
 * Copies a finished output file to standard output (`--out -`) and counts the bytes that really
 * went out. Standard output that stops taking them (a reader that closed the pipe: EPIPE; a full
 * disk or /dev/full: ENOSPC) leaves the reader a cut copy: that is an `OutputIncompleteError`
 * (exit 2) saying how many bytes of how many were written, never a "wrote N projects" (README,
 * Exit codes).
 *
 * Into a file or a device, each write goes to the descriptor itself, so that a short write is
 * counted as short (Node's own stream for files drops the count a short write returns). Into a
 * pipe, a socket or a terminal, through `process.stdout`, minding back-pressure, each chunk
 * counted once its write is done.
 */
export async function copyFileToStdout(path: string, signal: AbortSignal, what: string): Promise<number> {
  const total = (await stat(path)).size;
  let written = 0;
  let failure: NodeJS.ErrnoException | undefined;
  const direct = isFileOrDevice();
  const onError = (err: NodeJS.ErrnoException): void => {
    failure ??= err;
  };
  claimStdout(true);
  process.stdout.on('error', onError);
  try {
    for await (const chunk of createReadStream(path, { signal, highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) {
      if (direct) {
        let offset = 0;
        while (offset < chunk.length && failure === undefined) {
          try {
            const { bytesWritten } = await writeFd(1, chunk, offset, chunk.length - offset);
            offset += bytesWritten;
            written += bytesWritten;
          } catch (err) {
            failure = err as NodeJS.ErrnoException;
          }
        }
      } else if (failure === undefined) {
        await new Promise<void>((resolve) => {
          process.stdout.write(chunk, (err) => {
            if (err) failure ??= err as NodeJS.ErrnoException;
            else written += chunk.length;
            resolve();
          });
        });
      }
      if (failure !== undefined) break;
    }
  } finally {
    process.stdout.off('error', onError);
    // A failed stream keeps erroring on later writes; main.ts's handler must not take them for a `| head`.
    if (failure === undefined) claimStdout(false);
  }
  if (failure !== undefined) throw incomplete(failure, written, total, what);
  return written;
}

function incomplete(err: NodeJS.ErrnoException, written: number, total: number, what: string): OutputIncompleteError {
  const n = (x: number) => x.toLocaleString('en-US');
  const why =
    err.code === 'EPIPE'
      ? 'its reader closed the pipe (EPIPE)'
      : err.code === 'ENOSPC'
        ? 'the disk is full (ENOSPC)'
        : `it failed: ${err.message}`;
  const fix = err.code === 'EPIPE' ? 'let the reader take the whole output, or write it to a file with --out PATH' : 'free some space, or write the export where there is room with --out PATH';
  return new OutputIncompleteError(
    `standard output took ${n(written)} of the ${n(total)} bytes of ${what}, then ${why}: what was written is incomplete. Nothing was left behind; ${fix}, and run the command again`,
    written,
    { cause: err },
  );
}

/** Whether descriptor 1 is a regular file or a device other than a terminal (/dev/full, /dev/null). */
function isFileOrDevice(): boolean {
  if (process.stdout.isTTY) return false;
  try {
    const st = fstatSync(1);
    return st.isFile() || st.isCharacterDevice() || st.isBlockDevice();
  } catch {
    return false;
  }
}
