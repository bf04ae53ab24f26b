/**
 * The import page's plan of an upload, Check's and Send's alike (README, The import page): the
 * import's own streamed plan (`streamBills` / `streamEstimates`) against the account's project
 * listing as plain data, with its vendor list and the IDs typed in the page's vendor table. The
 * page runs it in its reader thread (src/dashboard/upload-reading.ts), within that thread's memory
 * and time limits; Send's planned batches cross to the dashboard, which writes them to the import
 * store (`submitFile`), as `PlannedBatch`: plain data, each payload as its JSON text.
 */
import { streamBills, streamEstimates, type PlanFacts, type PlanOptions, type PlanSink, type ProjectListing } from '../import/index.ts';
import { projectResolverFromListing, type MappedRecord, type ProjectResolver, type StaticLine } from '../mapping/index.ts';
import type { VendorEntry } from '../vendors/vendor-store.ts';
import { pageVendorOptions, type FileVendorNames } from './page-vendors.ts';

export interface PagePlanInput {
  kind: 'estimates' | 'bills';
  file: string;
  /** The plan options (`pageImportOptions` with the account's reading): plain data. */
  planOpts: PlanOptions;
  /** The account's project listing (`projectListing`). */
  projects: ProjectListing;
  /** The account and its vendor list (bills), and the IDs typed in the vendor table. */
  vendors: { account: string; listed: readonly VendorEntry[]; typed: readonly VendorEntry[] };
}

/**
 * Streams the plan of `input.file` into `sink`. A check gives `names` (bills: told every vendor
 * name the rows give) and the resolver it made of `input.projects` (one for both).
 */
export function pagePlan(input: PagePlanInput, sink: PlanSink, check: { names?: FileVendorNames; resolver?: ProjectResolver } = {}): Promise<PlanFacts> {
  const resolver = check.resolver ?? projectResolverFromListing(input.projects);
  const opts = pageVendorOptions(input.kind, input.planOpts, input.vendors, check.names);
  const stream = input.kind === 'estimates' ? streamEstimates : streamBills;
  return stream(input.file, { ...opts, resolver }, sink);
}

/** A planned record as it crosses between threads: what the import store keeps of it, the payload as its JSON text. */
export interface CrossingRecord {
  key: string;
  label: string;
  lines: number[];
  contentHash: string;
  payloadJson: string;
  notes?: ReadonlyArray<readonly [number, string]>;
}

/** A batch of a streamed plan as it crosses between threads (structured clone keeps no getters: an estimate's payload is one). */
export interface PlannedBatch {
  records: CrossingRecord[];
  statics: readonly StaticLine[];
}

/** The thread's side: a batch as plain data. */
export function crossingBatch(records: readonly MappedRecord[], statics: readonly StaticLine[]): PlannedBatch {
  return {
    records: records.map((r) => ({ key: r.key, label: r.label, lines: r.lines, contentHash: r.contentHash, payloadJson: r.payloadJson ?? JSON.stringify(r.payload), ...(r.notes === undefined ? {} : { notes: r.notes }) })),
    statics,
  };
}

/** The dashboard's side: a crossed batch handed to `sink` as planned records (the payload parsed from its text when asked). */
export function addCrossed(sink: PlanSink, batch: PlannedBatch): Promise<void> {
  const records: MappedRecord[] = batch.records.map((r) => ({
    ...r,
    get payload(): unknown {
      return JSON.parse(r.payloadJson);
    },
  }));
  return sink.add(records, batch.statics);
}
