export { openTable } from './open-table.ts';
export { UnreadableCell } from './types.ts';
export type { CellFormat, CellValue, OpenedTable, OpenTableOptions, SourceRow, TableKind } from './types.ts';
export { ENCODING_OPTIONS, type EncodingOption } from './input-decoder.ts';
export type { HeaderCandidate, HeaderRule, IgnoredLine } from './types.ts';
