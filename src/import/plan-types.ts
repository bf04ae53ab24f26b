import type { TableKind } from '../tables/index.ts';
import type { StaticLine } from '../mapping/report-line.ts';
import type { ReadingRules } from '../mapping/index.ts';

/** One record to create: an estimate (one per project) or a bill. */
export interface PlannedRecord<P = unknown> {
  /** Ledger key (CONTRACT.md §5): `estimate:project:<id>`; `bill:ref:<ref>|<project>|<vendor>`; `bill:row:<hash>#<n>`. */
  key: string;
  /** How the report names it: `project 1042 / Kitchen remodel`, `bill INV-7 / project 1042 / vendor 55`. */
  label: string;
  /** Input lines it was made from, ascending. */
  lines: number[];
  /** Hash of the payload, to tell a changed record from the same one on a re-run. */
  contentHash: string;
  /** The payload object. Planned estimates build it from `payloadJson` on each read: read it once and keep it when it is needed twice. */
  payload: P;
  /**
   * The payload's canonical JSON (the text `contentHash` hashes), when the planner keeps the
   * payload as text (estimates do: a big plan's memory is mostly its payloads). Prefer it
   * wherever text is wanted (printing, sending).
   */
  payloadJson?: string;
}

/** A file read, validated and mapped: what would be sent, and the rows that cannot be. */
export interface ImportPlan<P = unknown> {
  kind: 'estimates' | 'bills';
  /** The input file as the user named it. */
  file: string;
  /** Data rows read (not counting the header). */
  rows: number;
  records: PlannedRecord<P>[];
  /** Report lines decided while planning: every row of an invalid group, and rows that belong to no group. */
  statics: StaticLine[];
  /** How the file was read: what the errors file (CONTRACT.md §5) needs to write rows that read the same. */
  table?: {
    kind: TableKind;
    headers: string[];
    headerLine: number;
    /** CSV: the detected delimiter; `,` for .xlsx. */
    delimiter: string;
    encoding?: string;
    rules: ReadingRules;
    /** The canonical column each header gives (null when ignored or unknown), by header index. */
    columns: Array<string | null>;
    /** Index of the errors file's `source_line` column when FILE is an errors file, else -1. */
    sourceLineIndex: number;
    /** Index of the errors file's `error` column, else -1. */
    errorIndex: number;
  };
}

/** Where a streamed plan goes, batch by batch (plan-import.ts `streamBills`, `streamEstimates`). */
export interface PlanSink {
  /** Records complete so far (in the order they complete) and report lines decided so far. */
  add(records: readonly PlannedRecord[], statics: readonly StaticLine[]): Promise<void>;
}

/** What a streamed plan says of the file once it is read: an `ImportPlan` without its records and lines. */
export type PlanFacts = Omit<ImportPlan, 'records' | 'statics'> & {
  /** Records handed to the sink. */
  records: number;
  /** Rows reported `invalid`. */
  invalidRows: number;
};
