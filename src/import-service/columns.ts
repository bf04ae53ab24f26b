/**
 * The import page's cells and rows: a cell as the page shows it, and the rows the check shows.
 * (Reading an upload and matching its columns: page-reading.ts; a saved mapping: saved-mapping.ts.)
 */
import { ERROR_COLUMN, errorsFileColumnOf, normalizeHeader, SOURCE_LINE_COLUMN, type MappingFile } from '../mapping/index.ts';
import { withCellEdits, type CellEdit } from '../import/index.ts';
import { openTable, type DelimiterOption, type EncodingOption, type HeaderRule } from '../tables/index.ts';

export { ERROR_COLUMN, errorsFileColumnOf, normalizeHeader, SOURCE_LINE_COLUMN, type MappingFile };

/** Rows and records the check shows (every invalid row besides). */
export const SHOWN_ROWS = 200;

/** A cell as the page shows and edits it: a date as YYYY-MM-DD. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return String(v);
}

/** How the check read the file: its sheet, encoding, delimiter, header row (and the rule it was found by), and the cells edited on the page. */
export interface ShownRowsReading {
  sheet?: string;
  encoding?: EncodingOption;
  delimiter?: DelimiterOption;
  header?: HeaderRule;
  headerRow?: number;
  cellEdits?: readonly CellEdit[];
}

/**
 * The first rows of the file (and every invalid one), by the line the report uses: the row's
 * physical line (`Sheet!row` when every sheet of a workbook is read), or an errors file's own
 * `source_line`; the cells edited on the page as typed. The errors file's own columns are not
 * shown. No title or footer is shown as a row (they are the check's ignored lines).
 */
export async function rowsOf(file: string, invalidLines: Set<number>, at: ShownRowsReading = {}) {
  const { cellEdits, ...open } = at;
  const table = withCellEdits(await openTable(file, open), cellEdits);
  const sourceLine = table.headers.findIndex((h) => errorsFileColumnOf(h) === SOURCE_LINE_COLUMN);
  const keep = table.headers.map((_, i) => i).filter((i) => errorsFileColumnOf(table.headers[i]!) === undefined);
  const shown: Array<{ line: number | string; cells: string[] }> = [];
  for await (const batch of table.batches()) {
    for (const row of batch) {
      const line = sourceLine >= 0 && /^\d+$/.test(cellText(row.values[sourceLine])) ? Number(cellText(row.values[sourceLine])) : row.line;
      if (shown.length >= SHOWN_ROWS && !invalidLines.has(line)) continue;
      shown.push({ line: table.lineName?.(line) ?? line, cells: keep.map((i) => cellText(row.values[i])) });
    }
  }
  return { headers: keep.map((i) => table.headers[i]!), shown };
}
