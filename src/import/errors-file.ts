/**
 * The rows to fix (README, Reports, re-runs and `unknown`): beside the report, the input rows that were invalid, failed
 * or `unknown`, with their original columns in their original order, then `source_line` and
 * `error`, as UTF-8 with the original delimiter. The user fixes them in a spreadsheet and imports
 * the file as it is; `source_line` and `error` are recognised on import.
 *
 * Cells that were read are written in a form that reads the same on their own, whatever the
 * rest of the original file settled (dates as `2026-03-02`, numbers as `1234.50`, or `1234,50`
 * where the file writes decimal commas); cells that
 * could not be read are written exactly as typed, so the user sees what to fix.
 */
import { rm } from 'node:fs/promises';
import { stringify } from 'csv-stringify/sync';
import { writeFileAtomically } from '../atomic-file.ts';
import { combineSheets, delimiterOption, linesNamedIn, openTable, type Delimiter, sheetLineName, UnreadableCell, viewTable, type CellFormat, type OpenedTable, type CellValue, type EncodingOption, type TableKind } from '../tables/index.ts';
import type { ReportLine } from './import-store.ts';
import {
  BILL_DATE_COLUMNS, BILL_NUMBER_COLUMNS, ERRORS_FILE_COLUMNS, ESTIMATE_NUMBER_COLUMNS, parseDate, parseDecimalText, parseRateText, parseText, PERCENT_COLUMNS, type ReadingRules,
} from '../mapping/index.ts';
import { formatDateTime, numberToDecimalText } from '../values/index.ts';
import type { ImportPlan } from './plan-types.ts';
import type { RowRuleOptions } from '../mapping/index.ts';
import { errorsFileRowRules } from './row-pipeline.ts';
import { importHeaderRule } from './plan.ts';
import { withCellEdits, type CellEdit } from './cell-edits.ts';

/** What the errors file needs to know of the input: kept with an import so that `jobs report --errors` can write it later. */
export interface ErrorsFileSource {
  kind: 'estimates' | 'bills';
  /** The input file (absolute path). */
  file: string;
  tableKind: TableKind;
  sheet?: string;
  /** The `--encoding` the input was read with. */
  encoding?: EncodingOption;
  /** The input's delimiter (`,` for .xlsx), used again for the errors file. */
  delimiter: string;
  /** The line (sheet row) of the input's header row: a title block above it is no part of the table (docs/reading-rules.md). Absent from sources kept before it was recorded: the first row. */
  headerLine?: number;
  rules: ReadingRules;
  /** The canonical column of each header (null when ignored or unknown), by header index. */
  columns: Array<string | null>;
  /** Index of the input's own `source_line` column (an errors file imported again), else -1. */
  sourceLineIndex: number;
  /** Index of the input's own `error` column, else -1. */
  errorIndex: number;
  /** `--sheet all`: the sheets read, in order: lines are named `Sheet!row` (`sheetLineName`). */
  sheetsRead?: string[];
  /** With `sheetsRead`: the header row of each. */
  sheetHeaderLines?: number[];
  /** Fill-down, layout and total labels the import read the rows with (absent: none). */
  rowRules?: RowRuleOptions;
  /** Cells edited on the import page: the rows to fix hold them as the import read them. */
  cellEdits?: CellEdit[];
}

/** The errors file's source description of a planned import. */
export function errorsFileSource(plan: Pick<ImportPlan, 'kind' | 'table'>, file: string, opts: { sheet?: string; encoding?: EncodingOption; cellEdits?: readonly CellEdit[] }): ErrorsFileSource {
  const t = plan.table!;
  return {
    kind: plan.kind,
    file,
    tableKind: t.kind,
    sheet: t.sheet ?? opts.sheet,
    encoding: opts.encoding,
    delimiter: t.kind === 'xlsx' ? ',' : t.delimiter,
    headerLine: t.headerLine,
    rules: t.rules,
    columns: t.columns,
    sourceLineIndex: t.sourceLineIndex,
    errorIndex: t.errorIndex,
    ...(t.sheets === undefined ? {} : { sheetsRead: t.sheets.read, sheetHeaderLines: t.sheets.headerLines }),
    ...(t.rowRules === undefined ? {} : { rowRules: t.rowRules }),
    ...(opts.cellEdits === undefined || opts.cellEdits.length === 0 ? {} : { cellEdits: [...opts.cellEdits] }),
  };
}

/** `bills.csv.report.csv` → `bills.csv.errors.csv`; another report name gets `.errors.csv` in place of its extension. */
export function errorsFilePath(reportPath: string): string {
  if (reportPath.endsWith('.report.csv')) return `${reportPath.slice(0, -'.report.csv'.length)}.errors.csv`;
  if (reportPath.toLowerCase().endsWith('.csv')) return `${reportPath.slice(0, -4)}.errors.csv`;
  return `${reportPath}.errors.csv`;
}

/** The report's lines that need fixing, with their messages: `invalid`, `failed` and `unknown`. */
export function linesToFix(lines: Iterable<ReportLine>): Map<number, string> {
  const out = new Map<number, string>();
  for (const l of lines) {
    if (l.status === 'invalid' || l.status === 'failed' || l.status === 'unknown') out.set(l.line, l.status === 'invalid' ? l.message : `${l.status}: ${l.message}`);
  }
  return out;
}

/**
 * Writes the errors file to `path` (atomically), or removes a stale one when nothing needs
 * fixing. Returns the number of rows written.
 */
export async function writeErrorsFile(source: ErrorsFileSource, toFix: ReadonlyMap<number, string>, path: string, signal?: AbortSignal): Promise<number> {
  if (toFix.size === 0) {
    await rm(path, { force: true });
    return 0;
  }
  const out = await writeFileAtomically(path);
  let written = 0;
  try {
    for await (const chunk of errorsFileChunks(source, toFix, signal)) {
      await out.write(chunk.text);
      written += chunk.rows;
    }
    await out.commit();
  } catch (err) {
    await out.abort();
    throw err;
  }
  return written;
}

/** The errors file as CSV text in pieces (the header first), reading the input once. */
export async function* errorsFileChunks(source: ErrorsFileSource, toFix: ReadonlyMap<number, string>, signal?: AbortSignal): AsyncGenerator<{ text: string; rows: number }> {
  const table = await sourceTable(source, signal);
  const keep: number[] = [];
  for (let i = 0; i < table.headers.length; i++) if (i !== source.sourceLineIndex && i !== source.errorIndex) keep.push(i);
  // Cells as the import read them: filled down, a section's category (in columns of its own when the file has none).
  const skip = [source.sourceLineIndex, source.errorIndex].filter((i) => i >= 0);
  const replay = source.rowRules === undefined ? undefined : errorsFileRowRules(source.kind, source.file, table.headers, source.columns, source.rowRules, skip);
  const headers = [...keep.map((i) => table.headers[i]!), ...(replay?.added.map((a) => a.header) ?? [])];
  for (const a of replay?.added ?? []) keep.push(a.index);
  const kinds = keep.map((i) => kindOf(source.kind, source.columns[i] ?? null));
  const delimiter = source.delimiter;
  const lineName = source.sheetsRead === undefined ? String : sheetLineName(source.sheetsRead);
  yield { text: stringify([[...headers, ...ERRORS_FILE_COLUMNS]], { delimiter, bom: true }), rows: 0 };
  for await (const batch of table.batches()) {
    const rows: string[][] = [];
    for (const row of batch) {
      replay?.rules.pass(row);
      const error = toFix.get(row.line);
      if (error === undefined) continue;
      const cells = keep.map((i, k) => cellText(row.values[i] ?? null, row.formats?.[i], kinds[k]!, source.rules));
      const sourceLine = source.sourceLineIndex >= 0 ? cellText(row.values[source.sourceLineIndex] ?? null, undefined, 'other', source.rules) || lineName(row.line) : lineName(row.line);
      rows.push([...cells, sourceLine, source.sheetsRead === undefined ? error : linesNamedIn(error, lineName)]);
    }
    if (rows.length > 0) yield { text: stringify(rows, { delimiter }), rows: rows.length };
  }
}

type CellKind = 'date' | 'number' | 'percent' | 'rate' | 'other';

/**
 * The input as the import read it: the same sheet(s), merged cells filled (a lump sum over rows
 * written as typed). Hidden rows are read (those left out are not rows to fix).
 */
async function sourceTable(source: ErrorsFileSource, signal?: AbortSignal): Promise<OpenedTable> {
  // The header row is known (`headerRow`); the import's header rule is passed so that the file is
  // read as the import read it, its footer ("Cash Basis …") left out rather than a broken row.
  const header = importHeaderRule(source.file, source.kind, undefined);
  const open = (sheet: string | undefined, headerRow: number | undefined): Promise<OpenedTable> =>
    openTable(source.file, { sheet, ...(source.tableKind === 'csv' ? { encoding: source.encoding, delimiter: delimiterOption(source.delimiter as Delimiter) } : {}), header, headerRow, signal });
  let table: OpenedTable;
  if (source.sheetsRead === undefined) table = await open(source.sheet, source.headerLine);
  else {
    const parts: OpenedTable[] = [];
    for (let k = 0; k < source.sheetsRead.length; k++) parts.push(await open(source.sheetsRead[k], source.sheetHeaderLines?.[k]));
    table = combineSheets(source.file, parts, []);
  }
  const numeric = new Map<number, string>();
  source.columns.forEach((c, i) => {
    const kind = kindOf(source.kind, c);
    if (c !== null && (kind === 'number' || kind === 'rate')) numeric.set(i, c);
  });
  return withCellEdits(await viewTable(table, { hidden: 'include', used: [], numeric }), source.cellEdits);
}

function kindOf(kind: 'estimates' | 'bills', column: string | null): CellKind {
  if (column === null) return 'other';
  if (kind === 'bills' && BILL_DATE_COLUMNS.includes(column)) return 'date';
  if (kind === 'bills' && column === 'rate') return 'rate';
  if ((kind === 'bills' ? BILL_NUMBER_COLUMNS : ESTIMATE_NUMBER_COLUMNS).includes(column)) return PERCENT_COLUMNS.has(column) ? 'percent' : 'number';
  return 'other';
}

/**
 * One cell as text that reads the same on its own (an .xlsx number as its `format` shows it: a
 * percent as its percentage, a `0000` code with its zeros); a cell that cannot be read, exactly
 * as typed.
 */
function cellText(cell: CellValue, format: CellFormat | undefined, kind: CellKind, rules: ReadingRules): string {
  if (cell === null) return '';
  if (cell instanceof UnreadableCell) return cell.typed;
  try {
    if (kind === 'date') {
      const iso = parseDate(cell, rules);
      if (iso !== undefined) return iso.endsWith('T00:00:00') ? iso.slice(0, 10) : iso;
    } else if (kind === 'other') {
      if (typeof cell === 'number') return parseText(cell, format) ?? '';
    } else {
      // Read as the import reads it: a rate with a third decimal failed, so it stays as typed.
      const text = kind === 'rate' ? parseRateText(cell, rules, format) : parseDecimalText(cell, rules, format, kind === 'percent');
      // In the file's own decimal mark: the user types the fixes in it, and a file that proved
      // both marks would stop (`1234,50` proves the comma as `1.234,50` did).
      if (text !== undefined) return rules.decimalSeparator === ',' ? text.replace('.', ',') : text;
    }
  } catch {
    // Not read: written as typed below.
  }
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'boolean') return cell ? 'true' : 'false';
  if (cell instanceof Date) {
    const iso = formatDateTime(cell);
    return iso.endsWith('T00:00:00') ? iso.slice(0, 10) : iso;
  }
  return numberToDecimalText(cell);
}
