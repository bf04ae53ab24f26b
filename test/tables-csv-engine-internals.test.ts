import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { createCsvEngine, createPrivateCsvEngine, createPublicCsvEngine, csvEngineKind, privateEngineAgrees, VERIFIED_CSV_PARSE, type CsvEngine } from '../src/tables/csv-engine.ts';
import type { Delimiter } from '../src/tables/delimiter.ts';

/**
 * The CSV reader drives csv-parse's internal engine (`Parser.api`, see src/tables/csv-engine.ts):
 * reading through the public interface (`on_record` or `info: true`) cost the import planner too
 * much (issue 15). So package.json pins csv-parse to one exact version, and these tests fail as
 * soon as the installed csv-parse is another one or its internal engine behaves differently from
 * its public interface, before any import reads a line number wrong.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const OPTIONS = { relax_quotes: true, relax_column_count: true, skip_empty_lines: true, max_record_size: 1024 * 1024 } as const;

/** Inputs whose line numbers are easy to get wrong: quoted CRLFs, blank lines, relaxed quotes, multi-byte text. */
const CORPUS: { name: string; text: string; delimiter: Delimiter }[] = [
  { name: 'plain LF', text: 'a,b,c\n1,2,3\n4,5,6\n', delimiter: ',' },
  { name: 'CRLF, no final line break', text: 'a,b\r\n1,2\r\n3,4', delimiter: ',' },
  { name: 'quoted CRLF and LF inside fields', text: 'a,b\r\n"x\r\ny",1\r\n"p\nq\nr",2\r\nlast,3\r\n', delimiter: ',' },
  { name: 'blank lines between and after records', text: 'a,b\n\n1,2\n\n\n3,4\n\n', delimiter: ',' },
  { name: 'relaxed quote in an unquoted field', text: 'item,size\n6" pipe,2\n"quoted ""inner""",3\n', delimiter: ',' },
  { name: 'multi-byte text, semicolons', text: 'name;note\nCafé Ñandú;北京 — 🏗️\n"Zürich;Straße";"é\r\nà"\n', delimiter: ';' },
  { name: 'tabs', text: 'a\tb\n1\t"2\t3"\n', delimiter: '\t' },
  { name: 'a title block and a footer with other numbers of fields', text: 'Title\r\n"Jan 1, 2026"\r\n\r\na,b,c\r\n1,2,3\r\n\r\n"Cash Basis, 10:15 AM"\r\n', delimiter: ',' },
];

/** What the reader's engine yields for `text` fed in slices of `slice` bytes: each record with `info` at its emission. */
function viaEngine(text: string, delimiter: Delimiter, slice: number, factory: (d: Delimiter) => CsvEngine = createCsvEngine) {
  const engine = factory(delimiter);
  const out: { record: string[]; lines: number; empty_lines: number }[] = [];
  const push = (record: string[]) => out.push({ record, lines: engine.info.lines, empty_lines: engine.info.empty_lines });
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length; at += slice) {
    const err = engine.parse(bytes.subarray(at, at + slice), false, push, () => {});
    if (err) throw err;
  }
  const err = engine.parse(undefined, true, push, () => {});
  if (err) throw err;
  return out;
}

/** The same through csv-parse's documented interface: `info: true` snapshots the counters per record. */
function viaPublicApi(text: string, delimiter: Delimiter) {
  const rows = parse(text, { ...OPTIONS, delimiter, info: true }) as unknown as { record: string[]; info: { lines: number; empty_lines: number } }[];
  return rows.map(({ record, info }) => ({ record, lines: info.lines, empty_lines: info.empty_lines }));
}

describe('csv-parse as the CSV reader drives it', () => {
  it('is installed at exactly the version package.json pins', async () => {
    const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const pinned = pkg.dependencies['csv-parse'];
    // An exact version: a range (^6.2.1) would let an install bring internals this reader has not seen.
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    const installed = JSON.parse(await readFile(path.join(root, 'node_modules/csv-parse/package.json'), 'utf8')) as { version: string };
    expect(installed.version).toBe(pinned);
    // The reader uses the private engine for exactly the version these tests prove it on.
    expect(VERIFIED_CSV_PARSE).toBe(pinned);
  });

  it.each(CORPUS)('reads $name with the records and line counters of the public interface, whatever the slice size', ({ text, delimiter }) => {
    const expected = viaPublicApi(text, delimiter);
    expect(expected.length).toBeGreaterThan(1);
    for (const slice of [1, 2, 3, 7, 64, 1 << 16]) {
      expect(viaEngine(text, delimiter, slice)).toEqual(expected);
    }
  });

  it.each(CORPUS)('reads $name through the public fallback engine with the same records and line counters', ({ text, delimiter }) => {
    const expected = viaPublicApi(text, delimiter);
    for (const slice of [1, 3, 64, 1 << 16]) {
      expect(viaEngine(text, delimiter, slice, createPublicCsvEngine)).toEqual(expected);
    }
  });

  it('uses the private engine for the pinned csv-parse, which reads the probe as the public interface does', () => {
    expect(privateEngineAgrees(createPrivateCsvEngine)).toBe(true);
    expect(csvEngineKind()).toBe('private');
  });

  it('the probe tells an engine that is gone or reads otherwise from the public interface', () => {
    // An install whose Parser has no `api`.
    expect(privateEngineAgrees(() => undefined)).toBe(false);
    // An engine whose counters moved: every line number one off.
    const shifted = (d: Delimiter): CsvEngine => {
      const inner = createPrivateCsvEngine(d)!;
      return {
        get info() {
          return { lines: inner.info.lines + 1, empty_lines: inner.info.empty_lines };
        },
        parse: (chunk, end, push, close) => inner.parse(chunk, end, push, close),
      };
    };
    expect(privateEngineAgrees(shifted)).toBe(false);
    // An engine that drops a field of quoted records.
    const dropping = (d: Delimiter): CsvEngine => {
      const inner = createPrivateCsvEngine(d)!;
      return { info: inner.info, parse: (chunk, end, push, close) => inner.parse(chunk, end, (r) => push(r.slice(1)), close) };
    };
    expect(privateEngineAgrees(dropping)).toBe(false);
  });

  it('the public fallback returns csv-parse’s own errors too', () => {
    const engine = createPublicCsvEngine(',');
    expect(engine.parse(Buffer.from('a,b\n"open,1\n'), false, () => {}, () => {})).toBeUndefined();
    const unclosed = engine.parse(undefined, true, () => {}, () => {}) as Error & { code?: string };
    expect(unclosed.code).toBe('CSV_QUOTE_NOT_CLOSED');
  });

  it('returns csv-parse’s own errors, with the codes the reader turns into messages', () => {
    const engine = createCsvEngine(',');
    const push = () => {};
    expect(engine.parse(Buffer.from('a,b\n"open,1\n'), false, push, () => {})).toBeUndefined();
    const unclosed = engine.parse(undefined, true, push, () => {}) as Error & { code?: string };
    expect(unclosed.code).toBe('CSV_QUOTE_NOT_CLOSED');

  });

  it('hands out records of any number of fields: title and footer lines have their own, and the reader checks the data rows against the header', () => {
    const other = createCsvEngine(',');
    const records: string[][] = [];
    expect(other.parse(Buffer.from('a,b\n1,2,3\nx,y\n'), false, (r) => records.push(r), () => {})).toBeUndefined();
    expect(other.parse(undefined, true, (r) => records.push(r), () => {})).toBeUndefined();
    expect(records).toEqual([['a', 'b'], ['1', '2', '3'], ['x', 'y']]);
  });

  it('keeps the field buffer the engine decodes from in place (the reader’s decoding shortcut applies)', () => {
    const engine = createCsvEngine(',') as unknown as { state?: { field?: { buf?: unknown; length?: unknown; toString?: unknown } } };
    const field = engine.state?.field;
    expect(Buffer.isBuffer(field?.buf)).toBe(true);
    expect(typeof field?.length).toBe('number');
    // decodeFieldsInPlace replaces this instance's toString; the class's own stays untouched.
    expect(Object.prototype.hasOwnProperty.call(field, 'toString')).toBe(true);
  });
});
