/**
 * Whether a cell's formula proves its row is a total (docs/reading-rules.md): a `SUM` or `SUBTOTAL`
 * over rows above it (`=SUM(D2:D4)`, `=SUBTOTAL(9,D$2:D9)`, `=SUM(D2,D3)`), and nothing else.
 * Only formula cells are looked at, so a sheet without formulas pays nothing.
 */

/** `SUM(` or `SUBTOTAL(` at the start, the whole formula one call. */
const TOTAL_CALL = /^\s*(?:_xlfn\.)?(SUM|SUBTOTAL)\s*\((.*)\)\s*$/i;
/** A cell reference or the start/end of a range: `D2`, `$D$2`, `Sheet1!D2` (the row part is what matters). */
const REF = /(?:^|[^A-Za-z0-9_.])\$?[A-Za-z]{1,3}\$?(\d+)(?![A-Za-z0-9_(])/g;

/** True when `formula` (as written in the sheet, without `=`) is a SUM or SUBTOTAL of cells all on rows above `row`. */
export function isTotalFormula(formula: string, row: number): boolean {
  const call = TOTAL_CALL.exec(formula);
  if (call === null) return false;
  let args = call[2]!;
  // SUBTOTAL's first argument is the function number (9 = SUM, 109 = SUM of visible rows).
  if (call[1]!.toUpperCase() === 'SUBTOTAL') {
    const comma = args.indexOf(',');
    if (comma < 0) return false;
    args = args.slice(comma + 1);
  }
  let refs = 0;
  for (const m of args.matchAll(REF)) {
    if (Number(m[1]) >= row) return false;
    refs++;
  }
  return refs > 0;
}
