export { ClaimLostError, DEFAULT_LEASE_MS, Ledger, type BeginResult, type LedgerEntry, type LedgerOptions, type LedgerState } from './ledger.ts';
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
export { checkLedgerLines, exportLedger, importLedger, pruneLedger, type ImportCounts, type LedgerLine } from './ledger-admin.ts';
export { confirmNote, durabilityDecision, readDurabilityFacts, supportsWaitaof, RedisNotDurableError, type DurabilityDecision, type RedisDurabilityFacts } from './durability.ts';
