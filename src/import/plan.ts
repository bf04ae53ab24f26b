/**
 * Planning an import: read FILE, validate and map every row, group rows into records
 * (the README). Needs neither Redis nor the service: a resolver over the project listing
 * is passed in when project numbers or names must be resolved. The plan is what a dry run
 * reports and what an import then sends.
 *
 * One pass over the file in batches; columns are resolved once; each record's payload is
 * validated once (against the API's schema, or a hand check that only passes what the schema
 * passes) and hashed once. Planned estimates keep their payload as its JSON text
 * (`MappedRecord.payloadJson`), outside the JavaScript heap.
 *
 * `planBills` / `planEstimates` return the whole plan (a dry run, the import page);
 * `streamBills` / `streamEstimates` hand it to a `PlanSink` in batches (an import: the sink is the
 * queue's `ImportSubmission`, which makes nothing runnable before the whole file is read).
 */
import type { BillPayload, EstimatePayload } from '../payloads/index.ts';
import { openTable, type CellValue, type HeaderRule, type HiddenOption, type OpenedTable, type OpenTableOptions, type SourceRow } from '../tables/index.ts';
import { FileError, UsageError } from '../errors/index.ts';
import type { ReportLine } from './import-store.ts';
import {
  BILL_COLUMNS, BILL_DATE_COLUMNS, BILL_NUMBER_COLUMNS, BillGrouper, currencyColumns, currencyScan, type CurrencyScan, EstimateRowChecks, billRefReader, billRowRules, type BillRowOptions, ESTIMATE_COLUMNS, ESTIMATE_NUMBER_COLUMNS, EstimateGrouper, estimateProjectKeyReader, headerRule, ignoredLines, isBuiltInPreset, missingBillColumns, missingColumnsError, missingEstimateColumns, resolveColumns, StaticTally, SummaryRows, type ColumnMap, type MappedRecord, type MappingFile, type ProjectResolver, type ReadingRules, type StaticLine, vendorLookup, type AccountVendorList, type VendorNameSink,
} from '../mapping/index.ts';
import type { ImportPlan, PlanFacts, PlanSink } from './plan-types.ts';
import type { CellEdit } from './cell-edits.ts';
import { HeapTrim } from '../heap-trim.ts';
import { combineReadingOptions, settleReadingRules, type ReadingOptions, type RowVisitor, type SeparatorWeigher, type WeighedFields } from './reading-rules.ts';
import { columnLetter, type DecimalSeparator } from '../values/index.ts';
import { recordsAcrossSheets, viewForImport } from './table-view.ts';
import { keyText, withLineNote } from '../mapping/record-key.ts';
import { grouperColumns, planRowRules, rowRuleOptions } from './row-pipeline.ts';
import type { RowRuleOptions, RowRules } from '../mapping/index.ts';

/** The fields weighed for the decimal separator and the day/month order (estimates hold no dates). */
const ESTIMATE_FIELDS: WeighedFields = { numbers: ESTIMATE_NUMBER_COLUMNS, dates: [] };
const BILL_FIELDS: WeighedFields = { numbers: BILL_NUMBER_COLUMNS, dates: BILL_DATE_COLUMNS };

export { projectResolverFromListing, type ProjectResolver } from '../mapping/index.ts';

/** `BillRowOptions` (bills only): `--credits negative`, `--discounts apply`, `--ignore-tax`, and the account's currency. */
export interface PlanOptions extends ReadingOptions, BillRowOptions {
  /** `--mapping MAP.json`, already loaded (`loadMappingFile`), or a built-in preset (`presetMapping`). */
  mapping?: MappingFile;
  /** `--sheet NAME|all` (.xlsx only); default the one visible sheet with a header row (docs/reading-rules.md). */
  sheet?: string;
  /** `--hidden include|skip`: how hidden rows and used hidden columns are read; default they stop the import. Wins over the mapping file's `hidden`. */
  hidden?: HiddenOption;
  /** `--header-row N`: the line (sheet row) of the header row; default the first row that has every required column (docs/reading-rules.md). Wins over the mapping file's `headerRow`. */
  headerRow?: number;
  /** `--fill-down COLS`: canonical columns whose empty cells take the value of the row above (docs/reading-rules.md). Wins over the mapping file's `fillDown`. */
  fillDown?: string[];
  /** `--layout sections` (estimates): heading rows give the category of the rows under them. Wins over the mapping file's `layout`. */
  layout?: 'sections';
  /** `--resend-unknown`: bills an errors file reports `unknown` are planned to be sent again. */
  resendUnknown?: boolean;
  /** `--vendors VENDORS.csv` (bills only). */
  vendorsFile?: string;
  /** The account's vendor list (bills only; `--vendors` wins for the names it holds): read by the import service from Redis. */
  accountVendors?: AccountVendorList;
  /** Bills: told every vendor name a row gives, with its line (the import page's vendor table). */
  vendorNames?: VendorNameSink;
  /** Resolves project numbers and names, and checks IDs, against the account's listing. Without it, project_id is taken as written. */
  resolver?: ProjectResolver;
  /** Cells edited on the import page, read as typed at their own lines (cell-edits.ts). */
  cellEdits?: readonly CellEdit[];
  signal?: AbortSignal;
}

/** The options an estimate import refuses: a built-in bill mapping, vendor names. */
function notForEstimates(opts: PlanOptions): void {
  if (isBuiltInPreset(opts.mapping)) throw new UsageError(['the built-in mappings (quickbooks, xero) read bill exports; they do not apply to estimates. ', { kind: 'own-mapping' }]);
  if (opts.vendorsFile !== undefined) throw new UsageError([{ kind: 'option', option: 'vendors' }, ' applies to bill imports only; remove it.']);
}

/** What an estimate row may not hold: its currency columns (found by their headers or, reading the file once more, by their values) and flat markups. */
async function estimateRowChecks(table: OpenedTable, columns: ColumnMap, opts: PlanOptions, scan: CurrencyScan): Promise<EstimateRowChecks> {
  const currencies = await currencyColumns(table, columns, opts.mapping, 'estimates', { currency: opts.accountCurrency, currencyVariable: opts.currencyVariable }, scan);
  return new EstimateRowChecks(columns, currencies.empty ? undefined : currencies);
}

/**
 * The first pass's visitor with the search for currency columns by their values (`currencyScan`)
 * when some column may be one: the file is read for it in the pass that settles the reading rules.
 */
function scanning(visit: RowVisitor | undefined, scan: CurrencyScan): RowVisitor | undefined {
  if (!scan.active) return visit;
  return visit === undefined ? scan.visit : (rows) => {
    visit(rows);
    scan.visit(rows);
  };
}

/** Reads an estimate file (.csv or .xlsx) into one planned estimate per (project, estimate_name) group. */
export async function planEstimates(file: string, opts: PlanOptions = {}): Promise<ImportPlan<EstimatePayload>> {
  notForEstimates(opts);
  return planOnce(combineReadingOptions(opts, opts.mapping), async (reading) => {
    const opened = await openTable(file, tableOptions(file, 'estimates', opts, reading));
    const columns = resolveColumns(opened.headers, ESTIMATE_COLUMNS, opts.mapping, file, opened.headerLine, { aliases: opened.headerAliases, cellName: opened.cellName });
    const table = await viewForImport(opened, columns, ESTIMATE_NUMBER_COLUMNS, opts);
    let later: SeparatorWeigher | undefined;
    const rowOptions = rowRuleOptions('estimates', opts, columns, table.headers);
    const scan = currencyScan(table.headers, columns, opts.mapping, opts.accountCurrency);
    const rules = await settleReadingRules(table, columns, ESTIMATE_FIELDS, reading, opts.signal, scanning(undefined, scan), (w) => (later = w));
    const read = grouperColumns('estimates', rowOptions, columns, table.headers.length);
    const grouper = new EstimateGrouper(file, read, opts.resolver, rules, await estimateRowChecks(table, columns, opts, scan));
    requireColumns(table, grouper.missingColumns());
    const rowRules = planRowRules('estimates', file, read, rowOptions, rules);
    rowRules.report.stopper = grouper;
    const rows = await feed(table, columns, grouper, rowRules, undefined, later);
    const { records, statics } = oneSheetEach(table, withRuleLines(grouper.finish(), rowRules));
    const plan: ImportPlan<EstimatePayload> = { kind: 'estimates', file, rows, records, statics: withIgnored(table, statics), table: tableFacts(table, columns, rules, rowOptions) };
    return { plan, proved: provedOtherwise(later, rules) };
  });
}

/** Reads a bill file into one planned bill per (bill_ref, project, vendor), or per row without bill_ref. */
export async function planBills(file: string, opts: PlanOptions = {}): Promise<ImportPlan<BillPayload>> {
  return planOnce(combineReadingOptions(opts, opts.mapping), async (reading) => {
    const opened = await openTable(file, tableOptions(file, 'bills', opts, reading));
    const columns = resolveColumns(opened.headers, BILL_COLUMNS, opts.mapping, file, opened.headerLine, { aliases: opened.headerAliases, cellName: opened.cellName });
    const table = await viewForImport(opened, columns, BILL_NUMBER_COLUMNS, opts);
    const vendors = await vendorLookup(opts.vendorsFile, opts.accountVendors, opts.signal);
    let later: SeparatorWeigher | undefined;
    const rowOptions = rowRuleOptions('bills', opts, columns, table.headers);
    const scan = currencyScan(table.headers, columns, opts.mapping, opts.accountCurrency);
    const rules = await settleReadingRules(table, columns, BILL_FIELDS, reading, opts.signal, scanning(undefined, scan), (w) => (later = w));
    const billRules = await billRowRules(table, columns, opts.mapping, rules, opts, scan);
    const read = grouperColumns('bills', rowOptions, columns, table.headers.length);
    const grouper = new BillGrouper(file, read, opts.resolver, vendors, rules, opts.resendUnknown, billRules);
    requireColumns(table, grouper.missingColumns());
    grouper.vendorNames = opts.vendorNames;
    grouper.summaries = summaryRows(file, rowOptions);
    const rowRules = planRowRules('bills', file, read, rowOptions, rules, { afterTotals: (report) => billRules.kindsRule(report), summaryHeaders: table.headers });
    rowRules.report.stopper = grouper;
    const rows = await feed(table, columns, grouper, rowRules, undefined, later);
    const { records, statics } = oneSheetEach(table, withRuleLines(grouper.finish(), rowRules));
    const plan: ImportPlan<BillPayload> = { kind: 'bills', file, rows, records, statics: withIgnored(table, statics), table: tableFacts(table, columns, rules, rowOptions) };
    return { plan, proved: provedOtherwise(later, rules) };
  });
}

/** The summary-row rules of a bill file: what the mapping's `"summaryRows"` says, else look for them (mapping/bill-summary.ts). */
function summaryRows(file: string, options: RowRuleOptions): SummaryRows {
  const said = options.summaryRows;
  return new SummaryRows(file, said === undefined ? 'detect' : said === 'none' ? 'none' : 'column');
}

/**
 * Plans with `reading`; when the numbers, weighed during that one pass, prove the separator the
 * rules did not assume (`settleReadingRules`' `numbersLater`), plans again with the proved one.
 * Most files prove nothing or what was assumed, and are read once.
 */
async function planOnce<P>(reading: ReadingOptions, plan: (reading: ReadingOptions) => Promise<{ plan: ImportPlan<P>; proved?: DecimalSeparator }>): Promise<ImportPlan<P>> {
  const first = await plan(reading);
  return first.proved === undefined ? first.plan : (await plan({ ...reading, decimalSeparator: first.proved })).plan;
}

/**
 * The separator the file proved when it is not the one the rules assumed (both proved: the
 * stop), or when it is but the rules read without a proof and met a value a proof settles
 * (`4.850`, docs/reading-rules.md): planning again with it reads those values.
 */
function provedOtherwise(later: SeparatorWeigher | undefined, rules: ReadingRules): DecimalSeparator | undefined {
  if (later === undefined) return undefined;
  const proved = later.settle();
  if (proved !== rules.decimalSeparator) return proved;
  return later.proved && later.threeDecimals && rules.decimalSettled !== true ? proved : undefined;
}

/**
 * `planBills` handed to `sink` in batches as the bills are complete, holding only the bills still
 * open: memory stays flat however long the file (README, import bills: a bill's rows need not be
 * adjacent, so a first pass, the one that settles the date order, notes where each bill_ref's
 * last row is). The sink gets records in the order they complete, not in file order. A
 * file-level error can come after batches were handed out: whoever sends them must wait until
 * this resolves (queue/submit.ts `ImportSubmission`).
 */
export async function streamBills(file: string, opts: PlanOptions, sink: PlanSink): Promise<PlanFacts> {
  const reading = combineReadingOptions(opts, opts.mapping);
  const opened = await openTable(file, tableOptions(file, 'bills', opts, reading));
  const columns = resolveColumns(opened.headers, BILL_COLUMNS, opts.mapping, file, opened.headerLine, { aliases: opened.headerAliases, cellName: opened.cellName });
  const table = await viewForImport(opened, columns, BILL_NUMBER_COLUMNS, opts);
  const vendors = await vendorLookup(opts.vendorsFile, opts.accountVendors, opts.signal);
  const refOf = billRefReader(columns);
  const rowOptions = rowRuleOptions('bills', opts, columns, table.headers);
  const lastLine = new Map<string, number>();
  const heap = new HeapTrim();
  // The first pass reads the rows as the rules leave them (a filled-down bill_ref), and keeps a
  // bill open until the row that closes it: its total, or a split line under it.
  const read = grouperColumns('bills', rowOptions, columns, table.headers.length);
  const replay = planRowRules('bills', file, read, rowOptions, undefined, { headers: table.headers });
  let above: string | undefined;
  let totals = false;
  const visit = refOf === undefined ? undefined : (rows: readonly SourceRow[]): void => {
    heap.check();
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (!replay.pass(row)) {
        totals ||= replay.last.total;
        // A total names its bill as written; the first pass keys bills as `billRefReader` does.
        const named = replay.last.totalRef;
        const closes = replay.last.total ? (named === undefined ? undefined : keyText(named)) : above;
        if (closes !== undefined && lastLine.has(closes)) lastLine.set(closes, row.line);
        continue;
      }
      const ref = refOf(row);
      above = ref;
      // A flat copy: a cell may be a slice of a whole chunk of the file, which the map would keep.
      if (ref !== undefined) lastLine.set(lastLine.has(ref) ? ref : (above = flat(ref)), row.line);
    }
  };
  const scan = currencyScan(table.headers, columns, opts.mapping, opts.accountCurrency);
  const rules = await settleReadingRules(table, columns, BILL_FIELDS, reading, opts.signal, scanning(visit, scan));
  const billRules = await billRowRules(table, columns, opts.mapping, rules, opts, scan);
  const grouper = new BillGrouper(file, read, opts.resolver, vendors, rules, opts.resendUnknown, billRules);
  requireColumns(table, grouper.missingColumns());
  grouper.closeBillsAfter(lastLine);
  grouper.vendorNames = opts.vendorNames;
  grouper.summaries = summaryRows(file, rowOptions);
  // Without a total row in the file (the first pass saw none), no bill's sum is kept.
  const rowRules = planRowRules('bills', file, read, rowOptions, rules, { sumsByBill: visit === undefined || totals, afterTotals: (report) => billRules.kindsRule(report), summaryHeaders: table.headers });
  rowRules.report.stopper = grouper;
  const { rows, records, tally } = await streamRecords(table, columns, grouper, rowRules, sink, heap, lastLine);
  return { kind: 'bills', file, rows, records, invalidRows: tally.invalid, ignored: tally.ignored, table: tableFacts(table, columns, rules, rowOptions) };
}

/**
 * `planEstimates` handed to `sink` in batches as the estimates are complete (the same plan, in
 * another order). An estimate's rows need not be adjacent and a project may have one estimate
 * (docs/reading-rules.md), so a first pass notes the last row naming each project; an estimate is handed
 * out once that row is passed. As with `streamBills`, nothing may be sent before this resolves.
 */
export async function streamEstimates(file: string, opts: PlanOptions, sink: PlanSink): Promise<PlanFacts> {
  notForEstimates(opts);
  const reading = combineReadingOptions(opts, opts.mapping);
  const opened = await openTable(file, tableOptions(file, 'estimates', opts, reading));
  const columns = resolveColumns(opened.headers, ESTIMATE_COLUMNS, opts.mapping, file, opened.headerLine, { aliases: opened.headerAliases, cellName: opened.cellName });
  const table = await viewForImport(opened, columns, ESTIMATE_NUMBER_COLUMNS, opts);
  const projectOf = estimateProjectKeyReader(file, columns, opts.resolver);
  const rowOptions = rowRuleOptions('estimates', opts, columns, table.headers);
  const lastLine = new Map<string, number>();
  const heap = new HeapTrim();
  let above: string | undefined;
  const visit = (rows: readonly SourceRow[]): void => {
    heap.check();
    for (let i = 0; i < rows.length; i++) {
      const key = projectOf(rows[i]!);
      if (key !== undefined) lastLine.set(lastLine.has(key) ? key : (above = flat(key)), rows[i]!.line);
      // A row naming no project (a total, a heading) may still close or stop the estimate above: it stays open until then.
      else if (above !== undefined) lastLine.set(above, rows[i]!.line);
    }
  };
  const scan = currencyScan(table.headers, columns, opts.mapping, opts.accountCurrency);
  const rules = await settleReadingRules(table, columns, ESTIMATE_FIELDS, reading, opts.signal, scanning(visit, scan));
  const read = grouperColumns('estimates', rowOptions, columns, table.headers.length);
  const grouper = new EstimateGrouper(file, read, opts.resolver, rules, await estimateRowChecks(table, columns, opts, scan));
  requireColumns(table, grouper.missingColumns());
  grouper.closeEstimatesAfter(lastLine);
  const rowRules = planRowRules('estimates', file, read, rowOptions, rules);
  rowRules.report.stopper = grouper;
  const { rows, records, tally } = await streamRecords(table, columns, grouper, rowRules, sink, heap, lastLine);
  return { kind: 'estimates', file, rows, records, invalidRows: tally.invalid, ignored: tally.ignored, table: tableFacts(table, columns, rules, rowOptions) };
}

/**
 * The streamed plans' one pass: the title lines first, then each batch's finished records and
 * the rules' lines as the rows are read, the rest at the end, and the hidden and footer lines last.
 */
async function streamRecords(
  table: OpenedTable,
  columns: ColumnMap,
  grouper: { add(row: SourceRow): void; takeFinished(): { records: MappedRecord[]; statics: StaticLine[] }; finish(): { records: MappedRecord[]; statics: StaticLine[] } },
  rowRules: RowRules,
  sink: PlanSink,
  heap: HeapTrim,
  lastLine: Map<string, number>,
): Promise<{ rows: number; records: number; tally: StaticTally }> {
  let records = 0;
  const tally = new StaticTally();
  const hand = async (batch: { records: MappedRecord[]; statics: StaticLine[] }): Promise<void> => {
    const { records: r, statics } = oneSheetEach(table, batch);
    records += r.length;
    tally.add(statics);
    await sink.add(r, statics);
  };
  await hand({ records: [], statics: ignoredLines(table.titles) });
  const rows = await feed(table, columns, grouper, rowRules, async () => {
    await hand(withRuleLines(grouper.takeFinished(), rowRules));
    heap.check();
  });
  lastLine.clear();
  await hand(withRuleLines(grouper.finish(), rowRules));
  await hand({ records: [], statics: [...ignoredLines(table.repeatedHeaders ?? []), ...ignoredLines(table.hiddenLines ?? []), ...ignoredLines(table.footers)] });
  return { rows, records, tally };
}

/** A copy of `s` that does not share storage with it (V8 keeps a slice's whole parent string alive). */
function flat(s: string): string {
  return (' ' + s).slice(1);
}

/** The grouper's records and lines with the lines the row rules decided (totals, headings, split lines). */
function withRuleLines<T extends { records: MappedRecord[]; statics: StaticLine[] }>(planned: T, rowRules: RowRules): T {
  const lines = rowRules.report.take();
  // One at a time: a spread of a few hundred thousand lines (a long export's totals) overflows the call stack.
  for (const line of lines) planned.statics.push(line);
  return planned;
}

function tableFacts(table: OpenedTable, columns: ColumnMap, rules: ReadingRules, rowRules: RowRuleOptions): ImportPlan['table'] {
  return {
    ...(Object.keys(rowRules).length === 0 ? {} : { rowRules }),
    kind: table.kind,
    headers: table.headers,
    headerLine: table.headerLine,
    delimiter: table.delimiter ?? ',',
    encoding: table.encoding,
    rules,
    columns: columnsByIndex(table.headers.length, columns),
    sourceLineIndex: columns.sourceLineIndex,
    errorIndex: columns.errorIndex,
    ...(table.parts === undefined
      ? table.workbook === undefined ? {} : { sheet: table.workbook.sheet }
      : { sheets: { read: table.parts.map((t) => t.workbook?.sheet ?? ''), notRead: table.sheetsNotRead ?? [], headerLines: table.parts.map((t) => t.headerLine) } }),
  };
}

/** The canonical column of each header index (null for ignored or unnamed ones). */
function columnsByIndex(width: number, columns: ColumnMap): Array<string | null> {
  const out: Array<string | null> = new Array(width).fill(null);
  for (const c of columns.columns()) {
    const index = columns.source(c)?.index ?? -1;
    if (index >= 0 && index < width) out[index] = c;
  }
  return out;
}

function requireColumns(table: OpenedTable, missing: string[]): void {
  if (missing.length > 0) throw missingColumnsError(table.file, table.headerLine, table.headers, missing);
}

/**
 * How an import opens its file: the header row is the first row with every required column
 * (docs/reading-rules.md), after the mapping and the options, or the one `--header-row` names.
 */
export function tableOptions(file: string, kind: 'estimates' | 'bills', opts: PlanOptions, reading: { encoding?: OpenTableOptions['encoding']; delimiter?: OpenTableOptions['delimiter'] }): OpenTableOptions {
  return { sheet: opts.sheet, signal: opts.signal, encoding: reading.encoding, delimiter: reading.delimiter, header: importHeaderRule(file, kind, opts.mapping, opts.layout), headerRow: opts.headerRow ?? opts.mapping?.headerRow };
}

/** What a header row of an import of `kind` is: the first row with every required column, after the mapping (the import page reads its uploads by it too). */
export function importHeaderRule(file: string, kind: 'estimates' | 'bills', mapping: MappingFile | undefined, layout?: 'sections'): HeaderRule {
  const sections = (layout ?? mapping?.layout) === 'sections';
  return kind === 'estimates'
    ? headerRule(file, ESTIMATE_COLUMNS, mapping, missingEstimateColumns)
    // Whether vendor names can be read is an option, not a column: a vendor column is found either way.
    : headerRule(file, BILL_COLUMNS, mapping, (columns) => missingBillColumns(columns, true, sections));
}

/** The plan's report lines with the file's title and footer lines (`ignored`) added. */
function withIgnored(table: OpenedTable, statics: StaticLine[]): StaticLine[] {
  const hidden = table.hiddenLines ?? [];
  const repeated = table.repeatedHeaders ?? [];
  if (table.titles.length === 0 && table.footers.length === 0 && hidden.length === 0 && repeated.length === 0) return statics;
  return [...ignoredLines(table.titles), ...statics, ...ignoredLines(repeated), ...ignoredLines(hidden), ...ignoredLines(table.footers)];
}

/** The grouper's records and lines, a record found in two sheets (`--sheet all`) made invalid rows. */
function oneSheetEach<R extends MappedRecord>(table: OpenedTable, planned: { records: R[]; statics: StaticLine[] }): { records: R[]; statics: StaticLine[] } {
  const across = recordsAcrossSheets(table, planned.records);
  return across.statics.length === 0 ? planned : { records: across.records, statics: [...planned.statics, ...across.statics] };
}

/**
 * Every data row through the row rules (totals, fill-down, sections: `rowRules`) to the grouper.
 * A row the rules stop is theirs to report; a value under a column with no header name only
 * stops the import on a row that is part of a record (a total's label often sits in one).
 */
async function feed(table: OpenedTable, columns: ColumnMap, grouper: { add(row: SourceRow): void }, rowRules: RowRules, afterBatch?: () => Promise<void>, weigher?: SeparatorWeigher): Promise<number> {
  const unnamed = unnamedColumns(table.headers, columns);
  let rows = 0;
  for await (const batch of table.batches()) {
    weigher?.weigh(batch);
    for (let i = 0; i < batch.length; i++) {
      const row = batch[i]!;
      if (!rowRules.pass(row)) continue;
      if (unnamed.length > 0) checkUnnamed(table, unnamed, row);
      grouper.add(row);
      rowRules.joined(row);
    }
    rows += batch.length;
    if (afterBatch !== undefined) await afterBatch();
  }
  rowRules.end();
  return rows;
}

/** Indexes of columns whose header name is empty (spreadsheets leave them behind; their cells must be empty). */
function unnamedColumns(headers: readonly string[], columns: ColumnMap): number[] {
  const out: number[] = [];
  for (let i = 0; i < headers.length; i++) if (headers[i]!.trim() === '' && i !== columns.sourceLineIndex && i !== columns.errorIndex) out.push(i);
  return out;
}

/**
 * A value under a column with no header name would be lost: stop and name it (docs/reading-rules.md),
 * before anything is sent.
 */
function checkUnnamed(table: OpenedTable, unnamed: readonly number[], row: SourceRow): void {
  for (const i of unnamed) {
    const v: CellValue = row.values[i] ?? null;
    if (v === null || v === '' || (typeof v === 'string' && v.trim() === '')) continue;
    const where = table.kind === 'xlsx' ? `column ${columnLetter(i + 1)}` : `column ${i + 1}`;
    const text = typeof v === 'string' ? v : v instanceof Date ? v.toISOString().slice(0, 10) : String(v);
    throw new FileError(table.file, [
      `${table.file}:${row.line} ${where}: this cell holds ${JSON.stringify(text.length > 200 ? `${text.slice(0, 197)}...` : text)}, but its column has no header name (header line ${table.headerLine}), so it belongs to no field. `,
      { kind: 'unnamed-column' },
    ]);
  }
}

const DRY_RUN_MESSAGE = 'dry run: valid, not sent';

/**
 * The report of a dry run (README, Commands, §5): one line per input row in line order; rows of
 * valid records are `skipped` ("dry run: valid, not sent"), the others as planned.
 */
export function dryRunReportLines(plan: ImportPlan): ReportLine[] {
  return Array.from(dryRunReport(plan));
}

/**
 * `dryRunReportLines` one line at a time, so that a million-row report can be written without
 * holding a million line objects.
 */
export function* dryRunReport(plan: ImportPlan): Generator<ReportLine> {
  // Lines are unique and bounded by the file's length: noting at each line's index who owns it
  // orders them in linear time (a million-row report would otherwise be sorted). `owner[line]` is
  // the record's index + 1, or -(the static line's index + 1).
  const { records, statics } = plan;
  let maxLine = 0;
  for (const r of records) {
    const last = r.lines[r.lines.length - 1];
    if (last !== undefined && last > maxLine) maxLine = last;
  }
  for (const s of statics) if (s.line > maxLine) maxLine = s.line;
  const owner = new Int32Array(maxLine + 1);
  for (let i = 0; i < records.length; i++) {
    const lines = records[i]!.lines;
    for (let j = 0; j < lines.length; j++) owner[lines[j]!] = i + 1;
  }
  for (let i = 0; i < statics.length; i++) owner[statics[i]!.line] = -(i + 1);
  for (let line = 0; line <= maxLine; line++) {
    const o = owner[line]!;
    if (o > 0) yield { line, record: records[o - 1]!.label, status: 'skipped', id: '', message: withLineNote(DRY_RUN_MESSAGE, records[o - 1]!.notes, line) };
    else if (o < 0) yield staticLine(statics[-o - 1]!);
  }
}

function staticLine(s: StaticLine): ReportLine {
  return { line: s.line, record: s.record, status: s.status, id: s.id ?? '', message: s.message };
}
