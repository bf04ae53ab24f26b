export { ClaimLostError, DEFAULT_LEASE_MS, Ledger, MarkerLostError, RESEND_LEASE_MS, type BeginResult, type LedgerEntry, type LedgerOptions, type LedgerState } from './ledger.ts';
export { checkLedgerLines, exportLedger, importLedger, pruneLedger, type ImportCounts, type LedgerLine } from './ledger-admin.ts';
export { confirmNote, durabilityDecision, readDurabilityFacts, supportsWaitaof, RedisNotDurableError, type DurabilityDecision, type RedisDurabilityFacts } from './durability.ts';
export { DurabilityWatch, DURABILITY_RECHECK_MS } from './durability-watch.ts';
