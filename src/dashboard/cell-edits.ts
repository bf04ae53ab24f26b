import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { cellText, ERROR_COLUMN, errorsFileColumnOf, SOURCE_LINE_COLUMN } from '../import-service/index.ts';
import { openTable, type EncodingOption, type HeaderRule } from '../tables/index.ts';
import { PageError } from './http-errors.ts';
import type { Upload } from './upload-store.ts';

/** A cell edited in place on the page (`COLUMN line N`): the line as the check showed it. */
export interface CellEdit {
  line: number;
  header: string;
  value: string;
}

/**
 * A CSV upload with the page's edits applied, written beside it as an errors-file-shaped CSV
 * (the original columns, then `source_line`), so that every row keeps the line the report names
 * and a bill without `bill_ref` keeps its key (README, Reports, re-runs and `unknown`). `at`: the
 * header row as the check finds it (the copy starts at it: no title block, no footer).
 */
export async function applyEdits(up: Pick<Upload, 'file' | 'dir' | 'name'>, edits: readonly CellEdit[], encoding: EncodingOption | undefined, at: { header?: HeaderRule; headerRow?: number } = {}): Promise<string> {
  const table = await openTable(up.file, { encoding, ...at });
  if (table.kind !== 'csv') throw new PageError(400, 'cells can be edited in place in CSV files only; fix the workbook and read it again');
  const byKey = new Map<string, string>();
  for (const e of edits) {
    if (typeof e?.line !== 'number' || typeof e.header !== 'string' || typeof e.value !== 'string') throw new PageError(400, 'malformed edit');
    byKey.set(`${e.line}\u0000${e.header}`, e.value);
  }
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

function i32(text: string | undefined): number | undefined {
  return text !== undefined && /^\d{1,9}$/.test(text) ? Number(text) : undefined;
}
