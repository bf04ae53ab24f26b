/**
 * How a spreadsheet names a column: 1 → A, 26 → Z, 27 → AA, 16384 → XFD. The one spelling for
 * the .xlsx reader's cell names and messages, the import's, and the export's sheet (its
 * autofilter range).
 */
export function columnLetter(col: number): string {
  let s = '';
  for (let n = col; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}
