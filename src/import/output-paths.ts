import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from '../errors/index.ts';

/** One file an import writes (the report, its rows to fix) and the option that names it. */
export interface ImportOutput {
  path: string;
  /** How a message names it: `the report (--report bills.csv)`. */
  what: string;
}

/**
 * An import never writes over its own input (README, Exit codes): the report and the rows to fix
 * are refused (exit 2, nothing read or sent) when either is the input file, however it is named:
 * another spelling, a symbolic link, a hard link. Compared as real paths and, for a file that
 * exists, as the same device and inode.
 */
export function refuseOverwritingInput(input: string, outputs: readonly ImportOutput[]): void {
  const inputReal = realPath(input);
  const inputStat = statOf(input);
  for (const out of outputs) {
    const outStat = statOf(out.path);
    const same =
      realPath(out.path) === inputReal ||
      (inputStat !== undefined && outStat !== undefined && inputStat.dev === outStat.dev && inputStat.ino === outStat.ino);
    if (same) {
      throw new UsageError(
        `${out.what} would be written to ${out.path}, which is the input file: that would replace the file being imported. ` +
          `Name another place with --report PATH (by default the report goes beside the file as ${basename(input)}.report.csv); nothing was read or sent`,
      );
    }
  }
}

/** The path with every symbolic link resolved; for a file not there yet, its folder's real path and its name. */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    try {
      return join(realpathSync(dirname(resolve(path))), basename(path));
    } catch {
      return resolve(path);
    }
  }
}

function statOf(path: string): { dev: number; ino: number } | undefined {
  try {
    const s = statSync(path);
    return { dev: s.dev, ino: s.ino };
  } catch {
    return undefined;
  }
}
