export { openTable } from './open-table.ts';
export { UnreadableCell } from './types.ts';
export type { CellFormat, CellValue, OpenedTable, OpenTableOptions, SourceRow, TableKind } from './types.ts';
export { ENCODING_OPTIONS, type EncodingOption } from './input-decoder.ts';
export type { HeaderCandidate, HeaderRule, IgnoredLine } from './types.ts';
export { ALL_SHEETS, SHEET_STRIDE } from './types.ts';
export { viewTable, type HiddenOption, type SheetViewOptions } from './sheet-view.ts';
export { combineSheets, sheetLineName } from './workbook-sheets.ts';
export { editWorkbookCells, type WorkbookCellEdit } from './xlsx/edit-cells.ts';
