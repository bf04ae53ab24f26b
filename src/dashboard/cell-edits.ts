import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import type { ImportPlan } from '../import/index.ts';
import { cellText, ERROR_COLUMN, errorsFileColumnOf, SOURCE_LINE_COLUMN } from '../import-service/index.ts';
import { editWorkbookCells, openTable, SHEET_STRIDE, sheetLineName, type EncodingOption, type HeaderRule, type WorkbookCellEdit } from '../tables/index.ts';
import { PageError } from './http-errors.ts';
import type { Upload } from './upload-store.ts';

/** A cell edited in place on the page (`COLUMN line N`): the line as the check showed it (`Sheet!row` when every sheet was read). */
export interface CellEdit {
  line: number | string;
  header: string;
  value: string;
}

/**
 * The upload with the page's edits applied, written beside it; the edited copy then stands for
 * the upload. A CSV becomes an errors-file-shaped CSV (UTF-8, the original columns, then
 * `source_line`), so that every row keeps the line the report names and a bill without
 * `bill_ref` keeps its key (README, Reports, re-runs and `unknown`); `at` is its header row as
 * the check finds it (the copy starts at it: no title block, no footer). A workbook stays a
 * workbook in which only the edited cells change (`editWorkbookCells`): its rows keep their
 * sheet's line numbers, and every other cell reads as before. Cells of a workbook are found by
 * the header row and sheet(s) of the last check (`plan`), the rows the edits were typed in.
 */
export async function applyEdits(up: Pick<Upload, 'file' | 'dir' | 'name' | 'plan'>, edits: readonly CellEdit[], encoding: EncodingOption | undefined, at: { header?: HeaderRule; headerRow?: number } = {}): Promise<string> {
  for (const e of edits) {
    if ((typeof e?.line !== 'number' && typeof e?.line !== 'string') || typeof e.header !== 'string' || typeof e.value !== 'string') throw new PageError(400, 'malformed edit');
  }
  if (up.plan?.table?.kind === 'xlsx') return editWorkbook(up, up.plan.table, edits);
  const table = await openTable(up.file, { encoding, ...at });
  if (table.kind !== 'csv') throw new PageError(409, 'check the file first: its cells are edited in the rows the check shows');
  const byKey = new Map<string, string>();
  for (const e of edits) byKey.set(`${e.line}\u0000${e.header}`, e.value);
  let sourceLine = table.headers.findIndex((h) => errorsFileColumnOf(h) === SOURCE_LINE_COLUMN);
  const errorIndex = table.headers.findIndex((h) => errorsFileColumnOf(h) === ERROR_COLUMN);
  const headers = [...table.headers];
  if (sourceLine < 0) {
    sourceLine = headers.length;
    headers.push(SOURCE_LINE_COLUMN);
  }
  const out: string[][] = [headers];
  for await (const batch of table.batches()) {
    for (const row of batch) {
      const cells = headers.map((_, i) => cellText(row.values[i]));
      const line = i32(cells[sourceLine]) ?? row.line;
      cells[sourceLine] = String(line);
      if (errorIndex >= 0) cells[errorIndex] = '';
      table.headers.forEach((h, i) => {
        const v = byKey.get(`${line}\u0000${h}`);
        if (v !== undefined) cells[i] = v;
      });
      out.push(cells);
    }
  }
  const file = join(up.dir, `${up.name}.edited-${Date.now().toString(36)}.csv`);
  await writeFile(file, stringify(out, { delimiter: table.delimiter ?? ',' }), { mode: 0o600 });
  return file;
}

type TableFacts = NonNullable<ImportPlan['table']>;

/** A workbook with the edits made, each cell found by its header's column and its line's sheet and row. */
async function editWorkbook(up: Pick<Upload, 'file' | 'dir' | 'name'>, table: TableFacts, edits: readonly CellEdit[]): Promise<string> {
  const cells: WorkbookCellEdit[] = edits.map((e) => {
    const col = table.headers.indexOf(e.header) + 1;
    if (col === 0) throw new PageError(400, `the file has no column "${e.header}"; read the file again`);
    return { ...sheetRow(table, e.line), col, text: e.value };
  });
  const file = join(up.dir, `${up.name}.edited-${Date.now().toString(36)}.xlsx`);
  await editWorkbookCells(up.file, file, cells);
  return file;
}

/** The sheet and row of a line as the check named it: a row of the sheet read, or `Sheet!row` (or its number) of every sheet read. */
function sheetRow(table: TableFacts, line: number | string): { sheet: string; row: number } {
  const read = table.sheets?.read;
  if (read === undefined) {
    const row = typeof line === 'number' ? line : /^\d+$/.test(line) ? Number(line) : NaN;
    if (!(row >= 1) || table.sheet === undefined) throw new PageError(400, `line ${JSON.stringify(line)} is not a row of the sheet; check the file again`);
    return { sheet: table.sheet, row };
  }
  const name = sheetLineName(read);
  const row = typeof line === 'number' ? line : Number(/!(\d+)$/.exec(line)?.[1]);
  for (let k = 0; k < read.length; k++) {
    const at = typeof line === 'number' ? line : k * SHEET_STRIDE + row;
    if (Math.floor((at - 1) / SHEET_STRIDE) === k && (typeof line === 'number' || name(at) === line)) return { sheet: read[k]!, row: at - k * SHEET_STRIDE };
  }
  throw new PageError(400, `line ${JSON.stringify(line)} is not a row of the sheets read; check the file again`);
}

function i32(text: string | undefined): number | undefined {
  return text !== undefined && /^\d{1,9}$/.test(text) ? Number(text) : undefined;
}
