/**
 * What `buildsync import` prints, shared by its dry run (import-command.ts) and its send
 * (import-send.ts): the flags, the `--json` object, the notes after a summary, and the answer to
 * a file with a header and no data rows.
 */
import { resolve } from 'node:path';
import { MAX_LISTED, listAtMost } from '../errors/index.ts';
import { encodingNote, ignoredLine, readingNote } from '../import/index.ts';
import type { DelimiterOption, EncodingOption } from '../tables/index.ts';
import type { DateOrder, IgnoredCounts, ReadingRules } from '../mapping/index.ts';
import { importPlanOptions, writeEmptyReport } from '../import-service/index.ts';
import type { CommandContext } from './command.ts';
import type { configFor } from './runtime.ts';

export type Config = ReturnType<typeof configFor>;
export type PlanOpts = Awaited<ReturnType<typeof importPlanOptions>>;

export interface ImportFlags {
  mapping?: string;
  sheet?: string;
  /** `--header-row N`, as typed. */
  headerRow?: string;
  vendors?: string;
  dryRun?: boolean;
  printPayloads?: boolean;
  report?: string;
  /** The same as --report: `--out` names a command's output file everywhere. */
  out?: string;
  detach?: boolean;
  json?: boolean;
  resendUnknown?: boolean;
  encoding?: EncodingOption;
  delimiter?: DelimiterOption;
  dateFormat?: 'auto' | DateOrder;
  decimalSeparator?: 'auto' | '.' | ',';
  hidden?: 'include' | 'skip';
  /** Bills: `--credits negative`. */
  credits?: 'negative';
  /** Bills: `--discounts apply`. */
  discounts?: 'apply';
  /** Bills: `--ignore-tax`. */
  ignoreTax?: boolean;
  /** `--fill-down COLS`, as typed. */
  fillDown?: string;
  layout?: 'sections';
  /** `--ledger-lost accept`: an earlier report's created records the ledger lost are written into it, never sent again. */
  ledgerLost?: 'accept';
}

/**
 * `import … --json`: one object on stdout, always these keys (README, "Scripting"). `status` is
 * `done`, `submitted` (--detach), `dry-run` or `failed` (the import job itself failed: `error`).
 * A dry run's counts are all 0 but `invalidRows`; `records` is what it would send. `ignored`: the
 * rows that are no part of any record, by reason (`{}` for none), from the plan.
 */
export interface ImportJson {
  status: 'done' | 'submitted' | 'dry-run' | 'failed';
  importId: string | null;
  kind: 'estimates' | 'bills';
  file: string;
  rows: number;
  records: number;
  counts: { created: number; exists: number; skipped: number; failed: number; unknown: number; invalidRows: number };
  ignored: IgnoredCounts;
  report: string | null;
  errorsFile: string | null;
  exitCode: number;
  error: { code: string | null; message: string } | null;
}

export function importJson(fields: Partial<ImportJson> & Pick<ImportJson, 'status' | 'kind' | 'file' | 'rows' | 'records' | 'exitCode'>): string {
  const zero = { created: 0, exists: 0, skipped: 0, failed: 0, unknown: 0, invalidRows: 0 };
  const o: ImportJson = { importId: null, report: null, errorsFile: null, error: null, ignored: {}, ...fields, counts: { ...zero, ...fields.counts } };
  // Keys in the documented order, whatever order the fields came in.
  const { status, importId, kind, file, rows, records, counts, ignored, report, errorsFile, exitCode, error } = o;
  return JSON.stringify({ status, importId, kind, file, rows, records, counts, ignored, report, errorsFile, exitCode, error });
}

/** The summary's line of the rows that are no part of any record ("4 rows ignored: title 3, footer 1"), when there are any. */
export function noteIgnored(print: (line: string) => void, ignored: IgnoredCounts): void {
  const line = ignoredLine(ignored);
  if (line !== undefined) print(line);
}

/**
 * Says once, after the summary, how the file was read where that is not plain: the encoding of a
 * file that is not UTF-8 ("read as Mac Roman"), dates read by BUILDSYNC_DATE_FORMAT, the sheets.
 */
export function noteReading(ctx: CommandContext, table: { rules: ReadingRules; encoding?: string; sheets?: { read: string[]; notRead: string[] } } | undefined): void {
  if (table === undefined) return;
  const { rules, sheets } = table;
  const encoding = encodingNote(table.encoding);
  if (encoding !== undefined) ctx.err(encoding);
  const note = readingNote(rules);
  if (note !== undefined) ctx.err(note);
  if (sheets !== undefined) ctx.err(sheetsNote(sheets));
}

/** `--sheet all` says which sheets it read and which it did not (docs/reading-rules.md). */
function sheetsNote({ read, notRead }: { read: string[]; notRead: string[] }): string {
  const names = (ns: string[]): string => listAtMost(ns.slice(0, MAX_LISTED).map((n) => `"${n}"`), ns.length);
  return `sheets read: ${names(read)}; not read: ${notRead.length === 0 ? 'none' : names(notRead)}`;
}

/**
 * A file with a header and no data rows: nothing to do, and the user is told so (README, Commands);
 * its report (a header line) is written as every import's is, and a stale errors file removed
 * (`writeEmptyReport`).
 */
export async function headerOnly(ctx: CommandContext, file: string, kind: 'estimates' | 'bills', reportPath: string, errorsPath: string, json?: boolean): Promise<number> {
  await writeEmptyReport(reportPath, errorsPath);
  ctx.err(`${file} has a header row and no data rows: no ${kind} to import; report: ${reportPath}`);
  if (json) ctx.out(importJson({ status: 'done', kind, file: resolve(file), rows: 0, records: 0, report: reportPath, exitCode: 0 }));
  return 0;
}

