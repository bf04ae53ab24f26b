import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeFileAtomically } from '../atomic-file.ts';
import { PROJECT_CSV_HEADER, projectCsvRowBytes } from './project-writer.ts';
import { RowBatch } from './row-batch.ts';
import { InterruptedError, UsageError } from '../errors/index.ts';
import { SheetRows, XLSX_MAX_ROWS } from './xlsx/sheet-rows.ts';
import { openXlsxFile } from './xlsx/xlsx-file.ts';

export type ExportFormat = 'csv' | 'jsonl' | 'xlsx';

/**
 * Which "My Documents" pseudo-projects (docs/service.md, Overview) go into the export.
 * - `exclude`: none of them (the default, README, Commands).
 * - `official`: only the official one: the lowest ID among the records named "My Documents".
 * - `all`: every one, the stale references included.
 */
export type MyDocumentsMode = 'exclude' | 'official' | 'all';

/**
 * Another destination of the exported projects (`--to postgres`, `--changes`): it sees every
 * project the file gets, in the file's order, and takes part in the export's all-or-nothing.
 * `write` returns a promise only when the sink needs the export to wait (backpressure). Once the
 * listing ended, every sink is `prepare`d (everything written, nothing visible yet); then the file
 * is committed, then each sink in order. On any failure every sink is `abort`ed.
 */
export interface ExportSink {
  write(record: Record<string, unknown>): void | Promise<void>;
  prepare(): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export interface ExportOptions {
  /** Final path of the export file; its directory is created when missing. `null`: no file (the sinks only). */
  out: string | null;
  /** Other destinations of the same projects. @defaultValue none */
  sinks?: readonly ExportSink[];
  format: ExportFormat;
  myDocuments: MyDocumentsMode;
  /** Aborting removes the temporary file and rejects with `InterruptedError`. */
  signal?: AbortSignal;
  /** Called each time a batch reaches the file, and once at the end with the totals. */
  onProgress?: (p: { projects: number; bytes: number }) => void;
  /** The most projects an .xlsx takes (tests lower it). @defaultValue XLSX_MAX_ROWS, Excel's 1,048,575 data rows */
  xlsxMaxRows?: number;
}

export interface ExportResult {
  path: string;
  /** Records written (My Documents records left out are not counted). */
  projects: number;
  /** Size of the export file. */
  bytes: number;
  /** "My Documents" records left out by the `myDocuments` mode. */
  skippedMyDocuments: number;
  ms: number;
}

/**
 * Rows are gathered (as UTF-8, `RowBatch`) into about this many bytes before they are written:
 * large enough that the file system sees few, big writes; small enough that a batch and the one
 * being written stay far below the memory budget.
 */
const BATCH_BYTES = 256 * 1024;

const MY_DOCUMENTS = 'My Documents';

/** Whether a project record is one of the "My Documents" pseudo-projects (docs/service.md, Overview). */
export function isMyDocuments(record: Record<string, unknown>): boolean {
  return record.NAME === MY_DOCUMENTS;
}

/**
 * `exports/projects-YYYY-MM-DD.csv` (or `.jsonl`, `.xlsx`), dated by the local calendar day of `date`
 * (README, Commands).
 */
export function defaultExportPath(format: ExportFormat, date: Date = new Date(), dir = 'exports'): string {
  const day = `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())}`;
  return path.join(dir, `projects-${day}.${format}`);
}

/**
 * Writes every record of `source` to `opts.out`, as CSV, JSON Lines or .xlsx (README, Commands, §5). The
 * file appears only when complete; on any failure or abort nothing is left at `opts.out` (an
 * earlier file there stays until a successful export replaces it) and no temporary file remains.
 *
 * My Documents in `official` mode: the seed promises the official record is the first of its
 * name and has the lowest ID, but only the lowest ID identifies it for certain, and that is known
 * only once the source ends. So records named "My Documents" (a handful) are held back, and the
 * one with the lowest ID is written after all other records. Every other record keeps the order
 * of the source.
 */
export async function exportProjects(
  source: AsyncIterable<Record<string, unknown>>,
  opts: ExportOptions,
): Promise<ExportResult> {
  const started = performance.now();
  const { signal, onProgress } = opts;
  checkOptions(opts);
  if (signal?.aborted) throw interrupted(opts.out ?? 'the export');

  const out = opts.out ?? 'the export';
  const sinks = opts.sinks ?? [];
  const sheet = opts.format === 'xlsx' && opts.out !== null ? new SheetRows() : undefined;
  const maxRows = sheet ? (opts.xlsxMaxRows ?? XLSX_MAX_ROWS) : Infinity;
  const format: (record: Record<string, unknown>) => string | Uint8Array =
    opts.out === null ? noRow : sheet ? (record) => sheet.row(record) : opts.format === 'csv' ? projectCsvRowBytes : jsonLine;
  const myDocuments = new MyDocumentsPolicy(opts.myDocuments);
  const file = opts.out === null ? NO_FILE : sheet ? await openXlsxFile(await writeFileAtomically(opts.out), sheet) : await writeFileAtomically(opts.out);
  const records = readRecords(source, signal, out);
  // Returns a promise only when a sink needs the export to wait: most records go through
  // without one (an async function per record costs a promise and a microtask each).
  const toSinks = (record: Record<string, unknown>, from = 0): Promise<void> | undefined => {
    for (let i = from; i < sinks.length; i++) {
      const wait = sinks[i]!.write(record);
      if (wait) return wait.then(() => toSinks(record, i + 1));
    }
    return undefined;
  };
  const batch = new RowBatch(BATCH_BYTES);
  if (opts.format === 'csv' && opts.out !== null) batch.add(PROJECT_CSV_HEADER);
  let projects = 0;

  const flush = async () => {
    if (batch.bytes > 0) await file.write(batch.take());
    if (signal?.aborted) throw interrupted(out);
    onProgress?.({ projects, bytes: file.bytesWritten });
  };

  try {
    for (;;) {
      const next = await records.next();
      if (next.done) break;
      const record = next.value;
      if (isMyDocuments(record) && !myDocuments.admit(record)) continue;
      // Stops as soon as the sheet is full, rather than listing the rest for nothing.
      if (projects >= maxRows) throw tooManyRows(out, maxRows);
      batch.add(format(record));
      projects++;
      const wait = toSinks(record);
      if (wait) await wait;
      if (batch.full || (opts.out === null && projects % 1000 === 0)) await flush();
    }
    for (const record of myDocuments.heldBack()) {
      if (projects >= maxRows) throw tooManyRows(out, maxRows);
      batch.add(format(record));
      projects++;
      const wait = toSinks(record);
      if (wait) await wait;
    }
    await flush();
    for (const sink of sinks) await sink.prepare();
    if (signal?.aborted) throw interrupted(out);
    await file.commit();
    for (const sink of sinks) await sink.commit();
  } catch (err) {
    records.stop();
    await file.abort();
    for (const sink of sinks) await sink.abort();
    throw err;
  } finally {
    records.dispose();
  }
  return {
    path: opts.out ?? '',
    projects,
    bytes: file.bytesWritten,
    skippedMyDocuments: myDocuments.skipped,
    ms: Math.round(performance.now() - started),
  };
}

const FORMATS: readonly string[] = ['csv', 'jsonl', 'xlsx'] satisfies ExportFormat[];
const MY_DOCUMENTS_MODES: readonly string[] = ['exclude', 'official', 'all'] satisfies MyDocumentsMode[];

/** The CLI validates its flags; this catches a caller (a job's data) that did not. */
function checkOptions(opts: ExportOptions): void {
  if (!FORMATS.includes(opts.format)) {
    throw new UsageError(`unknown export format ${JSON.stringify(opts.format)}; use csv, jsonl or xlsx`);
  }
  if (!MY_DOCUMENTS_MODES.includes(opts.myDocuments)) {
    throw new UsageError(
      `unknown --my-documents value ${JSON.stringify(opts.myDocuments)}; use exclude, official or all`,
    );
  }
}

/** More projects than a sheet holds: the user's choice of format, so exit 2 (README, .xlsx). */
function tooManyRows(out: string, max: number): UsageError {
  return new UsageError(
    `more than ${max.toLocaleString('en-US')} projects: an .xlsx sheet holds at most ${max.toLocaleString('en-US')} rows below its header (Excel's limit), so ${out} was not written; export as csv or jsonl instead`,
  );
}

function noRow(): string {
  return '';
}

/** Where no export file is written (`--to postgres`): the sinks are the export. */
const NO_FILE = {
  bytesWritten: 0,
  write: async () => {},
  commit: async () => {},
  abort: async () => {},
};

function jsonLine(record: Record<string, unknown>): string {
  // As the service sent it: every field, unknown ones included (README, Reports, re-runs and `unknown`).
  return `${JSON.stringify(record)}\n`;
}

class MyDocumentsPolicy {
  skipped = 0;
  private lowest: Record<string, unknown> | undefined;

  constructor(private readonly mode: MyDocumentsMode) {}

  /** Whether to write this My Documents record now; `official` holds it back instead. */
  admit(record: Record<string, unknown>): boolean {
    if (this.mode === 'all') return true;
    this.skipped++;
    if (this.mode === 'official') {
      if (this.lowest === undefined || idOf(record) < idOf(this.lowest)) this.lowest = record;
    }
    return false;
  }

  /** The records to write once the source has ended. */
  heldBack(): Record<string, unknown>[] {
    if (this.lowest === undefined) return [];
    this.skipped--;
    return [this.lowest];
  }
}

function idOf(record: Record<string, unknown>): number {
  const id = record.ID;
  return typeof id === 'number' ? id : Number.POSITIVE_INFINITY;
}

interface RecordReader {
  next(): Promise<IteratorResult<Record<string, unknown>>>;
  /** Lets the source release what it holds (an HTTP body), without waiting for it. */
  stop(): void;
  dispose(): void;
}

/**
 * Iterates `source`, rejecting the pending `next()` as soon as `signal` aborts: a source waiting
 * on a slow or stalled network must not hold the export (and its temporary file) open.
 */
function readRecords(
  source: AsyncIterable<Record<string, unknown>>,
  signal: AbortSignal | undefined,
  out: string,
): RecordReader {
  const it = source[Symbol.asyncIterator]();
  const stop = () => {
    // Not awaited: a generator stuck in a pending next() only runs return() after it settles.
    Promise.resolve()
      .then(() => it.return?.())
      .catch(() => {});
  };
  if (!signal) return { next: () => it.next(), stop, dispose: () => {} };

  let rejectPending: ((err: unknown) => void) | undefined;
  const onAbort = () => rejectPending?.(interrupted(out));
  signal.addEventListener('abort', onAbort, { once: true });
  return {
    next() {
      if (signal.aborted) return Promise.reject(interrupted(out));
      return new Promise((resolve, reject) => {
        rejectPending = reject;
        it.next().then(resolve, reject);
      });
    },
    stop,
    dispose: () => signal.removeEventListener('abort', onAbort),
  };
}

function interrupted(out: string): InterruptedError {
  return new InterruptedError(`export interrupted; ${out} was not written`);
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}
