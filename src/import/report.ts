import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { writeFileAtomically } from '../atomic-file.ts';
import { EXIT, type ErrorCode, ImportUnknownError, exitCodeOf, firstExit } from '../errors/index.ts';
import type { IgnoredCounts, ImportStore, OutcomeCounts, ReportLine } from './import-store.ts';
import { linesNamedIn, sheetLineName } from '../tables/workbook-sheets.ts';

/** The report's columns (README, Reports, re-runs and `unknown`). */
export const REPORT_COLUMNS = ['line', 'record', 'status', 'id', 'message'] as const;

export interface ImportSummary {
  importId: string;
  kind: 'estimates' | 'bills';
  file: string;
  rows: number;
  records: number;
  /** Records by outcome, plus rows that were invalid. */
  counts: Omit<OutcomeCounts, 'settled'> & { invalidRows: number };
  /** Rows that are no part of any record (a title, a footer, ...), by reason; `{}` for none. They change no exit code. */
  ignored: IgnoredCounts;
  /** Where the worker wrote the report, when it could. */
  reportPath?: string;
  /** True when some record failed because the service refused the credentials. */
  authFailed: boolean;
  /** True when some record failed or stayed unknown because the service could not be reached or kept failing (network, 5xx). */
  serviceFailed: boolean;
  /** Records with no outcome recorded (still pending, or their job died): `unknown` in the report once the import has ended. */
  unsettled: number;
  /**
   * Why sending stopped, when it did: Redis stopped keeping the ledger safely mid-import (its
   * persistence changed, or the ledger's marker went). Exit 2 (README, Exit codes).
   */
  stopped?: string;
}

/** The summary of an import, from its store. */
export async function importSummary(store: ImportStore, importId: string): Promise<ImportSummary> {
  const meta = await store.meta(importId);
  if (!meta) throw new ImportUnknownError(importId);
  const counts = await store.counts(importId);
  const { settled: _settled, ...byStatus } = counts;
  // What the records' own failures mean for the exit code, by the one table: 3 refused
  // credentials, 4 the service unreachable or failing. (A record's other codes say "some records
  // failed", exit 1, whatever they would mean for a whole command.)
  const codes = await store.outcomeCodes(importId);
  const exits = new Set([...codes.keys()].map((code) => exitCodeOf(code as ErrorCode)));
  const stopped = codes.get('BUILDSYNC_LEDGER_UNSAFE');
  return {
    importId,
    kind: meta.kind,
    file: meta.file,
    rows: meta.rows,
    records: meta.records,
    counts: { ...byStatus, invalidRows: meta.invalidRows },
    ignored: meta.ignored ?? {},
    authFailed: exits.has(EXIT.auth),
    serviceFailed: exits.has(EXIT.unreachable),
    unsettled: meta.records - counts.settled,
    ...(stopped === undefined ? {} : { stopped }),
  };
}

/**
 * How the report names a line: its number, or with `--sheet all` `Sheet!row` (`sheetLineName`),
 * in its `line` column and in the lines its messages name (`linesNamedIn`); an import keeps the
 * sheets it read in its errors-file source.
 */
export type LineName = (line: number) => number | string;

/** The report's `LineName` of an import, from what its store keeps. */
export async function lineNameOf(store: ImportStore, importId: string): Promise<LineName | undefined> {
  const sheets = ((await store.meta(importId))?.errorsSource as { sheetsRead?: string[] } | undefined)?.sheetsRead;
  return sheets === undefined ? undefined : sheetLineName(sheets);
}

/** The report as CSV text: a header and one line per input row. */
export function reportCsv(lines: ReportLine[], lineName?: LineName): string {
  return stringify(
    lines.map((l) => [lineName === undefined ? l.line : lineName(l.line), l.record, l.status, l.id, lineName === undefined ? l.message : linesNamedIn(l.message, lineName)]),
    { header: true, columns: [...REPORT_COLUMNS] },
  );
}

/** Lines per `reportCsvChunks` chunk: big enough that csv-stringify's per-call cost vanishes. */
const CHUNK_LINES = 10_000;

/**
 * `reportCsv` in pieces (the header in the first), for a report too big to hold as one string
 * and one array of rows (a dry run of a million-row file); the pieces join to the same text.
 */
export function* reportCsvChunks(lines: Iterable<ReportLine>, lineName?: LineName): Generator<string> {
  let rows: Array<[number | string, string, string, number | '', string]> = [];
  let first = true;
  for (const l of lines) {
    rows.push([lineName === undefined ? l.line : lineName(l.line), l.record, l.status, l.id, lineName === undefined ? l.message : linesNamedIn(l.message, lineName)]);
    if (rows.length === CHUNK_LINES) {
      yield stringify(rows, { header: first, columns: [...REPORT_COLUMNS] });
      first = false;
      rows = [];
    }
  }
  if (first || rows.length > 0) yield stringify(rows, { header: first, columns: [...REPORT_COLUMNS] });
}

/** Writes the report of an import to `path`, atomically. */
export async function writeReport(store: ImportStore, importId: string, path: string, opts: { running?: boolean } = {}): Promise<number> {
  const lines = await store.report(importId, opts);
  const lineName = await lineNameOf(store, importId);
  const file = await writeFileAtomically(path);
  try {
    await file.write(reportCsv(lines, lineName));
    await file.commit();
  } catch (err) {
    await file.abort();
    throw err;
  }
  return lines.length;
}

/**
 * A worker writes the report where the import asked, when that folder exists on its machine (the
 * CLI that submitted the import writes it too when it follows the job; `jobs report` any time).
 */
export async function writeReportIfPossible(store: ImportStore, importId: string, path: string): Promise<boolean> {
  if (!existsSync(dirname(path))) return false;
  await writeReport(store, importId, path);
  return true;
}

/**
 * Exit code of a finished import (README, Commands): 2 sending stopped because Redis stopped keeping
 * the ledger safely (`stopped`); 3 credentials refused; 4 some records failed or
 * stayed unknown because the service could not be reached or kept failing (run again later:
 * nothing is wrong with the input); 1 some rows or records invalid, refused or unknown; else 0.
 * When several apply, the table's precedence picks (`firstExit`).
 */
export function importExitCode(s: ImportSummary): number {
  const c = s.counts;
  const notDone = c.failed > 0 || c.unknown > 0;
  return firstExit([
    s.stopped !== undefined && EXIT.usage,
    s.authFailed && EXIT.auth,
    s.serviceFailed && notDone && EXIT.unreachable,
    (c.invalidRows > 0 || notDone || s.unsettled > 0) && EXIT.partial,
  ]);
}

/**
 * "4 rows ignored: title 3, footer 1" (README, "Reports"): the rows that are no part of any record,
 * by reason; undefined when there are none. Every summary of an import says it in these words.
 */
export function ignoredLine(ignored: IgnoredCounts): string | undefined {
  const parts = Object.entries(ignored).filter(([, n]) => n !== undefined && n > 0) as Array<[string, number]>;
  if (parts.length === 0) return undefined;
  const total = parts.reduce((sum, [, n]) => sum + n, 0);
  return `${total} ${total === 1 ? 'row' : 'rows'} ignored: ${parts.map(([reason, n]) => `${reason} ${n}`).join(', ')}`;
}

/** The closing lines of a finished import and its exit code, for every front end (CLI, page). */
export function importOutcome(s: ImportSummary): { unknown: number; line: string; exitCode: number } {
  const c = s.counts;
  // A record whose job ended without an outcome counts as unknown here (ImportStore.report tells it apart per row).
  const unknown = c.unknown + s.unsettled;
  return {
    unknown,
    line: `${s.kind}: ${s.rows} ${s.rows === 1 ? 'row' : 'rows'}, ${s.records} ${s.records === 1 ? 'record' : 'records'}: created ${c.created}, exists ${c.exists}, skipped ${c.skipped}, failed ${c.failed}, unknown ${unknown}; invalid rows ${c.invalidRows}`,
    exitCode: importExitCode(s),
  };
}
