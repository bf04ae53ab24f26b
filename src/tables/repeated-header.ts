import type { CellValue, HeadRows, IgnoredLine, SourceRow } from './types.ts';
import { xlsxHeaderText } from './xlsx-cell.ts';

/**
 * A page header printed again (docs/reading-rules.md): an export printed to pages (Foundation's job cost
 * reports) repeats the header row, and the title lines above it, at the top of every page. A row
 * equal to the header row further down is `ignored` (`header`), and so are the rows directly above
 * it that equal lines of the title block; a row equal to a title line that no repeated header row
 * follows stays a row. Cells are compared as they show, spaces at either end aside.
 */
export async function* withoutRepeatedHeaders(batches: AsyncIterable<SourceRow[]>, head: HeadRows, headerLine: number, unit: 'line' | 'row', out: IgnoredLine[]): AsyncGenerator<SourceRow[]> {
  out.length = 0;
  const header = key(head.cells);
  const titles = new Set(head.above.map((r) => key(r.cells)));
  const message = `the header row printed again (the header row is ${unit} ${headerLine}): not part of the table`;
  // Most rows differ from the header row and every title line in their first cell: only the others are compared whole.
  const firsts = new Set([head.cells, ...head.above.map((r) => r.cells)].map((cells) => (cells[0] ?? '').trim()));
  /** Rows equal to a title line, held until the next row says whether they head a page. */
  let held: SourceRow[] = [];
  const candidate = (row: SourceRow): boolean => {
    const first = row.values[0];
    return firsts.has(typeof first === 'string' ? trimmed(first) : xlsxHeaderText(first ?? null).trim());
  };
  for await (const batch of batches) {
    // Most batches hold no row that could be a header or title line printed again: handed on as they are.
    if (held.length === 0) {
      let i = 0;
      while (i < batch.length && !candidate(batch[i]!)) i++;
      if (i === batch.length) {
        yield batch;
        continue;
      }
    }
    const kept: SourceRow[] = [];
    for (const row of batch) {
      const k = candidate(row) ? keyOfRow(row.values) : '';
      if (k === header) {
        for (const h of held) out.push({ line: h.line, reason: 'header', message });
        held = [];
        out.push({ line: row.line, reason: 'header', message });
        continue;
      }
      if (titles.has(k)) {
        held.push(row);
        continue;
      }
      if (held.length > 0) {
        for (const h of held) kept.push(h);
        held = [];
      }
      kept.push(row);
    }
    if (kept.length > 0) yield kept;
  }
  if (held.length > 0) yield held;
}

/** `s` without spaces at either end (the string itself when it has none, as most cells). */
function trimmed(s: string): string {
  return s.length > 0 && s.charCodeAt(0) > 32 && s.charCodeAt(s.length - 1) > 32 ? s : s.trim();
}

/** A row's cells as one comparable text: trailing empty cells and spaces at either end of a cell left out. */
function key(cells: readonly string[]): string {
  const trimmed = cells.map((c) => c.trim());
  while (trimmed.length > 0 && trimmed.at(-1) === '') trimmed.pop();
  return JSON.stringify(trimmed);
}

function keyOfRow(values: readonly CellValue[]): string {
  return key(values.map((v) => (typeof v === 'string' ? v : xlsxHeaderText(v ?? null))));
}
