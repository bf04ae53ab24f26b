// Value primitives: how a number or a date is written and read, below the tables (which read
// cells), the mapping layer (which reads a cell for a field) and the payloads (which write the
// wire form). They know text, numbers and `Date`s, never cells or files.
export { CellValueError, quoteWritten } from './value-error.ts';
export {
  decimalNumber,
  decimalProduct,
  taxPercentOf,
  decimalSum,
  decimalText,
  fitsDecimalPlaces,
  fixedDecimalText,
  groupedDecimalText,
  integerDigits,
  isDecimalText,
  numberToDecimalText,
  significantDigits,
  type DecimalParts,
} from './decimal.ts';
export { asciiNumberForm, decimalEvidence, endsInThreeDecimals, looksLikeDecimalComma, readWrittenNumber, type DecimalSeparator } from './written-number.ts';
export { excelErrorRefusal, EXCEL_ERROR_MEANINGS } from './excel-errors.ts';
export { dateExpected, dayMonthEvidence, formatDateTime, readWrittenDate, type DateOrder } from './dates.ts';
export { excelSerialToDate, isFictitiousLeapDay, isSerialDay, isSerialMoment, lastSerialDay, serialOfDays1970 } from './excel-serial.ts';
export { percentShown, storedNumber, storedNumberText } from './stored-number.ts';
export { showNumber, showWholeNumber } from './number-format.ts';
export { isENotation, keyText, sameKeyText } from './key-text.ts';
export { columnLetter } from './column-letter.ts';
