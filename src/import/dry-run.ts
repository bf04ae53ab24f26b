/**
 * What a dry run leaves behind (README, Commands, §5), shared by the CLI and the import page: the
 * report, the rows to fix, the payloads as they would go on the wire, and how long sending would
 * take under the account's budget.
 */
import { writeFileAtomically } from '../atomic-file.ts';
import type { ReportLine } from './import-store.ts';
import { StaticTally, type IgnoredCounts, type MappedRecord, type UnresolvedProjects, type UnresolvedVendors } from '../mapping/index.ts';
import { encodeBillInfo, type BillPayload } from '../payloads/index.ts';
import { estimateDurationMs, type Limits } from '../throttle/index.ts';
import { reportCsvChunks } from './report.ts';
import { sheetLineName } from '../tables/index.ts';
import { linesToFix, writeErrorsFile, type ErrorsFileSource } from './errors-file.ts';
import { dryRunReport } from './plan.ts';
import type { ImportPlan } from './plan-types.ts';

export interface DryRunResult {
  /** Rows that are invalid. */
  invalid: number;
  /** Rows that are no part of any record (`ignored`), by reason. */
  ignored: IgnoredCounts;
  /** Rows written to the errors file (0: none, and a stale one removed). */
  fixRows: number;
  /** How long sending the valid records would take under `limits`, every window counted. */
  etaMs: number;
}

/**
 * Writes the dry run's report to `reportPath` (valid rows "dry run: valid, not sent"; a project a
 * dry run could not resolve named as written) and the rows to fix to `errorsPath`.
 */
export async function writeDryRun(
  plan: ImportPlan,
  opts: { reportPath: string; errorsPath: string; source: ErrorsFileSource; limits: Limits; unresolved?: UnresolvedProjects; unresolvedVendors?: UnresolvedVendors; signal?: AbortSignal },
): Promise<DryRunResult> {
  const { unresolved, unresolvedVendors } = opts;
  const lines = (function* (): Generator<ReportLine> {
    for (const l of dryRunReport(plan)) yield unresolved === undefined && unresolvedVendors === undefined ? l : { ...l, record: namedLabel(l.record, unresolved, unresolvedVendors) };
  })();
  const out = await writeFileAtomically(opts.reportPath);
  try {
    const sheets = plan.table?.sheets;
    for (const chunk of reportCsvChunks(lines, sheets === undefined ? undefined : sheetLineName(sheets.read))) await out.write(chunk);
    await out.commit();
  } catch (err) {
    await out.abort();
    throw err;
  }
  const toFix = linesToFix(plan.statics.map((st) => ({ line: st.line, record: st.record, status: st.status, id: '', message: st.message })));
  const fixRows = await writeErrorsFile(opts.source, toFix, opts.errorsPath, opts.signal);
  const tally = new StaticTally().add(plan.statics);
  return {
    invalid: tally.invalid,
    ignored: tally.ignored,
    fixRows,
    etaMs: estimateDurationMs(opts.limits, [], plan.records.length, Date.now()),
  };
}

/** `project 9000000000001 / Kitchen` → `project_number "P-7" / Kitchen` for a project (and `vendor "Acme"` for a vendor) a dry run left unresolved. */
function namedLabel(label: string, unresolved: UnresolvedProjects | undefined, vendors: UnresolvedVendors | undefined): string {
  const projects = unresolved === undefined ? label : label.replace(/\bproject (\d{13,})\b/, (all, id: string) => unresolved.describe(Number(id)) ?? all);
  return vendors === undefined ? projects : projects.replace(/\bvendor (\d{13,})\b/, (all, id: string) => vendors.describe(Number(id)) ?? all);
}

/**
 * What would go on the wire (README, import bills): an estimate's JSON body; a bill's `Info` JSON,
 * decoded, with its strings. A project or vendor a dry run could not resolve is shown as null.
 */
export function wirePayload(kind: 'estimates' | 'bills', r: MappedRecord, unresolved?: UnresolvedProjects, vendors?: Pick<UnresolvedVendors, 'isPlaceholder'>): string {
  if (kind === 'estimates') {
    const json = r.payloadJson ?? JSON.stringify(r.payload);
    if (unresolved === undefined) return json;
    const payload = JSON.parse(json) as { PROJECT_ID: number | null };
    if (unresolved.describe(payload.PROJECT_ID ?? 0) !== undefined) payload.PROJECT_ID = null;
    return JSON.stringify(payload);
  }
  const info = encodeBillInfo(r.payload as BillPayload);
  if (unresolved === undefined && vendors === undefined) return info;
  const decoded = JSON.parse(info) as { PRJ_ID: string | null; VENDOR_ID: string | null };
  if (unresolved?.describe(Number(decoded.PRJ_ID)) !== undefined) decoded.PRJ_ID = null;
  if (vendors?.isPlaceholder(Number(decoded.VENDOR_ID))) decoded.VENDOR_ID = null;
  return JSON.stringify(decoded);
}
