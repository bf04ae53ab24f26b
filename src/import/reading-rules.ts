/**
 * How a file writes numbers and dates, settled once per file before any row is mapped
 * (docs/reading-rules.md). Nothing here guesses: where the file and the options leave the reading open,
 * planning stops (a `FileError`, exit 2) and asks for the option that settles it.
 */
import { encodingName, type CellFormat, type CellValue, type DelimiterOption, type EncodingOption, type OpenedTable, type SourceRow } from '../tables/index.ts';
import { concatWorded, FileError, UsageError, type OptionName, type Worded } from '../errors/index.ts';
import type { ColumnMap, ColumnSource, MappingFile, ReadingRules } from '../mapping/index.ts';
import { dayMonthEvidence, decimalEvidence, endsInThreeDecimals, type DateOrder, type DecimalSeparator } from '../values/index.ts';

/** The reading options of an import: flags, or the mapping file's keys of the same meaning. */
export interface ReadingOptions {
  /** `--encoding`; default `auto`. */
  encoding?: EncodingOption;
  /** `--delimiter`; default `auto`. */
  delimiter?: DelimiterOption;
  /** `--date-format`; default `auto`. */
  dateFormat?: 'auto' | DateOrder;
  /** `--decimal-separator`; default `auto`. */
  decimalSeparator?: 'auto' | '.' | ',';
  /**
   * The account's `BUILDSYNC_DATE_FORMAT`: the order of a file whose dates prove none. Unset:
   * such a file stops and asks.
   */
  accountDateFormat?: DateOrder;
  /** The variable that holds it (`BUILDSYNC_<NAME>_DATE_FORMAT` for an account of its own), for messages. */
  dateFormatVariable?: string;
  /** The account's `BUILDSYNC_CURRENCY` (ISO 4217): an amount written in another currency is a row error. @defaultValue USD */
  accountCurrency?: string;
  /** The variable that holds it, for messages. */
  currencyVariable?: string;
}

/**
 * The flags and the mapping file together: either may say it; when both do and disagree, that
 * is a usage error (which one did the user mean?). The account's date format comes with the flags.
 */
export function combineReadingOptions(flags: ReadingOptions, mapping: MappingFile | undefined): ReadingOptions {
  const pick = <K extends 'encoding' | 'delimiter' | 'dateFormat' | 'decimalSeparator'>(key: K, option: OptionName): ReadingOptions[K] => {
    const a = flags[key];
    const b = mapping?.[key] as ReadingOptions[K] | undefined;
    if (a !== undefined && b !== undefined && a !== b) {
      throw new UsageError([{ kind: 'option', option, value: String(a) }, ` disagrees with "${key}": "${String(b)}" in `, { kind: 'mapping-file' }, '; give one of them.']);
    }
    return a ?? b;
  };
  return {
    encoding: pick('encoding', 'encoding'),
    delimiter: pick('delimiter', 'delimiter'),
    dateFormat: pick('dateFormat', 'date-format'),
    decimalSeparator: pick('decimalSeparator', 'decimal-separator'),
    accountDateFormat: flags.accountDateFormat,
    dateFormatVariable: flags.dateFormatVariable,
    accountCurrency: flags.accountCurrency,
    currencyVariable: flags.currencyVariable,
  };
}

/** The canonical columns whose cells are weighed: numbers for the decimal separator, dates for the day/month order. */
export interface WeighedFields {
  numbers: readonly string[];
  dates: readonly string[];
}

/**
 * Sees every row of the first pass (a planner that needs the whole file in view before mapping,
 * e.g. where each bill's last row is), so that the file is read twice, not three times.
 */
export type RowVisitor = (rows: readonly SourceRow[]) => void;

interface Where {
  line: number;
  /** The header, or a constant of the mapping (`constantOf`). */
  header: Worded;
  /** The cell as a message quotes it: `"03/04/2026"`, or `a date cell formatted "dd/mm/yyyy"`. */
  value: string;
}

/** What an .xlsx date cell's format proves: the order it writes the day and the month in (a year-first format proves neither). */
const FORMAT_PROOF = { DMY: 'day-first', MDY: 'month-first' } as const;

/** The first cell of each kind the weighing met. */
type Proofs<K extends string> = Partial<Record<K, Where>>;

/**
 * The rules of a file whose columns are resolved: the decimal separator, the day/month order, and
 * a workbook's date system, which the reader found in the workbook (`OpenedTable.date1904`).
 *
 * `auto` weighs the cells of the fields mapped to numbers (for the separator) and to dates (for
 * the order), and only those (a cost code `02.10` proves nothing), in one pass over the file,
 * the one `visit` sees too; there is no pass when nothing is weighed and nothing visits. An .xlsx
 * date cell weighs by its number format (`SourceRow.formats`): `dd/mm/yyyy` proves day first as
 * `25/03/2026` does; Excel's built-in short date, shown in each reader's own order, proves nothing.
 */
export async function settleReadingRules(
  table: OpenedTable,
  columns: ColumnMap,
  fields: WeighedFields,
  options: ReadingOptions,
  signal?: AbortSignal,
  visit?: RowVisitor,
  numbersLater?: (weigher: SeparatorWeigher) => void,
): Promise<ReadingRules> {
  const separatorOption = options.decimalSeparator;
  const orderOption = options.dateFormat;
  const weighNumbers = separatorOption === undefined || separatorOption === 'auto';
  const weighDates = orderOption === undefined || orderOption === 'auto';
  const dateSources = weighDates ? sourcesOf(columns, fields.dates) : [];
  const weigher = weighNumbers ? new SeparatorWeigher(table, columns, fields) : undefined;
  const orders: Proofs<'day-first' | 'month-first' | 'ambiguous'> = {};
  const weighDate = (cell: CellValue | undefined, line: number, header: Worded, format: CellFormat | undefined): void => {
    if (format !== undefined) {
      // A date cell shows its date in its format's order: `dd/mm/yyyy` proves day first as `25/03/2026` does.
      const kind = format.kind === 'date' && format.order !== undefined && format.order !== 'YMD' ? FORMAT_PROOF[format.order] : undefined;
      if (kind !== undefined && orders[kind] === undefined) orders[kind] = { line, header, value: `a date cell formatted "${format.code}"` };
      return;
    }
    const kind = dayMonthEvidence(cell);
    if (kind !== undefined && orders[kind] === undefined) orders[kind] = { line, header, value: JSON.stringify(String(cell).trim()) };
  };
  for (const s of dateSources) if (s.index === -1) weighDate(s.constant, table.headerLine, constantOf(s), undefined);
  const datesRead = dateSources.filter((s) => s.index !== -1);
  // With nothing else to weigh before mapping, the caller may weigh the numbers during its own
  // pass (`numbersLater`): the file is then read once, not twice, and planned again in the rare
  // file that proves the separator the rules did not assume.
  const later = weigher !== undefined && numbersLater !== undefined && datesRead.length === 0 && visit === undefined;
  const numbersHere = weigher !== undefined && !later && weigher.reads;
  if (numbersHere || datesRead.length > 0 || visit !== undefined) {
    for await (const batch of table.batches()) {
      if (signal?.aborted) break;
      visit?.(batch);
      if (numbersHere) weigher.weigh(batch);
      for (let r = 0; r < batch.length; r++) {
        const { values, line, formats } = batch[r]!;
        for (let i = 0; i < datesRead.length; i++) weighDate(values[datesRead[i]!.index], line, datesRead[i]!.header, formats?.[datesRead[i]!.index]);
      }
      // Both proofs of either kind stop the import: the rest of the file cannot change that.
      if (weigher?.bothProved === true || (orders['day-first'] && orders['month-first'])) break;
    }
  }
  let decimalSeparator: DecimalSeparator;
  if (weigher === undefined) decimalSeparator = separatorOption as DecimalSeparator;
  else if (later) {
    numbersLater(weigher);
    decimalSeparator = weigher.assumed;
  } else decimalSeparator = weigher.settle();
  // Named by an option, or proved by the file (so far, on the planner's pass): three decimals are then read with it.
  const decimalSettled = weigher === undefined || weigher.proved;
  const rules: ReadingRules = weighDates
    ? { decimalSeparator, ...settleOrder(table, dateSources.length > 0, orders, options) }
    : { decimalSeparator, dateOrder: orderOption };
  if (decimalSettled) rules.decimalSettled = true;
  if (table.date1904 === true) rules.date1904 = true;
  if (options.accountCurrency !== undefined) {
    rules.currency = options.accountCurrency.toUpperCase();
    if (options.currencyVariable !== undefined) rules.currencyVariable = options.currencyVariable;
  }
  return rules;
}

/** The sources of `fields`, left to right as the file has them: the first cell of a kind is the one a message names. */
function sourcesOf(columns: ColumnMap, fields: readonly string[]): ColumnSource[] {
  return fields.map((c) => columns.source(c)).filter((s) => s !== undefined).sort((a, b) => a.index - b.index);
}

const constantOf = (s: ColumnSource): Worded => [`${s.column} (a constant of `, { kind: 'mapping-file' }, ')'];

/**
 * Weighs the cells of the fields mapped to numbers for the decimal separator, in whichever pass
 * reads the rows: `settleReadingRules`' own, or the planner's (`numbersLater`).
 */
export class SeparatorWeigher {
  private readonly marks: Proofs<DecimalSeparator> = {};
  private readonly read: ColumnSource[];

  constructor(
    private readonly table: OpenedTable,
    columns: ColumnMap,
    fields: WeighedFields,
  ) {
    const sources = sourcesOf(columns, fields.numbers);
    for (const s of sources) if (s.index === -1) this.weighCell(s.constant, table.headerLine, constantOf(s));
    this.read = sources.filter((s) => s.index !== -1);
  }

  /** Whether any number column is read from the rows (else the constants settled it). */
  get reads(): boolean {
    return this.read.length > 0;
  }

  get bothProved(): boolean {
    return this.marks['.'] !== undefined && this.marks[','] !== undefined;
  }

  /** A mark is proved (by the cells weighed so far, or the mapping's constants). */
  get proved(): boolean {
    return this.marks['.'] !== undefined || this.marks[','] !== undefined;
  }

  /**
   * A cell weighed ends in one mark and three digits (`4.850`, `2,500`): read before the proof,
   * it was a row error that the proof settles, so the planner plans again with the separator.
   */
  threeDecimals = false;

  /** The separator of a file that proves nothing (or what the mapping's constants prove). */
  get assumed(): DecimalSeparator {
    return this.marks['.'] !== undefined ? '.' : this.marks[','] !== undefined ? ',' : noProofSeparator(this.table);
  }

  weigh(batch: readonly SourceRow[]): void {
    if (this.bothProved) return;
    const read = this.read;
    for (let r = 0; r < batch.length; r++) {
      const { values, line } = batch[r]!;
      for (let i = 0; i < read.length; i++) this.weighCell(values[read[i]!.index], line, read[i]!.header);
    }
  }

  /** The separator the whole file proves; both marks proved stop the import (`settleSeparator`). */
  settle(): DecimalSeparator {
    return settleSeparator(this.table, this.marks);
  }

  private weighCell(cell: CellValue | undefined, line: number, header: Worded): void {
    if (typeof cell !== 'string') return;
    if (!this.threeDecimals && endsInThreeDecimals(cell)) this.threeDecimals = true;
    const marks = this.marks;
    // Once one mark is proved, only a cell holding the other can add a proof.
    if ((marks['.'] !== undefined && cell.indexOf(',') < 0) || (marks[','] !== undefined && cell.indexOf('.') < 0)) return;
    const mark = decimalEvidence(cell);
    if (mark !== undefined && marks[mark] === undefined) marks[mark] = { line, header, value: JSON.stringify(cell.trim()) };
  }
}

/** No proof: `,` in a `;`-delimited file, `.` otherwise. */
function noProofSeparator(table: OpenedTable): DecimalSeparator {
  return table.kind === 'csv' && table.delimiter === ';' ? ',' : '.';
}

/**
 * The decimal separator the file proves: both marks proved stop the import, naming a line of
 * each; one is the separator of the whole file; none: `,` in a `;`-delimited file, `.` otherwise.
 */
function settleSeparator(table: OpenedTable, marks: Proofs<DecimalSeparator>): DecimalSeparator {
  const point = marks['.'];
  const comma = marks[','];
  if (point && comma) {
    const [first, second] = point.line <= comma.line ? [[point, '.'], [comma, ',']] as const : [[comma, ','], [point, '.']] as const;
    const said = ([w, mark]: readonly [Where, DecimalSeparator]) => concatWorded(`line ${w.line} column `, w.header, ` has ${w.value} ("${mark}" as the decimal mark)`);
    throw new FileError(table.file, concatWorded(`${table.file}: its numbers are written with both decimal marks: `, said(first), ', ', said(second), '. ', [{ kind: 'decimal-marks-mixed' }]));
  }
  if (point) return '.';
  if (comma) return ',';
  return noProofSeparator(table);
}

/**
 * The day/month order the dates prove: a first part over 12 proves day first, a second part
 * over 12 month first. Both proofs: stop. One: that order. None while a date has both parts 12
 * or under: the account's date format, said in the summary (`dateOrderFrom`), or else stop and
 * ask. Each stop names a line of each kind and the option to pass.
 */
function settleOrder(
  table: OpenedTable,
  hasDates: boolean,
  orders: Proofs<'day-first' | 'month-first' | 'ambiguous'>,
  options: ReadingOptions,
): Pick<ReadingRules, 'dateOrder' | 'dateOrderFrom'> {
  const dayFirst = orders['day-first'];
  const monthFirst = orders['month-first'];
  if (dayFirst && monthFirst) {
    throw new FileError(table.file, concatWorded(
      `${table.file}: its dates are written in both orders: line ${dayFirst.line} column `, dayFirst.header, ` has ${dayFirst.value} (day first), line ${monthFirst.line} column `, monthFirst.header, ` has ${monthFirst.value} (month first). `,
      [{ kind: 'date-orders-mixed' }],
    ));
  }
  if (dayFirst) return { dateOrder: 'DMY' };
  if (monthFirst) return { dateOrder: 'MDY' };
  const ambiguous = orders.ambiguous;
  if (!hasDates || ambiguous === undefined) return { dateOrder: 'MDY' };
  const variable = options.dateFormatVariable ?? 'BUILDSYNC_DATE_FORMAT';
  if (options.accountDateFormat !== undefined) return { dateOrder: options.accountDateFormat, dateOrderFrom: variable };
  throw new FileError(table.file, concatWorded(
    `${table.file}:${ambiguous.line} column `, ambiguous.header, `: ${ambiguous.value} can be read day first or month first, and nothing in the file settles it (no date has a part over 12). `,
    [{ kind: 'date-order', variable }],
  ));
}

/** The summary's line for a file whose dates nothing in it proved (docs/reading-rules.md), or undefined. */
export function readingNote(rules: ReadingRules): string | undefined {
  if (rules.dateOrderFrom === undefined) return undefined;
  const first = { MDY: 'month', DMY: 'day', YMD: 'year' }[rules.dateOrder];
  return `dates read ${first} first, as ${rules.dateOrderFrom} says`;
}

/** The summary's line naming the encoding of a file that is not UTF-8 ("read as Mac Roman"; docs/reading-rules.md), or undefined. */
export function encodingNote(encoding: string | undefined): string | undefined {
  if (encoding === undefined || encoding === 'utf-8' || encoding === 'utf-8-bom') return undefined;
  return `read as ${encodingName(encoding)}`;
}
