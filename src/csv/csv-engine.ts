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
 * loudly if an upgrade removes it; `test/csv-reader-*.test.ts` exercise it.
 */
export interface CsvEngine {
  /** Live counters: `lines` is the line the current record ends on, `empty_lines` the blank lines skipped. */
  readonly info: { readonly lines: number; readonly empty_lines: number };
  parse(chunk: Buffer | undefined, end: boolean, push: (fields: string[]) => void, close: () => void): Error | undefined;
}

export function createCsvEngine(delimiter: Delimiter): CsvEngine {
  const parser = parse({
    delimiter,
    // A quote inside an unquoted field (`6" pipe`) is kept as text, as spreadsheets do, rather
    // than failing the file; quoted fields still follow RFC 4180.
    relax_quotes: true,
    skip_empty_lines: true,
  }) as unknown as { api?: Partial<CsvEngine> };
  const api = parser.api;
  if (!api || typeof api.parse !== 'function' || typeof api.info !== 'object') {
    throw new Error('the installed csv-parse no longer exposes its parsing engine (Parser.api); src/csv/csv-engine.ts must be adapted to it');
  }
  return api as CsvEngine;
}
