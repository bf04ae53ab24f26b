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
  toFixedDecimal,
} from './values.ts';
