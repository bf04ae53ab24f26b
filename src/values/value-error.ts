import { BuildsyncError, type ErrorMessage } from '../errors/index.ts';

/**
 * A value that cannot be read as its column's type. The message names the value, not the place:
 * the mapping layer adds file, line and column (`parseCell` in `src/mapping/values.ts`).
 */
export class CellValueError extends BuildsyncError {
  constructor(message: ErrorMessage) {
    super('BUILDSYNC_ROW_INVALID', message);
  }
}

/** A written value as a message quotes it: in double quotes, cut to 60 characters. */
export function quoteWritten(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);
}
