export {
  candidateColumns, normalizeHeader, resolveColumns, ColumnMap, errorsFileColumnOf, ERRORS_FILE_COLUMNS, SOURCE_LINE_COLUMN, ERROR_COLUMN, type ColumnSource, type ResolveColumnsOptions,
} from './header.ts';
export { headerRule, missingColumnsError } from './header-rule.ts';
export { missingBillColumns, missingEstimateColumns, missingList } from './required-columns.ts';
export { IGNORED_REASONS, ignoredLines, staticLine, StaticTally, type IgnoredCounts, type IgnoredReason, type RowStatus, type StaticLine } from './report-line.ts';
export { GUESS_STRENGTHS, guessColumn, sameMeaning, suggestColumn, suggestHeader, type ColumnGuess, type GuessStrength } from './suggest.ts';
export { loadMappingFile, MappingRulesSchema, parseMappingFile, type MappingFile, type MappingRules } from './mapping-file.ts';
export {
  CellValueError,
  isBlank,
  parseBoolean,
  parseCell,
  parseDate,
  parseDecimalText,
  parseId,
  parseNumber,
  parseText,
  parseRateText,
  PERCENT_COLUMNS,
  US_RULES,
  type ReadingRules,
  type DateOrder,
} from './values.ts';
export { ESTIMATE_COLUMNS, ESTIMATE_NUMBER_COLUMNS } from './estimate-columns.ts';
export { buildRowRules, sectionColumns, RowReport, RowRules, type ColumnsOf, type RecordStopper, type RowContext, type RowRule, type RowRuleOptions } from './rows/index.ts';
export { colOf, type Col } from './column-cells.ts';
export { EstimateGrouper, type EstimateMapping } from './estimates.ts';
export { EstimateRowChecks } from './estimate-row-checks.ts';
export { currencyColumns, currencyScan, type CurrencyScan } from './currency-columns.ts';
export { BILL_COLUMNS, BILL_DATE_COLUMNS, BILL_NUMBER_COLUMNS, BillGrouper, billRefReader, type BillMapping } from './bills.ts';
export { SummaryRows } from './bill-summary.ts';
export { billRowRules, BillRowRules, type BillRowOptions } from './bill-row-rules.ts';
export { kindColumnOf } from './bill-kinds.ts';
export { estimateProjectKeyReader, PROJECT_REF_COLUMNS, ProjectRefReader, UnresolvedProjects, projectResolverFromListing, type ProjectRefKind, type ProjectResolver } from './project-refs.ts';
export { AccountVendors, ambiguityOf, readVendorsFile, UnresolvedVendors, VendorDirectory, vendorLookup, type AccountVendorList, type VendorFileEntry, type VendorLookup, type VendorNameSink } from './vendors.ts';
export { QUICKBOOKS_MAPPING } from './quickbooks.ts';
export { XERO_MAPPING } from './xero.ts';
export { presetMapping, isBuiltInPreset, PRESET_NAMES, ruleColumnHeaders } from './presets.ts';
export { detectPreset, presetOfRules, type PresetName } from './detect-preset.ts';
export { cellFits, columnTypes, type ColumnType } from './column-types.ts';
export { columnWords, unwordedColumns } from './column-words.ts';
export type { MappedRecord } from './mapped-record.ts';
export { keyText, parseRef, sameKeyText, withLineNote } from './record-key.ts';
