/**
 * Cells edited in place (the import page's `COLUMN line N` textboxes): an overlay on the rows as
 * they are read, never a copy of the file. The file keeps its title block, its footer and every
 * line number; only the edited cells read otherwise, as text typed in them (a CSV's cell, an
 * .xlsx cell as an inline string). A plan, a dry run, the rows the page shows and the rows to fix
 * all read the file through the same overlay, so that each row is named by its physical line
 * however often the file is checked again.
 */
import type { OpenedTable, SourceRow } from '../tables/index.ts';

/** One edited cell: the line as the check named it (`Sheet!row` when every sheet was read), the header as the file writes it, the text typed. */
export interface CellEdit {
  line: number | string;
  header: string;
  value: string;
}

/**
 * `table` with `edits` made as its rows are read (`rows()`, `batches()`); everything else of the
 * table (titles, footers, hidden lines, read once the rows are) is the table's own. An edit naming
 * a header the table lacks, or a line it has no row at, changes nothing.
 */
export function withCellEdits(table: OpenedTable, edits: readonly CellEdit[] | undefined): OpenedTable {
  if (edits === undefined || edits.length === 0) return table;
  const byLine = new Map<string, Array<[number, string]>>();
  for (const e of edits) {
    const index = table.headers.indexOf(e.header);
    if (index < 0) continue;
    const key = String(e.line);
    const at = byLine.get(key) ?? [];
    // The last edit of a cell wins.
    const same = at.findIndex(([i]) => i === index);
    if (same >= 0) at.splice(same, 1);
    at.push([index, e.value]);
    byLine.set(key, at);
  }
  if (byLine.size === 0) return table;
  const name = table.lineName;
  const empty = table.kind === 'xlsx' ? null : '';
  const edit = (row: SourceRow): SourceRow => {
    const at = byLine.get(name === undefined ? String(row.line) : name(row.line)) ?? (name === undefined ? undefined : byLine.get(String(row.line)));
    if (at === undefined) return row;
    const values = [...row.values];
    const formats = row.formats === undefined ? undefined : [...row.formats];
    for (const [i, v] of at) {
      values[i] = v === '' ? empty : v;
      if (formats !== undefined) formats[i] = undefined;
    }
    // An edited cell is no longer a formula summing the rows above.
    const sums = row.sums?.filter((i) => !at.some(([e]) => e === i));
    return { ...row, values, ...(formats === undefined ? {} : { formats }), ...(row.sums === undefined ? {} : { sums: sums!.length > 0 ? sums : undefined }) };
  };
  return new Proxy(table, {
    get(target, prop) {
      if (prop === 'batches') {
        return async function* (): AsyncGenerator<SourceRow[]> {
          for await (const batch of target.batches()) yield batch.map(edit);
        };
      }
      if (prop === 'rows') {
        return async function* (): AsyncGenerator<SourceRow> {
          for await (const row of target.rows()) yield edit(row);
        };
      }
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
