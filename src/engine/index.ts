export {
  exportProjects,
  defaultExportPath,
  isMyDocuments,
  type ExportFormat,
  type ExportOptions,
  type ExportResult,
  type ExportSink,
  type MyDocumentsMode,
} from './export-projects.ts';
export { sendRecord, isEstimateExists, type RecordKind, type SendRecordInput } from './send-record.ts';
export { importSummary, importExitCode, importOutcome, reportCsv, reportCsvChunks, writeReport, writeReportIfPossible, REPORT_COLUMNS, type ImportSummary } from './build-report.ts';
export { openSession, type ServiceSession, type SessionOptions } from './session.ts';
export { runExport, projectSource, exportVariant, tracksChanges, type ProjectExportSpec, type ProjectExportResult, type ExportDestination, type ExportServices } from './run-export.ts';
export { changesPathFor, CHANGES_CSV_HEADER, type ChangeCounts } from './export-changes.ts';
export { recordExportSuccess, readExportSuccesses, exportSuccessKey, type ExportSuccess } from './export-freshness.ts';
export type { ImportPlan, PlannedRecord, PlanFacts, PlanSink } from './plan-types.ts';
export { planEstimates, planBills, streamBills, streamEstimates, dryRunReport, dryRunReportLines, projectResolverFromListing, type PlanOptions, type ProjectResolver } from './plan-import.ts';
export { loadProjectResolver } from './project-directory.ts';
export { errorsFileChunks, errorsFilePath, errorsFileSource, linesToFix, writeErrorsFile, ERRORS_FILE_COLUMNS, type ErrorsFileSource } from './errors-file.ts';
export { combineReadingOptions, settleReadingRules, type ReadingOptions } from './reading-rules.ts';
export { runChecks, checkExitCode, REDIS_NEEDS, type CheckFinding, type CheckLevel, type CheckName, type CheckOptions, type CheckReport } from './check.ts';
export { writeDryRun, wirePayload, type DryRunResult } from './dry-run.ts';
export { mappingOption } from './mapping-option.ts';
