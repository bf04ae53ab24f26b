// The import service: the one check-and-submit sequence of the CLI's `import` and the dashboard's import page.
export { collectResults, listProjects, planImport, redisDurability, requireDurableRedis, submitChecked, submitFile, type ImportKind, type SessionPlace, type SubmitFileOptions, type SubmittedFile } from './run-import.ts';
export { EarlierReport } from './earlier-report.ts';
export { reportAfterLostLedger } from './lost-ledger.ts';
export { dryRunImport, writeEmptyReport, type DryRunImport, type DryRunImportOptions } from './dry-run-import.ts';
export { cellText, ERROR_COLUMN, errorsFileColumnOf, normalizeHeader, readUpload, SOURCE_LINE_COLUMN, rowsOf, SHOWN_ROWS, type MappingFile } from './columns.ts';
export { knownColumns, pageImportOptions, parsePageState, type PageImportOptions, type PageLayout, type PageState } from './page-state.ts';
export { readPage, type PageReading, type ReadPageOptions, type SavedPageMapping } from './page-reading.ts';
export { savedMappingChoices } from './saved-mapping.ts';
export { headerHash, LastMappings } from './last-mapping.ts';
export { ignoredRows } from './ignored-rows.ts';
export { pageFailedReason } from './page-failure.ts';
export { pageCheck, type CheckedRecord, type InvalidRow, type PageCheck, type PageCheckOptions, type PageLine } from './page-check.ts';
export { billSummary, estimateSummary, projectText, type BillSummary, type EstimateSummary } from './check-summary.ts';
export { accountVendorList, FileVendorNames, pageVendorOptions, saveTypedVendorIds, typedVendorIds, type VendorRow } from './page-vendors.ts';
export type { VendorEntry } from '../vendors/vendor-store.ts';
export { ImportStore } from '../import/index.ts';
export type { DurabilityDecision } from '../ledger/index.ts';
export { matchVendorList, type VendorListMatch } from './vendor-list-upload.ts';
