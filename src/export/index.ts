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
export { runExport, projectSource, exportVariant, tracksChanges, type ProjectExportSpec, type ProjectExportResult, type ExportDestination, type ExportServices } from './run-export.ts';
export { changesPathFor, CHANGES_CSV_HEADER, type ChangeCounts } from './changes.ts';
export { recordExportSuccess, readExportSuccesses, exportSuccessKey, type ExportSuccess } from './freshness.ts';
