export { openTable } from './open-table.ts';
export type { CellValue, OpenedTable, OpenTableOptions, SourceRow, TableKind } from './types.ts';
