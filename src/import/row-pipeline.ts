/**
 * The row rules of an import (mapping/rows/: totals, kinds and status, fill-down, sections) as a plan and the
 * errors file use them: the options from the flags and the mapping file, checked against the
 * file's columns; the columns a grouper reads (a sectioned estimate's category and subcategory
 * added after the file's own when it has none); and a replay of the same rules that fills cells
 * as the import read them.
 */
import { UsageError, type Advice } from '../errors/index.ts';
import {
  BILL_COLUMNS, BILL_NUMBER_COLUMNS, buildRowRules, ColumnMap, colOf, ESTIMATE_COLUMNS, ESTIMATE_NUMBER_COLUMNS, isBuiltInPreset, kindColumnOf, normalizeHeader, sectionColumns, type Col, type MappingFile, type ReadingRules, type RowReport, type RowRule, type RowRuleOptions, type RowRules,
} from '../mapping/index.ts';

type Kind = 'estimates' | 'bills';

/**
 * `--fill-down` / `--layout` (which win) with the mapping's `fillDown` / `layout` / `totalLabels`,
 * checked. A built-in preset's `fillDown` names the columns of every export it reads: only those
 * the file has fill down, and only in a file with its kind column (`presetFillDown`). With fill-down, the kind column the file has (`headers`) is noted, so
 * that a replay stops where the import did.
 */
export function rowRuleOptions(kind: Kind, opts: { fillDown?: readonly string[]; layout?: 'sections'; ignoreTax?: boolean; mapping?: MappingFile }, columns: ColumnMap, headers: readonly string[]): RowRuleOptions {
  const inFile = (c: string): boolean => columns.has(c) && columns.source(c)!.index >= 0;
  const fillDown = opts.fillDown ?? (isBuiltInPreset(opts.mapping) ? presetFillDown(opts.mapping!, inFile, headers) : opts.mapping?.fillDown) ?? [];
  const layout = opts.layout ?? opts.mapping?.layout;
  const known = kind === 'bills' ? BILL_COLUMNS : ESTIMATE_COLUMNS;
  for (const c of fillDown) {
    const option: Advice = { kind: 'option', option: 'fill-down', value: c };
    if (!known.includes(c)) throw new UsageError([option, `: there is no ${kind.slice(0, -1)} column ${JSON.stringify(c)}; name the columns as the tool knows them (${known.join(', ')}), separated by commas`]);
    if (!inFile(c)) throw new UsageError([option, `: the file has no ${c} column to fill down (the header row names ${columns.columns().join(', ')}); map one, or leave ${c} out`]);
  }
  const out: RowRuleOptions = {};
  if (fillDown.length > 0) out.fillDown = [...new Set(fillDown)];
  if (layout !== undefined) out.layout = layout;
  if (opts.mapping?.totalLabels !== undefined) out.totalLabels = opts.mapping.totalLabels;
  if (kind === 'estimates' && (opts.ignoreTax === true || opts.mapping?.ignoreTax === true)) out.ignoreTax = true;
  if (kind === 'bills' && opts.mapping?.summaryRows !== undefined) out.summaryRows = opts.mapping.summaryRows;
  const kindColumn = kind === 'bills' && out.fillDown !== undefined ? kindColumnOf(headers, opts.mapping) : undefined;
  if (kindColumn !== undefined) out.kindColumn = kindColumn;
  return out;
}

/**
 * A preset fills down split lines only: the rows whose kind is empty under a transaction's row
 * (README, import bills). A file without the preset's kind column (`Type`) has no split lines
 * to tell from bills of their own, and fills nothing down: one bill's memo never reaches the next
 * bill's empty memo.
 */
function presetFillDown(preset: MappingFile, inFile: (c: string) => boolean, headers: readonly string[]): string[] {
  if (kindColumnOf(headers, preset) === undefined) return [];
  return (preset.fillDown ?? []).filter(inFile);
}

/** Parses `--fill-down COLS` (comma-separated canonical columns). */
export function parseFillDown(text: string): string[] {
  const cols = text.split(',').map((c) => c.trim()).filter((c) => c !== '');
  if (cols.length === 0) throw new UsageError('--fill-down needs columns, e.g. --fill-down bill_ref,vendor');
  return cols;
}

/** The columns the grouper reads: the file's, and a sectioned estimate's category and subcategory after them when it has none. */
export function grouperColumns(kind: Kind, options: RowRuleOptions, columns: ColumnMap, width: number): ColumnMap {
  const extra = sectionColumns(kind, options, (c) => columns.has(c), width);
  if (extra.length === 0) return columns;
  const sources = [...columns.columns().map((c) => columns.source(c)!), ...extra];
  return new ColumnMap(columns.file, sources, { sourceLineIndex: columns.sourceLineIndex, errorIndex: columns.errorIndex });
}

/** What a plan's rules add: the kinds and status rule (bills: `BillRowRules.kindsRule`), whether bills' sums are kept. */
export interface PlanRowRulesExtra {
  /** Bills: false when the file is known to hold no total row. */
  sumsByBill?: boolean;
  /** The kinds and status rule (bills, a plan). */
  afterTotals?: (report: RowReport) => readonly RowRule[];
  /** A replay: the file's headers, where it finds the kind column (`RowRuleOptions.kindColumn`). */
  headers?: readonly string[];
  /** The file's headers, where the column of `"summaryRows"` is found (bills). */
  summaryHeaders?: readonly string[];
}

/** The rules of a plan (`rules` settled) or of a replay (`rules` undefined: nothing checked or reported). */
export function planRowRules(kind: Kind, file: string, columns: ColumnMap, options: RowRuleOptions, rules: ReadingRules | undefined, extra: PlanRowRulesExtra = {}): RowRules {
  return buildRowRules({
    kind, file, cols: (c) => colOf(columns, c), options, rules, sumsByBill: extra.sumsByBill, afterTotals: extra.afterTotals,
    kindIndex: extra.headers === undefined ? undefined : kindIndexOf(extra.headers, options),
    summaryIndex: summaryIndexOf(extra.summaryHeaders ?? extra.headers, options),
    numberColumns: kind === 'bills' ? BILL_NUMBER_COLUMNS : ESTIMATE_NUMBER_COLUMNS,
    skip: [columns.sourceLineIndex, columns.errorIndex].filter((i) => i >= 0),
    read: new Set(columns.columns().map((c) => columns.source(c)?.index ?? -1).filter((i) => i >= 0)),
  });
}

/** Where the column of the mapping's `"summaryRows"` is among `headers` (compared as headers are), or undefined. */
function summaryIndexOf(headers: readonly string[] | undefined, options: RowRuleOptions): number | undefined {
  const summary = options.summaryRows;
  if (headers === undefined || summary === undefined || summary === 'none') return undefined;
  const name = normalizeHeader(summary.column);
  return headers.findIndex((h) => normalizeHeader(h) === name);
}

/** Where the kind column the import noted (`kindColumn`) is among `headers`, or undefined. */
function kindIndexOf(headers: readonly string[], options: RowRuleOptions): number | undefined {
  if (options.kindColumn === undefined) return undefined;
  const name = normalizeHeader(options.kindColumn);
  const i = headers.findIndex((h) => normalizeHeader(h) === name);
  return i < 0 ? undefined : i;
}

/**
 * The errors file's replay: the rules over the input's columns (by header index), and the
 * columns it writes after the input's own (a sectioned estimate's category and subcategory).
 */
export function errorsFileRowRules(kind: Kind, file: string, headers: readonly string[], columns: ReadonlyArray<string | null>, options: RowRuleOptions, skip: readonly number[]): { rules: RowRules; added: Array<{ header: string; index: number }> } {
  const has = (c: string): boolean => columns.includes(c);
  const extra = sectionColumns(kind, options, has, headers.length);
  const cols = (c: string): Col | undefined => {
    const i = columns.indexOf(c);
    if (i >= 0) return { header: headers[i]!, index: i, constant: null, shows: false };
    const e = extra.find((x) => x.column === c);
    return e === undefined ? undefined : { header: e.header, index: e.index, constant: null, shows: false };
  };
  const rules = buildRowRules({ kind, file, cols, options, rules: undefined, kindIndex: kindIndexOf(headers, options), summaryIndex: summaryIndexOf(headers, options), numberColumns: kind === 'bills' ? BILL_NUMBER_COLUMNS : ESTIMATE_NUMBER_COLUMNS, skip });
  return { rules, added: extra.map((e) => ({ header: e.header, index: e.index })) };
}
