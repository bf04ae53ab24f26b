import { parse } from 'csv-parse';
import type { Delimiter } from './delimiter.ts';

/**
 * csv-parse's parsing engine, driven directly instead of through its Transform stream.
 *
 * Why: the line number of each record must be read at the moment the record is emitted
 * (`info.lines` moves on as parsing continues). The public ways to get it (`info: true`,
 * `on_record`) build two spread copies of the info object per record, which costs about 20% of
 * the read speed on a 200,000-row file; the Transform stream adds a buffered push per record on
 * top. csv-parse 6's `Parser` keeps its engine in the `api` property (`lib/index.js`:
 * `this.api = transform(opts)`, whose `parse(buf, end, push, close)` is what `_transform`
 * calls). The property is not in the typings, so `createCsvEngine` checks it is there and fails
 * loudly if an upgrade removes it.
 *
 * Reading through the public interface instead (`on_record`, whose context is built per record,
 * with `parser.info` for the counters) was measured for issue 15: the reader took about 60% more
 * CPU time on the 1,000,000-row bench file, taking `npm run bench -- import-plan` below its goal.
 * So package.json pins csv-parse to one exact version (no range), and
 * `test/csv-engine-internals.test.ts` fails if the installed version is another or if this engine
 * stops yielding the records and line counters of csv-parse's public `info: true` interface.
 * Upgrading csv-parse means changing the pin and running that test.
 */
export interface CsvEngine {
  /** Live counters: `lines` is the line the current record ends on, `empty_lines` the blank lines skipped. */
  readonly info: { readonly lines: number; readonly empty_lines: number };
  parse(chunk: Buffer | undefined, end: boolean, push: (fields: string[]) => void, close: () => void): Error | undefined;
}

/** csv-parse's growable byte buffer holding the field being read (`lib/utils/ResizeableBuffer.js`). */
interface FieldBuffer {
  buf: Buffer;
  length: number;
  toString(encoding?: BufferEncoding): string | Uint8Array;
}

export function createCsvEngine(delimiter: Delimiter): CsvEngine {
  const parser = parse({
    delimiter,
    // A quote inside an unquoted field (`6" pipe`) is kept as text, as spreadsheets do, rather
    // than failing the file; quoted fields still follow RFC 4180.
    relax_quotes: true,
    // Title and footer lines have any number of fields (docs/reading-rules.md); the reader compares
    // each data row with the header itself (csv-parse would compare it with the first line).
    relax_column_count: true,
    skip_empty_lines: true,
    // docs/reading-rules.md: a row of more than 1 MiB stops the read (CSV_MAX_RECORD_SIZE), so memory
    // never grows with a runaway field (an open quote, a binary file).
    max_record_size: 1024 * 1024,
  }) as unknown as { api?: Partial<CsvEngine> };
  const api = parser.api;
  if (!api || typeof api.parse !== 'function' || typeof api.info !== 'object') {
    throw new Error('the installed csv-parse no longer exposes its parsing engine (Parser.api); src/tables/csv-engine.ts must be adapted to it');
  }
  decodeFieldsInPlace((api as { state?: { field?: unknown } }).state?.field);
  return api as CsvEngine;
}

/**
 * Makes the engine decode each field straight from its byte buffer. Why: csv-parse's
 * `ResizeableBuffer.toString(encoding)` is `this.buf.slice(0, this.length).toString(encoding)`,
 * which builds a Buffer view per field (15 per row) only to decode it: about 0.8 s of CPU time
 * and a share of the young-generation garbage on the 1,000,000-row bench file.
 * `buf.toString(encoding, 0, length)` decodes the same bytes without the view. Only this engine's
 * instance is changed, and only when the buffer has the shape it relies on; calls without an
 * encoding (csv-parse's BOM check wants bytes) keep the original.
 */
function decodeFieldsInPlace(field: unknown): void {
  const f = field as FieldBuffer | undefined;
  if (f === undefined || f === null || !Buffer.isBuffer(f.buf) || typeof f.length !== 'number' || typeof f.toString !== 'function') return;
  const bytes = f.toString.bind(f);
  // `utf8Slice` is what `toString('utf8', …)` ends in, minus its argument handling (~30 ns a
  // call, 15 million calls); it is not in Node's typings, hence the check.
  const utf8 = typeof (f.buf as Buffer & { utf8Slice?: unknown }).utf8Slice === 'function';
  f.toString = function (this: FieldBuffer, encoding?: BufferEncoding) {
    if (!encoding) return bytes(encoding);
    // An empty field (a third of a typical estimate file's) needs no call into the native decoder.
    if (this.length === 0) return '';
    if (utf8 && (encoding === 'utf8' || encoding === 'utf-8')) return (this.buf as Buffer & { utf8Slice(start: number, end: number): string }).utf8Slice(0, this.length);
    return this.buf.toString(encoding, 0, this.length);
  };
}
