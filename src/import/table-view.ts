import { MAX_LISTED, listAtMost } from '../errors/index.ts';
import { SHEET_STRIDE, viewTable, type HiddenOption, type OpenedTable } from '../tables/index.ts';
import { staticLine, type ColumnMap, type MappedRecord, type MappingFile, type StaticLine } from '../mapping/index.ts';
import { withCellEdits, type CellEdit } from './cell-edits.ts';

/**
 * How an import reads the table it opened (docs/reading-rules.md): merged cells filled, hidden rows and
 * hidden columns the mapping reads as `--hidden` (or the mapping's `"hidden"`) says
 * (`tables/sheet-view.ts`). `numbers` are the kind's numeric columns.
 */
export async function viewForImport(table: OpenedTable, columns: ColumnMap, numbers: readonly string[], opts: { hidden?: HiddenOption; mapping?: MappingFile; cellEdits?: readonly CellEdit[] }): Promise<OpenedTable> {
  const used: number[] = [];
  const numeric = new Map<number, string>();
  for (const c of columns.columns()) {
    const index = columns.source(c)?.index ?? -1;
    if (index < 0) continue;
    used.push(index);
    if (numbers.includes(c)) numeric.set(index, c);
  }
  // Cells edited on the import page read as typed, at their own lines (cell-edits.ts).
  return withCellEdits(await viewTable(table, { hidden: opts.hidden ?? opts.mapping?.hidden, used, numeric }), opts.cellEdits);
}

/**
 * With `--sheet all`, a record key found in two sheets is a row error on each of its rows: two
 * sheets holding one estimate or bill are two revisions of it, and merging them would send
 * neither. `records` are complete (their rows all read); the others are kept.
 */
export function recordsAcrossSheets<R extends MappedRecord>(table: OpenedTable, records: R[]): { records: R[]; statics: StaticLine[] } {
  const { lineName } = table;
  if (lineName === undefined) return { records, statics: [] };
  const kept: R[] = [];
  const statics: StaticLine[] = [];
  for (const r of records) {
    const sheets = new Map<number, number[]>();
    for (const line of r.lines) {
      const k = Math.floor((line - 1) / SHEET_STRIDE);
      const lines = sheets.get(k);
      if (lines === undefined) sheets.set(k, [line]);
      else lines.push(line);
    }
    if (sheets.size <= 1) {
      kept.push(r);
      continue;
    }
    const where = [...sheets.values()].map((lines) => listAtMost(lines.slice(0, MAX_LISTED).map(lineName), lines.length)).join(' and ');
    for (const line of r.lines) statics.push(staticLine(line, r.label, 'invalid', [`${r.label} is in more than one sheet (rows ${where}): `, { kind: 'one-sheet-each' }]));
  }
  return { records: kept, statics };
}
