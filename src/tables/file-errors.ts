import { FileError } from '../errors/index.ts';

/** Turns an `fs` failure into a `FileError` that names the file and says what to do. */
export function fileSystemError(file: string, err: unknown): FileError {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOENT':
      return new FileError(file, `cannot read ${file}: there is no such file. Check the path (it is relative to the current directory).`, { cause: err });
    case 'EACCES':
    case 'EPERM':
      return new FileError(file, `cannot read ${file}: permission denied. Check the file's permissions.`, { cause: err });
    case 'EISDIR':
      return new FileError(file, `cannot read ${file}: it is a directory, not a file.`, { cause: err });
    default:
      return new FileError(file, `cannot read ${file}: ${(err as Error)?.message ?? String(err)}.`, { cause: err });
  }
}

/** True for the errors `fs` raises (they carry an errno code), as opposed to our own errors. */
export function isFileSystemError(err: unknown): boolean {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).errno === 'number';
}
