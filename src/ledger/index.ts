export { Ledger, type BeginResult, type LedgerEntry, type LedgerState } from './ledger.ts';
export {
  ImportStore,
  IMPORT_TTL_SECONDS,
  type ImportMeta,
  type OutcomeCounts,
  type PlannedRecordRef,
  type RecordOutcome,
  type ReportLine,
  type RowStatus,
  type StaticLine,
} from './import-store.ts';
