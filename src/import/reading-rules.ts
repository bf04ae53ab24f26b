/**
 * How a file writes numbers and dates, settled once per file before any row is mapped
 * (CONTRACT.md §3). Nothing here guesses: where the file and the options leave the reading open,
 * planning stops (a `FileError`, exit 2) and asks for the option that settles it.
 */
import type { EncodingOption, OpenedTable, SourceRow } from '../tables/index.ts';
import { FileError, UsageError } from '../errors/index.ts';
import type { ColumnMap, MappingFile, ReadingRules } from '../mapping/index.ts';
import { dayMonthEvidence, type DateOrder } from '../values/index.ts';

/** The reading options of an import: flags, or the mapping file's keys of the same meaning. */
export interface ReadingOptions {
  /** `--encoding`; default `auto`. */
  encoding?: EncodingOption;
  /** `--date-format`; default `auto`. */
  dateFormat?: 'auto' | DateOrder;
  /** `--decimal-separator`; default `auto`. */
  decimalSeparator?: 'auto' | '.' | ',';
}

/**
 * The flags and the mapping file together: either may say it; when both do and disagree, that
 * is a usage error (which one did the user mean?).
 */
export function combineReadingOptions(flags: ReadingOptions, mapping: MappingFile | undefined): ReadingOptions {
  const pick = <K extends keyof ReadingOptions>(key: K, flag: string, name: string): ReadingOptions[K] => {
    const a = flags[key];
    const b = mapping?.[key] as ReadingOptions[K] | undefined;
    if (a !== undefined && b !== undefined && a !== b) {
      throw new UsageError(`${flag} ${String(a)} disagrees with "${name}": "${String(b)}" in the mapping file; give one of them.`);
    }
    return a ?? b;
  };
  return {
    encoding: pick('encoding', '--encoding', 'encoding'),
    dateFormat: pick('dateFormat', '--date-format', 'dateFormat'),
    decimalSeparator: pick('decimalSeparator', '--decimal-separator', 'decimalSeparator'),
  };
}

/** The decimal separator: as given, or `,` in a `;`-delimited file and `.` otherwise. */
export function settleDecimalSeparator(table: OpenedTable, option: ReadingOptions['decimalSeparator']): '.' | ',' {
  if (option === '.' || option === ',') return option;
  return table.kind === 'csv' && table.delimiter === ';' ? ',' : '.';
}

/**
 * The day/month order. `auto` weighs every day/month date of the date columns (`dateColumns`,
 * canonical names), reading the file once more when there are any: a first part over 12
 * proves day first, a second part over 12 proves month first. Both proofs: stop. One: that
 * order. None: month first, unless the file uses `;` or a decimal comma, which stops when any
 * date is ambiguous. Each stop names a line of each kind and the option to pass.
 */
export async function settleDateOrder(
  table: OpenedTable,
  columns: ColumnMap,
  dateColumns: readonly string[],
  option: ReadingOptions['dateFormat'],
  decimalSeparator: '.' | ',',
  signal?: AbortSignal,
  visit?: RowVisitor,
): Promise<DateOrder> {
  const weighing = option === undefined || option === 'auto';
  if (!weighing && visit === undefined) return option;
  const sources = weighing ? dateColumns.map((c) => columns.source(c)).filter((s) => s !== undefined) : [];
  if (sources.length === 0 && visit === undefined) return 'MDY';
  const proofs: { 'day-first'?: Where; 'month-first'?: Where; ambiguous?: Where } = {};
  const weigh = (cell: unknown, line: number, header: string): void => {
    const kind = dayMonthEvidence(cell);
    if (kind !== undefined && proofs[kind] === undefined) proofs[kind] = { line, header, value: String(cell).trim() };
  };
  for (const s of sources) if (s.index === -1) weigh(s.constant, table.headerLine, `${s.column} (a constant of the mapping file)`);
  const read = sources.filter((s) => s.index !== -1);
  if (read.length > 0 || visit !== undefined) {
    for await (const batch of table.batches()) {
      if (signal?.aborted) break;
      visit?.(batch);
      if (read.length > 0) for (const row of batch) for (const s of read) weigh(row.values[s.index] ?? null, row.line, s.header);
      if (proofs['day-first'] && proofs['month-first']) break;
    }
  }
  if (!weighing) return option;
  if (sources.length === 0) return 'MDY';
  const dayFirst = proofs['day-first'];
  const monthFirst = proofs['month-first'];
  if (dayFirst && monthFirst) {
    throw new FileError(table.file,
      `${table.file}: its dates are written in both orders: line ${dayFirst.line} column ${dayFirst.header} has ${JSON.stringify(dayFirst.value)} (day first), line ${monthFirst.line} column ${monthFirst.header} has ${JSON.stringify(monthFirst.value)} (month first). ` +
        'Correct the dates that are wrong, or pass --date-format DMY or MDY to say how the file is written (the dates that do not fit are then reported).');
  }
  if (dayFirst) return 'DMY';
  if (monthFirst) return 'MDY';
  const ambiguous = proofs.ambiguous;
  const european = (table.kind === 'csv' && table.delimiter === ';') || decimalSeparator === ',';
  if (ambiguous && european) {
    throw new FileError(table.file,
      `${table.file}:${ambiguous.line} column ${ambiguous.header}: ${JSON.stringify(ambiguous.value)} can be read day first or month first, and nothing in the file settles it ` +
        `(no date has a part over 12, and the file ${table.delimiter === ';' ? 'is separated by ";"' : 'writes decimal commas'}, as European exports do). ` +
        'Pass --date-format DMY (day/month/year) or --date-format MDY (month/day/year), or write the dates as 2026-03-02.');
  }
  return 'MDY';
}

/**
 * Sees every row of the first pass (a planner that needs the whole file in view before mapping,
 * e.g. where each bill's last row is), so that the file is read twice, not three times.
 */
export type RowVisitor = (rows: readonly SourceRow[]) => void;

interface Where {
  line: number;
  header: string;
  value: string;
}

/**
 * The rules of a file whose columns are resolved: the decimal separator, the day/month order, and
 * a workbook's date system, which the reader found in the workbook (`OpenedTable.date1904`).
 */
export async function settleReadingRules(
  table: OpenedTable,
  columns: ColumnMap,
  dateColumns: readonly string[],
  options: ReadingOptions,
  signal?: AbortSignal,
  visit?: RowVisitor,
): Promise<ReadingRules> {
  const decimalSeparator = settleDecimalSeparator(table, options.decimalSeparator);
  const dateOrder = await settleDateOrder(table, columns, dateColumns, options.dateFormat, decimalSeparator, signal, visit);
  return table.date1904 === true ? { decimalSeparator, dateOrder, date1904: true } : { decimalSeparator, dateOrder };
}
