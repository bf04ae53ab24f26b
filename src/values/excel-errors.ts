import { CellValueError } from './value-error.ts';

/**
 * Excel's error values (`#N/A`, `#DIV/0!`, …) and what each means, in the words of Excel's help:
 * an .xlsx cell holding one (src/tables/xlsx-cell.ts) and a CSV cell holding its text
 * (`excelErrorRefusal`) are row errors in any field, never a value (docs/reading-rules.md).
 */
export const EXCEL_ERROR_MEANINGS: Readonly<Record<string, string>> = {
  '#DIV/0!': 'it divides by zero',
  '#N/A': 'a lookup found no match, or a value is not available',
  '#REF!': 'it refers to a cell that was deleted',
  '#VALUE!': 'an argument has the wrong type',
  '#NAME?': 'it uses a function or name Excel does not know',
  '#NUM!': 'a number is out of range or a calculation does not converge',
  '#NULL!': 'two ranges that do not intersect',
  '#SPILL!': 'its result has no room to spill into',
  '#CALC!': 'a calculation Excel cannot do, such as an empty array',
  '#FIELD!': 'it refers to a field that a linked data type does not have',
  '#BLOCKED!': 'a feature it needs is blocked',
  '#CONNECT!': 'a linked data source could not be reached',
  '#BUSY!': 'it was still being calculated',
  '#UNKNOWN!': 'a data type this version of Excel does not know',
  '#PYTHON!': 'a Python formula failed',
};

/**
 * The refusal of a CSV cell that holds one of Excel's error texts, as a spreadsheet writes a
 * formula that failed into a CSV (`#N/A`); undefined for any other text. Cheap for the common
 * case: only text starting with `#` is looked up.
 */
export function excelErrorRefusal(text: string): CellValueError | undefined {
  if (text.length < 4 || (text.charCodeAt(0) !== 35 && text.trim().charCodeAt(0) !== 35)) return undefined;
  const error = text.trim();
  const meaning = EXCEL_ERROR_MEANINGS[error];
  if (meaning === undefined) return undefined;
  return new CellValueError(`${JSON.stringify(error)} is the error value a spreadsheet saved in place of a formula's result (${meaning}), not a value; fix the formula or type the value, then save the file again`);
}
