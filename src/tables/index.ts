export { openTable } from './open-table.ts';
import type { XlsxReader } from './open-table.ts';
export { UnreadableCell } from './types.ts';
export type { CellFormat, CellValue, OpenedTable, OpenTableOptions, SourceRow, TableKind } from './types.ts';
export { encodingName, isEncodingOption, PAGE_ENCODINGS, unknownEncodingText, type EncodingOption, type InputEncoding } from './encodings.ts';
export type { HeaderCandidate, HeaderRule, IgnoredLine } from './types.ts';
export { DELIMITER_OPTIONS, delimiterOption, type Delimiter, type DelimiterOption } from './delimiter.ts';
export { ALL_SHEETS, SHEET_STRIDE } from './types.ts';
export { viewTable, type HiddenOption, type SheetViewOptions } from './sheet-view.ts';
export { combineSheets, linesNamedIn, sheetLineName, sheetLinesIn } from './workbook-sheets.ts';
export { sniffKind as tableKindOf } from './sniff.ts';
export { columnLetter } from './xlsx-cell.ts';
export { comparableName } from './header-names.ts';

/**
 * `xlsx/read-xlsx.ts` `probeXlsxSheets`: which sheets of a workbook hold a table. The .xlsx reader
 * (yauzl, saxes) is loaded when a workbook is read, not with this index: a CSV file needs none of it.
 */
export async function probeWorkbookSheets(...args: Parameters<XlsxReader['probeXlsxSheets']>): ReturnType<XlsxReader['probeXlsxSheets']> {
  return (await import('./xlsx/read-xlsx.ts')).probeXlsxSheets(...args);
}
