/**
 * Planning an import: read FILE, validate and map every row, group rows into records
 * (CONTRACT.md §3-§5). Needs neither Redis nor the service: a resolver over the project listing
 * is passed in when project numbers or names must be resolved. The plan is what a dry run
 * reports and what an import then sends.
 *
 * One pass over the file in batches; columns are resolved once; each record's payload is
 * validated once (against the API's schema, or a hand check that only passes what the schema
 * passes) and hashed once. Planned estimates keep their payload as its JSON text
 * (`PlannedRecord.payloadJson`), outside the JavaScript heap.
 */
import type { BillPayload, EstimatePayload } from '../payloads/index.ts';
import { openTable, type OpenedTable } from '../csv/index.ts';
import { FileError, UsageError } from '../errors/index.ts';
import type { ReportLine, StaticLine } from '../ledger/index.ts';
import {
  BILL_COLUMNS, BillGrouper, ESTIMATE_COLUMNS, EstimateGrouper, QUICKBOOKS_MAPPING, VendorDirectory, resolveColumns, type MappingFile,
  type ProjectResolver,
} from '../mapping/index.ts';
import type { ImportPlan, PlannedRecord } from './plan-types.ts';

export { projectResolverFromListing, type ProjectResolver } from '../mapping/index.ts';

export interface PlanOptions {
  /** `--mapping MAP.json`, already loaded (`loadMappingFile`). */
  mapping?: MappingFile;
  /** `--sheet NAME` (.xlsx only); default the first sheet. */
  sheet?: string;
  /** `--vendors VENDORS.csv` (bills only). */
  vendorsFile?: string;
  /** `--mapping quickbooks` (bills only). */
  quickbooks?: boolean;
  /** Resolves project numbers and names, and checks IDs, against the account's listing. Without it, project_id is taken as written. */
  resolver?: ProjectResolver;
  signal?: AbortSignal;
}

/** Reads an estimate file (.csv or .xlsx) into one planned estimate per (project, estimate_name) group. */
export async function planEstimates(file: string, opts: PlanOptions = {}): Promise<ImportPlan<EstimatePayload>> {
  if (opts.quickbooks) throw new UsageError('--mapping quickbooks reads QuickBooks bill exports; it does not apply to estimates. Pass a mapping file (--mapping MAP.json) instead.');
  if (opts.vendorsFile !== undefined) throw new UsageError('--vendors applies to bill imports only; remove it.');
  const table = await openTable(file, { sheet: opts.sheet, signal: opts.signal });
  const columns = resolveColumns(table.headers, ESTIMATE_COLUMNS, opts.mapping, file, table.headerLine);
  const grouper = new EstimateGrouper(file, columns, opts.resolver);
  requireColumns(table, grouper.missingColumns());
  const rows = await feed(table, grouper);
  const { records, statics } = grouper.finish();
  return { kind: 'estimates', file, rows, records: records as PlannedRecord<EstimatePayload>[], statics };
}

/** Reads a bill file into one planned bill per (bill_ref, project, vendor), or per row without bill_ref. */
export async function planBills(file: string, opts: PlanOptions = {}): Promise<ImportPlan<BillPayload>> {
  if (opts.quickbooks && opts.mapping !== undefined) throw new UsageError('--mapping takes either quickbooks or a mapping file, not both.');
  const mapping = opts.quickbooks ? QUICKBOOKS_MAPPING : opts.mapping;
  const table = await openTable(file, { sheet: opts.sheet, signal: opts.signal });
  const columns = resolveColumns(table.headers, BILL_COLUMNS, mapping, file, table.headerLine);
  const vendors = opts.vendorsFile === undefined ? undefined : await VendorDirectory.load(opts.vendorsFile, opts.signal);
  const grouper = new BillGrouper(file, columns, opts.resolver, vendors);
  requireColumns(table, grouper.missingColumns());
  const rows = await feed(table, grouper);
  const { records, statics } = grouper.finish();
  return { kind: 'bills', file, rows, records: records as PlannedRecord<BillPayload>[], statics };
}

function requireColumns(table: OpenedTable, missing: string[]): void {
  if (missing.length === 0) return;
  throw new FileError(
    table.file,
    `${table.file}:${table.headerLine}: missing column${missing.length > 1 ? 's' : ''}: ${missing.join('; ')}. ` +
      `The header row has ${table.headers.map((h) => JSON.stringify(h)).join(', ')}; rename a header, or map it with --mapping MAP.json ({"columns": {"<header>": "<column>"}}).`,
  );
}

async function feed(table: OpenedTable, grouper: { add(row: { line: number; values: unknown[] }): void }): Promise<number> {
  let rows = 0;
  for await (const batch of table.batches()) {
    for (let i = 0; i < batch.length; i++) grouper.add(batch[i]!);
    rows += batch.length;
  }
  return rows;
}

const DRY_RUN_MESSAGE = 'dry run: valid, not sent';

/**
 * The report of a dry run (CONTRACT.md §2, §5): one line per input row in line order; rows of
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
    if (o > 0) yield { line, record: records[o - 1]!.label, status: 'skipped', id: '', message: DRY_RUN_MESSAGE };
    else if (o < 0) yield staticLine(statics[-o - 1]!);
  }
}

function staticLine(s: StaticLine): ReportLine {
  return { line: s.line, record: s.record, status: s.status, id: s.id ?? '', message: s.message };
}
