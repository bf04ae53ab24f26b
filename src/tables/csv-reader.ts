import { createReadStream } from 'node:fs';
import { concatWorded, FileError, InterruptedError, RowError } from '../errors/index.ts';
import { createCsvEngine, type CsvEngine } from './csv-engine.ts';
import { findCsvTableStart, MAX_COLUMNS, tooManyColumns, type CsvTableStart } from './csv-head.ts';
import { delimiterOf, delimiterShown, type Delimiter, type DelimiterOption } from './delimiter.ts';
import { encodingFits } from './header-fit.ts';
import { FooterWatch } from './footer.ts';
import { fileSystemError, isFileSystemError } from './file-errors.ts';
import { encodingLabel, encodingName } from './encodings.ts';
import { EncodingMismatch, EncodingUndecided, InputDecoder, NulByte, type EncodingOption, type InputEncoding } from './input-decoder.ts';
import { locateByte } from './locate-byte.ts';
import { LineTracker } from './line-tracker.ts';
import type { HeaderCandidate, HeaderRule, IgnoredLine, SourceRow } from './types.ts';

export interface CsvHead {
  headers: string[];
  headerLine: number;
  encoding: InputEncoding;
  delimiter: Delimiter;
  /** The rows above the header row (docs/reading-rules.md). */
  titles: IgnoredLine[];
  /** Those rows with their cells, the nearest last. */
  above: readonly HeaderCandidate[];
  /** Where the table starts (`findCsvTableStart`): a later read of the same file passes it as `ReadCsvOptions.start`. */
  start: CsvTableStart;
}

/**
 * The start of the file that is held to find the header row (`findCsvTableStart`). Past this
 * (an unclosed quote in the header, a file without line breaks, huge title lines) the search
 * decides on what was read, and csv-parse then reports the real problem. Without the cap the
 * search would rescan an ever-growing prefix.
 */
const MAX_HEADER_CHARS = 1024 * 1024;

/** docs/reading-rules.md limits: Excel's own cell limit and a row (the columns: `MAX_COLUMNS`, csv-head.ts). */
export const MAX_CELL_CHARS = 32_767;
export const MAX_RECORD_BYTES = 1024 * 1024;

/** Large reads keep the per-read work (system calls, stream bookkeeping) negligible next to parsing. */
const CHUNK_BYTES = 256 * 1024;

/**
 * Each read is handed to csv-parse in slices of this size, and the rows of each slice go out as
 * one batch. Why: every row of a batch is alive until the caller has taken the batch, and rows
 * alive when a young-generation collection comes are copied by it (and promoted on the second):
 * 64 KB batches instead of 256 KB cut the collector's time on the 1,000,000-row bench file by
 * about a quarter.
 */
const FEED_BYTES = 64 * 1024;

/**
 * Reads a CSV file once, streaming. `onHead` receives the header row as soon as it is parsed;
 * with `headOnly` the read stops there (that is how `openTable` learns the headers without
 * reading the whole file). Then data rows come out in batches, one per slice of the file parsed.
 * Rows whose cells are all empty (`,,,` lines that spreadsheets leave behind) are skipped.
 *
 * Where the table is (docs/reading-rules.md): the header row is found in the first lines
 * (`findCsvTableStart`: `header`, `headerRow`, a `sep=` line); the lines above it are never
 * rows. A footer (a blank row, then rows with at most one value, to the end) is held back
 * (`FooterWatch`) and handed to `onFooter` at the end instead of coming out as rows.
 */
export async function* readCsv(file: string, onHead: (head: CsvHead) => void, options: ReadCsvOptions = {}): AsyncGenerator<SourceRow[]> {
  const { headOnly = false, signal, onEncoding } = options;
  const decoder = new InputDecoder(file, options.encoding);
  const tracker = new LineTracker();
  let engine: CsvEngine | undefined;
  let delimiter: Delimiter = ',';
  let head: CsvHead | undefined;
  let batch: SourceRow[] = [];
  // Until the header row is found the delimiter is unknown: keep the chunks read so far.
  let pending: Buffer[] = [];
  let pendingText = '';
  // And the same chunks as read, for `encodingFits` (the header in another encoding).
  let rawHead: Buffer[] = [];
  const forced = delimiterOf(options.delimiter);
  const known = options.start;
  const findStart = (text: string, complete: boolean, cut = false): CsvTableStart | undefined =>
    known ?? findTableStart(file, options, forced, rawHead, decoder.encoding, text, complete, cut);
  let start: CsvTableStart | undefined;
  const footer = new FooterWatch(options.header !== undefined);
  let width = 0;
  let emptyLines = 0;

  const push = (fields: string[]): void => {
    const info = engine!.info;
    const line = tracker.startLine(info.lines, info.empty_lines, fields);
    if (head === undefined) {
      // The title block (and a `sep=` line) above the header row: no rows.
      if (line < start!.headerLine) return;
      head = headRow(file, fields, line, start!, delimiter, decoder.encoding);
      width = fields.length;
      emptyLines = info.empty_lines;
      onHead(head);
      return;
    }
    const any = anyCell(file, line, fields, head.headers);
    // A blank row, or empty lines csv-parse skipped: what a footer starts with.
    if (!any || info.empty_lines !== emptyLines) {
      emptyLines = info.empty_lines;
      footer.blank();
      if (!any) return;
    }
    const row = { line, values: fields };
    if (fields.length === width) footer.take(row, batch);
    else footer.take(row, batch, () => fieldCount(file, line, fields.length, width, delimiter));
  };
  const feed = (chunk: Buffer | undefined, end: boolean): void => {
    const err = engine!.parse(chunk, end, push, noop);
    if (err) throw csvError(file, err, tracker, engine!, head);
  };
  const startEngine = (found: CsvTableStart): void => {
    start = found;
    delimiter = found.delimiter;
    engine = createCsvEngine(delimiter);
    const buffered = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
    pending = [];
    pendingText = '';
    rawHead = [];
    feed(buffered, false);
  };

  const stream = createReadStream(file, { highWaterMark: CHUNK_BYTES });
  try {
    for await (const raw of stream as AsyncIterable<Buffer>) {
      if (signal?.aborted) throw new InterruptedError(`reading ${file} was interrupted`);
      const before = decoder.encoding;
      const chunk = decoder.decode(raw);
      if (decoder.encoding !== before) onEncoding?.(decoder.encoding);
      if (engine) {
        for (let at = 0; at < chunk.length; at += FEED_BYTES) {
          feed(chunk.length <= FEED_BYTES ? chunk : chunk.subarray(at, at + FEED_BYTES), false);
          if (batch.length > 0 && at + FEED_BYTES < chunk.length) {
            const full = batch;
            batch = [];
            yield full;
            if (signal?.aborted) throw new InterruptedError(`reading ${file} was interrupted`);
          }
        }
      } else {
        pending.push(chunk);
        rawHead.push(raw);
        pendingText += chunk.toString('utf8');
        const cut = pendingText.length > MAX_HEADER_CHARS;
        const found = findStart(pendingText, cut, cut);
        if (found !== undefined && headOnly) {
          head = plainHeader(found, decoder.encoding);
          if (head !== undefined) {
            onHead(head);
            return;
          }
        }
        if (found !== undefined) startEngine(found);
      }
      if (head && headOnly) return;
      if (batch.length > 0) {
        const full = batch;
        batch = [];
        yield full;
      }
    }
    const rest = decoder.end();
    if (!engine) {
      const found = findStart(pendingText, true);
      if (found === undefined) throw emptyFile(file);
      startEngine(found);
    }
    if (rest) feed(rest, false);
    feed(undefined, true);
  } catch (err) {
    throw await readError(file, err, decoder.encoding);
  } finally {
    stream.destroy();
  }
  if (head === undefined) throw emptyFile(file);
  if (headOnly) return;
  options.onFooter?.(footer.end());
  if (batch.length > 0) yield batch;
}

export interface ReadCsvOptions {
  headOnly?: boolean;
  signal?: AbortSignal;
  onEncoding?: (encoding: InputEncoding) => void;
  encoding?: EncodingOption;
  /** `--delimiter`; default `auto`. */
  delimiter?: DelimiterOption;
  header?: HeaderRule;
  headerRow?: number;
  /**
   * Where the table starts, as a read of the head of this file found it (`CsvHead.start`): the
   * header row is not looked for again (the first 30 rows checked against the mapping, under each
   * delimiter tried), and the read starts there. `openTable` passes it to every read of the rows.
   */
  start?: CsvTableStart;
  onFooter?: (lines: IgnoredLine[]) => void;
}

/**
 * Where the table starts in the text read so far (`findCsvTableStart`), or undefined while that
 * is not known yet. When no header row is found, or one is found in a file not read as UTF-8, the
 * raw bytes (`rawHead`) are tried in the other encodings: a header that reads there is an
 * encoding error rather than a missing header (`encodingFits`).
 */
function findTableStart(
  file: string,
  options: ReadCsvOptions,
  forced: Delimiter | undefined,
  rawHead: Buffer[],
  encoding: InputEncoding,
  text: string,
  complete: boolean,
  cut: boolean,
): CsvTableStart | undefined {
  const find = (t: string): CsvTableStart | undefined => findCsvTableStart(t, complete, file, options.header, options.headerRow, cut, forced);
  let found: CsvTableStart | undefined;
  try {
    found = find(text);
  } catch (err) {
    throw encodingFits(file, Buffer.concat(rawHead), encoding, options.header, undefined, find) ?? err;
  }
  if (found !== undefined && encoding !== 'utf-8') {
    const fits = encodingFits(file, Buffer.concat(rawHead), encoding, options.header, found, find);
    if (fits !== undefined) throw fits;
  }
  return found;
}

/** The header row, parsed at `line` (the line `findCsvTableStart` found it on), as `CsvHead`. */
function headRow(file: string, fields: string[], line: number, start: CsvTableStart, delimiter: Delimiter, encoding: InputEncoding): CsvHead {
  if (line > start.headerLine) throw headerNotParsed(file, start.headerLine);
  if (fields.length > MAX_COLUMNS) throw tooManyColumns(file, line, delimiter);
  if (fields.every((h) => h.trim() === '')) throw noHeader(file, line);
  return { headers: fields, headerLine: line, encoding, delimiter, titles: start.titles, above: start.above, start };
}

/** Whether a data row has a cell that is not empty; throws on a cell over `MAX_CELL_CHARS`. */
function anyCell(file: string, line: number, fields: string[], headers: string[]): boolean {
  let any = false;
  for (let i = 0; i < fields.length; i++) {
    const n = fields[i]!.length;
    if (n === 0) continue;
    any = true;
    if (n > MAX_CELL_CHARS) throw cellTooLong(file, line, i, headers[i], fields[i]!);
  }
  return any;
}

/** A failure while reading, as the user is told it: the file system's, or the encoding's. */
async function readError(file: string, err: unknown, encoding: InputEncoding): Promise<unknown> {
  if (isFileSystemError(err)) return fileSystemError(file, err);
  if (err instanceof EncodingMismatch) return encodingError(file, err, encoding);
  return err;
}

function emptyFile(file: string): FileError {
  return new FileError(file, `${file} is empty: the first line must be a header row naming the columns (e.g. project_id,estimate_name,category).`);
}

/** The engine read no row where the header row was found (quotes read otherwise than the search read them). */
function headerNotParsed(file: string, headerLine: number): FileError {
  return new FileError(file, [`${file}:${headerLine}: the header row cannot be read here: a quote in it or in the lines above it is not closed where it should be. Check the quotes of the first lines, or `, { kind: 'name-header-row' }, '.']);
}

function fieldCount(file: string, line: number, count: number, expected: number, delimiter: Delimiter): RowError {
  const shown = delimiterShown(delimiter);
  return new RowError(file, line, undefined,
    `this row has ${count} fields but the header has ${expected}. Quote any value that contains the delimiter ${shown} (as "1,234.50"), and make every row have one value per header.`);
}

function noop(): void {}

/** Names the line and column of the first byte that does not fit the file's encoding (docs/reading-rules.md). */
async function encodingError(file: string, err: EncodingMismatch, encoding: InputEncoding): Promise<FileError> {
  const { line, column } = await locateByte(file, err.offset);
  if (err instanceof NulByte) return new FileError(file, concatWorded(`${file}:${line} column ${column}: ${err.why} (at byte offset ${err.offset}). `, err.hint));
  if (err instanceof EncodingUndecided) return undecided(file, line, column, err);
  const byte = `0x${err.byte.toString(16).toUpperCase().padStart(2, '0')}`;
  const mixed = err.why.includes('after');
  const where = `${file}:${line} column ${column}: ${err.why} (byte ${byte} at offset ${err.offset})`;
  if (mixed) {
    const other = encoding === 'utf-8' || encoding === 'utf-8-bom' ? 'a single-byte encoding such as Windows-1252' : encodingName(encoding);
    return new FileError(file, [
      `${where}: the file mixes encodings (UTF-8 and ${other}), so some text would be read wrong. Open it in a spreadsheet and save it again as "CSV UTF-8", or fix that character; `,
      { kind: 'encoding-mixed' },
      '.',
    ]);
  }
  if (encoding === 'utf-8' || encoding === 'utf-8-bom') return new FileError(file, [`${where}: the file is not valid UTF-8. Save it again as "CSV UTF-8", `, { kind: 'encoding-not-utf8' }, '.']);
  return new FileError(file, `${where}.`);
}

/** A word as a message quotes it, its control characters (C1 in Windows-1252) written as escapes. */
function shownWord(word: string): string {
  return JSON.stringify(word).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Text that is not UTF-8 and that no single-byte encoding, or several, read plausibly: the
 * stop names the candidates and one word of the file as each reads it (docs/reading-rules.md).
 */
function undecided(file: string, line: number, column: number, err: EncodingUndecided): FileError {
  const as = err.readings.map((r) => `${shownWord(r.word)} in ${encodingName(r.encoding)}`);
  const listed = as.length === 2 ? as.join(' or ') : `${as.slice(0, -1).join(', ')} or ${as.at(-1)}`;
  const facts = err.plausible
    ? `${file}:${line} column ${column}: the file is not UTF-8, and it reads plausibly in more than one encoding: ${listed}. `
    : `${file}:${line} column ${column}: the file is not UTF-8, and it reads plausibly in none of Windows-1252, Windows-1250 and Mac Roman: ${listed}. `;
  return new FileError(file, [facts, { kind: 'encoding-choose', labels: err.readings.map((r) => encodingLabel(r.encoding)), none: !err.plausible }, '.']);
}

/**
 * The header found by `findCsvTableStart`, when its line holds no quote (its cells are then
 * split as csv-parse splits them) and some name, or undefined (the engine then reads it).
 * Why: `openTable` reads the header on its own before the rows are read. A second csv-parse
 * engine in the process makes V8 see two instances of each engine method and slows the read
 * of the rows that follows by about 15% (measured on the 1,000,000-row bench file); a plain
 * header needs no engine.
 */
function plainHeader(found: CsvTableStart, encoding: InputEncoding): CsvHead | undefined {
  if (!found.plain) return undefined;
  const headers = found.cells;
  if (headers.length > MAX_COLUMNS) return undefined; // the engine path reports it
  if (headers.every((h) => h.trim() === '')) return undefined; // the engine path reports it
  return { headers, headerLine: found.headerLine, encoding, delimiter: found.delimiter, titles: found.titles, above: found.above, start: found };
}


function cellTooLong(file: string, line: number, index: number, header: string | undefined, cell: string): RowError {
  const name = header?.trim() ? `${index + 1} (${quote(header)})` : `${index + 1}`;
  return new RowError(file, line, name,
    `this cell holds ${cell.length.toLocaleString('en-US')} characters, over the ${MAX_CELL_CHARS.toLocaleString('en-US')} a spreadsheet cell can hold (it starts ${quote(cell)}). Is a quote left open above it? Shorten the cell.`);
}

/** At most 200 characters of the input, quoted (docs/reading-rules.md). */
export function quote(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 197)}...` : text);
}

function noHeader(file: string, line: number): FileError {
  return new FileError(file, `${file}:${line}: the header row has no column names. The first line must name the columns (e.g. project_id,estimate_name,category).`);
}

/** Turns csv-parse's errors into `RowError`s that name the line the record starts on. */
function csvError(file: string, err: Error, tracker: LineTracker, engine: CsvEngine, head: CsvHead | undefined): Error {
  const e = err as Error & { code?: string; lines?: number; record?: string[]; column?: unknown };
  switch (e.code) {
    case 'CSV_QUOTE_NOT_CLOSED': {
      // csv-parse's `column` is the index of the field whose quote opened.
      const index = typeof e.column === 'number' ? e.column : undefined;
      const header = index === undefined ? undefined : head?.headers[index];
      const where = index === undefined ? undefined : header?.trim() ? `${index + 1} (${quote(header)})` : `${index + 1}`;
      return new RowError(file, tracker.pendingStart(engine.info.empty_lines), where,
        'a quoted field is opened here and never closed, so the rest of the file reads as one field. Close the quote, or double any quote inside a quoted field ("").');
    }
    case 'CSV_MAX_RECORD_SIZE':
      return new RowError(file, tracker.pendingStart(engine.info.empty_lines), undefined,
        `this row is longer than ${MAX_RECORD_BYTES / 1024 / 1024} MiB, which no estimate or bill row needs: is a quote left open, or is this not a CSV file? Close the quote, or shorten the row.`);
    case undefined:
      return err;
    default:
      return new RowError(file, e.lines ?? engine.info.lines, undefined, `the CSV cannot be read here: ${e.message.slice(0, 200)}`);
  }
}
