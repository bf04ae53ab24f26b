/**
 * The import page's check (README, The import page): the file planned as the CLI's dry run plans
 * it, against the account's project listing (one request of its budget) and, for bills, its
 * vendor list with the IDs typed in the page's vendor table over it; then said as a person reads
 * it: each record summed up (check-summary.ts), those the ledger already has marked `created`
 * (looked up, nothing claimed), each invalid row with the header of its bad cell, the rows that
 * are no part of any record, and the vendor table.
 */
import { messageFor } from '../errors/index.ts';
import type { ServiceAccount } from '../config.ts';
import { wirePayload, type ImportPlan, type PlanOptions } from '../import/index.ts';
import { Ledger } from '../ledger/index.ts';
import type { IgnoredCounts, MappedRecord, ProjectResolver } from '../mapping/index.ts';
import type { BillPayload, EstimatePayload } from '../payloads/index.ts';
import type { RedisConnection as Redis } from '../redis/layout.ts';
import { linesNamedIn, sheetLineName } from '../tables/index.ts';
import type { VendorEntry } from '../vendors/vendor-store.ts';
import { billSummary, estimateSummary, type BillSummary, type EstimateSummary } from './check-summary.ts';
import { SHOWN_ROWS } from './columns.ts';
import { ignoredRows } from './ignored-rows.ts';
import { FileVendorNames, pageVendorOptions, typedVendorIds, type VendorRow } from './page-vendors.ts';
import { listProjects, planImport, type ImportKind, type SessionPlace } from './run-import.ts';

/** A line as the page names it: the line, or `Sheet!row` when every sheet of a workbook was read. */
export type PageLine = number | string;

export interface CheckedRecord {
  key: string;
  label: string;
  lines: PageLine[];
  /** `created`: the ledger has it (a send reports it `skipped`); `new`: it would be created. */
  status: 'new' | 'created';
  bill?: BillSummary;
  estimate?: EstimateSummary;
  /** What would be sent, exactly (`Info` JSON of a bill, the estimate's JSON). */
  payload: string;
}

/** One error of an invalid row (a row with several errors has one entry for each, beside its own cell). */
export interface InvalidRow {
  line: PageLine;
  record: string;
  /** The header of the bad cell, as the error names it; null when it names none. */
  column: string | null;
  message: string;
}

/** The check: the plan (for the send) and what the page shows of it. */
export interface PageCheck {
  plan: ImportPlan;
  /** The vendor IDs typed in the vendor table, as checked: saved into the account's list by the send. */
  typedVendors: VendorEntry[];
  response: {
    rows: number;
    invalid: InvalidRow[];
    /** The first `SHOWN_ROWS` records. */
    records: CheckedRecord[];
    /** Records to create: the ledger does not have them. */
    recordCount: number;
    alreadyCreated: number;
    ignored: { text: string; counts: IgnoredCounts; count: number; lines: Array<{ line: PageLine; reason: string | null; message: string }> };
    /** Bills with a vendor-name column: each distinct name with its ID ('' unknown). */
    vendors: VendorRow[];
  };
}

export interface PageCheckOptions {
  account: ServiceAccount;
  place: SessionPlace & { redis: Redis };
  planOpts: PlanOptions;
  /** The vendor table as the page sent it: vendor name as in the file → VENDOR_ID typed. */
  vendorIds?: unknown;
  /** Every message passes through it (the page names the file as uploaded). */
  scrub: (message: string) => string;
}

/** Checks `file` as the page does, sending nothing (one listing request of the account's budget). */
export async function pageCheck(kind: ImportKind, file: string, o: PageCheckOptions): Promise<PageCheck> {
  const typedVendors = typedVendorIds(o.vendorIds);
  const resolver = await listProjects(o.account, o.place);
  const vendors = await pageVendorOptions(kind, o.planOpts, { redis: o.place.redis, prefix: o.place.prefix, account: o.account.name }, typedVendors);
  const plan = await planImport(kind, file, { ...vendors.opts, resolver });
  const created = await new Ledger(o.place.redis, o.place.prefix).createdAmong(o.account.name, plan.records.map((r) => r.key));
  const sheets = plan.table?.sheets?.read;
  const lineName: (line: number) => PageLine = sheets === undefined ? (line) => line : sheetLineName(sheets);
  const headers = new Set(plan.table?.headers ?? []);
  const ignored = ignoredRows(plan);
  const newCount = created.filter((c) => !c).length;
  return {
    plan,
    typedVendors,
    response: {
      rows: plan.rows,
      invalid: plan.statics
        .filter((s) => s.status === 'invalid')
        // A row with several errors: each beside its own cell (`cells`); the report keeps them as one message.
        .flatMap((s) => (s.cells ?? [s]).map((c) => ({ line: lineName(s.line), record: s.record, column: c.column !== undefined && headers.has(c.column) ? c.column : null, message: o.scrub(linesNamedIn(messageFor(c, 'page'), lineName)) }))),
      records: plan.records.slice(0, SHOWN_ROWS).map((r, i) => checkedRecord(kind, r, created[i]!, resolver, vendors.names, lineName)),
      recordCount: newCount,
      alreadyCreated: plan.records.length - newCount,
      ignored: { ...ignored, lines: ignored.lines.map((l) => ({ ...l, line: lineName(l.line), message: o.scrub(linesNamedIn(l.message, lineName)) })) },
      vendors: vendors.names?.table(vendors.entries, vendors.listed) ?? [],
    },
  };
}

function checkedRecord(kind: ImportKind, r: MappedRecord, created: boolean, resolver: ProjectResolver, names: FileVendorNames | undefined, lineName: (line: number) => PageLine): CheckedRecord {
  const base = { key: r.key, label: r.label, lines: r.lines.map(lineName), status: created ? ('created' as const) : ('new' as const) };
  // An estimate builds its payload from its JSON on each read: read it once.
  if (kind === 'estimates') {
    const payload = r.payloadJson ?? JSON.stringify(r.payload);
    return { ...base, estimate: estimateSummary(JSON.parse(payload) as EstimatePayload, resolver), payload };
  }
  return { ...base, bill: billSummary(r as MappedRecord<BillPayload>, resolver, names?.nameOf(r.lines[0]!)), payload: wirePayload(kind, r) };
}
