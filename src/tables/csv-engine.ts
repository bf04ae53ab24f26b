import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
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
 * `test/tables-csv-engine-internals.test.ts` fails if the installed version is another or if this
 * engine stops yielding the records and line counters of csv-parse's public `info: true`
 * interface. Should an install bring another csv-parse anyway, `createCsvEngine` falls back to the
 * public interface (`createPublicCsvEngine`), as it does when the engine is gone.
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

/** The options every engine is built with, private or public. */
function options(delimiter: Delimiter) {
  return {
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
  } as const;
}

/**
 * The csv-parse whose private engine `test/tables-csv-engine-internals.test.ts` proves to read
 * exactly as the public interface does (records and line counters, on the probe below and a
 * corpus); that test also checks this is package.json's pin.
 */
export const VERIFIED_CSV_PARSE = '6.2.1';

/**
 * The reader's engine: csv-parse's private one when the installed csv-parse is the version the
 * test suite proved it on and still has it, the public one otherwise. So an install that brings
 * another csv-parse makes the reader slower (about 20 %), never wrong. The choice is made from the
 * installed version, not by running a probe here: a second engine instance in the process makes
 * V8 see two instances of each engine method and slows the rows' read by about 15 %
 * (`plainHeader` in csv-reader.ts).
 */
export function createCsvEngine(delimiter: Delimiter): CsvEngine {
  usePrivate ??= installedCsvParse() === VERIFIED_CSV_PARSE;
  return (usePrivate ? createPrivateCsvEngine(delimiter) : undefined) ?? createPublicCsvEngine(delimiter);
}

let usePrivate: boolean | undefined;

/** Which engine `createCsvEngine` hands out in this process. */
export function csvEngineKind(): 'private' | 'public' {
  usePrivate ??= installedCsvParse() === VERIFIED_CSV_PARSE;
  return usePrivate ? 'private' : 'public';
}

/** The csv-parse version the CLI bundle carries, written in by bin/build.mjs; undefined run from the sources. */
declare const __BUILDSYNC_CSV_PARSE_VERSION__: string | undefined;

/**
 * The version of the csv-parse this code runs: the one bundled with it, or run from the sources,
 * the installed one (its package.json is not among its exports: found from its entry).
 */
function installedCsvParse(): string | undefined {
  if (typeof __BUILDSYNC_CSV_PARSE_VERSION__ !== 'undefined') return __BUILDSYNC_CSV_PARSE_VERSION__;
  try {
    let dir = path.dirname(createRequire(import.meta.url).resolve('csv-parse'));
    for (let i = 0; i < 5; i++, dir = path.dirname(dir)) {
      const file = path.join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'csv-parse') return pkg.version;
    }
  } catch {
    // no csv-parse to read: the public engine's own import fails loudly enough
  }
  return undefined;
}

/** csv-parse's private engine (`Parser.api`), or undefined when the installed csv-parse has none. */
export function createPrivateCsvEngine(delimiter: Delimiter): CsvEngine | undefined {
  const parser = parse(options(delimiter)) as unknown as { api?: Partial<CsvEngine> };
  const api = parser.api;
  if (!api || typeof api.parse !== 'function' || typeof api.info !== 'object' || api.info === null) return undefined;
  decodeFieldsInPlace((api as { state?: { field?: unknown } }).state?.field);
  return api as CsvEngine;
}

/**
 * The same engine over csv-parse's documented interface: the Transform stream written to
 * synchronously (Node runs `_transform` and, on `end()`, `_flush` within the call), each record
 * taken by `on_record` (returning null keeps it out of the stream's buffer), the counters from the
 * parser's public `info`, and a parse error read from `errored` as soon as the write returns.
 * About 20 % slower than the private engine (issue 15's measurement), and as exact.
 */
export function createPublicCsvEngine(delimiter: Delimiter): CsvEngine {
  let push: (fields: string[]) => void = () => {};
  let ended = false;
  const parser = parse({
    ...options(delimiter),
    on_record: (record: string[]) => {
      push(record);
      return null;
    },
  });
  // The error is read from `errored`; without a listener the stream would also throw it.
  parser.on('error', () => {});
  return {
    get info() {
      return parser.info;
    },
    parse(chunk, end, onRecord, close) {
      push = onRecord;
      if (chunk !== undefined && chunk.length > 0) parser.write(chunk);
      if (parser.errored) return parser.errored;
      if (end && !ended) {
        ended = true;
        parser.end();
        if (parser.errored) return parser.errored;
        close();
      }
      return undefined;
    },
  };
}

/**
 * Lines whose records and counters are easy to get wrong: quoted CR LF and LF inside fields, blank
 * lines between and after records, a relaxed quote, a title line of another width, multi-byte text.
 */
const PROBE = 'Title\r\n\r\na,b,c\r\n"x\r\ny",6" pipe,"Zürich ""Straße"""\n\n\n1,2\r\n"p\nq",é,3\n\n';

/**
 * Feeds the probe to `factory`'s engine a byte at a time and whole, and to the public one whole:
 * the test suite's proof that the pinned csv-parse's private engine may be used.
 */
export function privateEngineAgrees(factory: (delimiter: Delimiter) => CsvEngine | undefined): boolean {
  const run = (engine: CsvEngine | undefined, slice: number): string | undefined => {
    if (!engine) return undefined;
    const out: unknown[] = [];
    const push = (record: string[]) => out.push([record, engine.info.lines, engine.info.empty_lines]);
    const bytes = Buffer.from(PROBE, 'utf8');
    try {
      for (let at = 0; at < bytes.length; at += slice) if (engine.parse(bytes.subarray(at, at + slice), false, push, () => {})) return undefined;
      if (engine.parse(undefined, true, push, () => {})) return undefined;
    } catch {
      return undefined;
    }
    return JSON.stringify(out);
  };
  const expected = run(createPublicCsvEngine(','), 1 << 16);
  return expected !== undefined && run(factory(','), 1) === expected && run(factory(','), 1 << 16) === expected;
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
