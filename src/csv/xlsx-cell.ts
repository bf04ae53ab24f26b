import type { CellValue } from './types.ts';

/**
 * Turns a cell value as exceljs' streaming reader gives it into a `CellValue`:
 * numbers, booleans and dates stay as they are (exceljs already turns numbers in date-formatted
 * cells into `Date`s); rich text and hyperlinks become their plain text; a formula becomes its
 * cached result (a numeric result in a date-formatted cell becomes a `Date`, which exceljs does
 * not do for formulas); an error cell (`#N/A`) becomes its text so value parsing rejects it
 * with the value shown.
 */
export function xlsxCellValue(value: unknown, numFmt: string | undefined, date1904: boolean): CellValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      return value;
    case 'object':
      break;
    default:
      return String(value);
  }
  if (value instanceof Date) return value;
  const v = value as {
    richText?: { text?: string }[];
    text?: unknown;
    formula?: string;
    sharedFormula?: string;
    result?: unknown;
    error?: string;
  };
  if (Array.isArray(v.richText)) return v.richText.map((r) => r.text ?? '').join('');
  if ('formula' in v || 'sharedFormula' in v) {
    const result = v.result;
    if (typeof result === 'number' && isDateFormat(numFmt)) return excelSerialToDate(result, date1904);
    return xlsxCellValue(result, numFmt, date1904);
  }
  if ('text' in v) return xlsxCellValue(v.text, numFmt, date1904);
  if (typeof v.error === 'string') return v.error;
  return null;
}

/** The header text of a cell: its value as text, trimmed of nothing (headers are kept as written). */
export function xlsxHeaderText(value: CellValue): string {
  if (value === null) return '';
  if (value instanceof Date) return value.toISOString().slice(0, 19);
  return String(value);
}

/**
 * Excel's serial day count to a `Date` whose UTC fields are the wall-clock time, the convention
 * exceljs uses (`utils.excelToDate`): day 25569 is 1970-01-01 in the 1900 date system.
 */
export function excelSerialToDate(serial: number, date1904 = false): Date {
  return new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * 86_400_000));
}

/** exceljs' own test (`utils.isDateFmt`): date/time letters outside quotes and brackets. */
function isDateFormat(numFmt: string | undefined): boolean {
  if (!numFmt) return false;
  const bare = numFmt.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, '');
  return /[ymdhMsb]+/.test(bare);
}
