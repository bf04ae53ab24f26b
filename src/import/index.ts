export { sendRecord, isEstimateExists, markerLostWhy, type RecordKind, type SendRecordInput } from './send-record.ts';
export { ignoredLine, importSummary, importExitCode, importOutcome, lineNameOf, reportCsv, reportCsvChunks, writeReport, writeReportIfPossible, REPORT_COLUMNS, type ImportSummary } from './report.ts';
export type { ImportPlan, PlanFacts, PlanSink } from './plan-types.ts';
export { importHeaderRule, planEstimates, planBills, streamBills, streamEstimates, dryRunReport, dryRunReportLines, projectResolverFromListing, type PlanOptions, type ProjectResolver } from './plan.ts';
export { withCellEdits, type CellEdit } from './cell-edits.ts';
export { loadProjectListing, loadProjectResolver, type ProjectListing } from './project-directory.ts';
export { readBillVendorNames, type VendorNamesLimit } from './vendor-names.ts';
export { errorsFileChunks, errorsFilePath, errorsFileSource, linesToFix, writeErrorsFile, type ErrorsFileSource } from './errors-file.ts';
export { combineReadingOptions, encodingNote, readingNote, settleReadingRules, type ReadingOptions, type WeighedFields } from './reading-rules.ts';
export { writeDryRun, wirePayload, type DryRunResult } from './dry-run.ts';
export { mappingOption } from './mapping-option.ts';
export { parseFillDown } from './row-pipeline.ts';
export {
  ImportStore,
  IMPORT_TTL_SECONDS,
  type ImportMeta,
  type OutcomeCounts,
  type PlannedRecordRef,
  type RecordOutcome,
  type ReportLine,
} from './import-store.ts';
export { LocalReport } from './local-report.ts';
export { refuseOverwritingInput, type ImportOutput } from './output-paths.ts';
