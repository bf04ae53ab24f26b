export { normalizeHeader, resolveColumns, ColumnMap, type ColumnSource } from './header.ts';
export { loadMappingFile, parseMappingFile, type MappingFile } from './mapping-file.ts';
export {
  CellValueError,
  formatDateTime,
  isBlank,
  parseBoolean,
  parseCell,
  parseDate,
  parseDecimalText,
  parseId,
  parseNumber,
  parseText,
} from './values.ts';
export { ESTIMATE_COLUMNS, EstimateGrouper, type EstimateMapping } from './estimates.ts';
export { BILL_COLUMNS, BillGrouper, type BillMapping } from './bills.ts';
export { PROJECT_REF_COLUMNS, ProjectRefReader, projectResolverFromListing, type ProjectRefKind, type ProjectResolver } from './project-refs.ts';
export { VendorDirectory } from './vendors.ts';
export { QUICKBOOKS_MAPPING } from './quickbooks.ts';
export type { MappedRecord } from './mapped-record.ts';
