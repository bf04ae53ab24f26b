import type { TableKind } from '../tables/index.ts';
import type { StaticLine } from '../mapping/report-line.ts';
import type { IgnoredCounts, MappedRecord, ReadingRules, RowRuleOptions } from '../mapping/index.ts';

/** A file read, validated and mapped: what would be sent, and the rows that cannot be. */
export interface ImportPlan<P = unknown> {
  kind: 'estimates' | 'bills';
  /** The input file as the user named it. */
  file: string;
  /** Data rows read (not counting the header). */
  rows: number;
  records: MappedRecord<P>[];
  /** Report lines decided while planning: every row of an invalid group, and rows that belong to no group. */
  statics: StaticLine[];
  /** How the file was read: what the errors file (README, Reports, re-runs and `unknown`) needs to write rows that read the same. */
  table?: {
    kind: TableKind;
    headers: string[];
    headerLine: number;
    /** CSV: the detected delimiter; `,` for .xlsx. */
    delimiter: string;
    encoding?: string;
    rules: ReadingRules;
    /** Fill-down, layout and total labels the rows were read with: the errors file writes filled-down and section cells as read. */
    rowRules?: RowRuleOptions;
    /** The canonical column each header gives (null when ignored or unknown), by header index. */
    columns: Array<string | null>;
    /** Index of the errors file's `source_line` column when FILE is an errors file, else -1. */
    sourceLineIndex: number;
    /** Index of the errors file's `error` column, else -1. */
    errorIndex: number;
    /** .xlsx: the sheet read (the one chosen when `--sheet` named none). */
    sheet?: string;
    /** `--sheet all`: the sheets read (report lines `Sheet!row`, see `sheetLineName`), their header rows, and the workbook's other sheets. */
    sheets?: { read: string[]; notRead: string[]; headerLines: number[] };
  };
}

/** Where a streamed plan goes, batch by batch (plan-import.ts `streamBills`, `streamEstimates`). */
export interface PlanSink {
  /** Records complete so far (in the order they complete) and report lines decided so far. */
  add(records: readonly MappedRecord[], statics: readonly StaticLine[]): Promise<void>;
}

/** What a streamed plan says of the file once it is read: an `ImportPlan` without its records and lines. */
export type PlanFacts = Omit<ImportPlan, 'records' | 'statics'> & {
  /** Records handed to the sink. */
  records: number;
  /** Rows reported `invalid`. */
  invalidRows: number;
  /** Rows reported `ignored`, by reason. */
  ignored: IgnoredCounts;
};
