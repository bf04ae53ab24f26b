import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsFileChunks, errorsFileSource, planEstimates } from '../src/import/index.ts';
import { ERRORS_FILE_COLUMNS, ESTIMATE_COLUMNS, errorsFileColumnOf, resolveColumns } from '../src/mapping/index.ts';

// The errors file's own columns are named once (mapping/header.ts): the file written with them
// is read back with them, and the import page leaves out the same ones.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'buildsync-errors-columns-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the errors file columns', () => {
  it('are recognised however the header is written, and nothing else is', () => {
    for (const column of ERRORS_FILE_COLUMNS) {
      expect(errorsFileColumnOf(column)).toBe(column);
      expect(errorsFileColumnOf(` ${column.toUpperCase().replace('_', ' ')} `)).toBe(column);
    }
    for (const other of ['line', 'errors', 'source', 'description']) expect(errorsFileColumnOf(other)).toBeUndefined();
    const cols = resolveColumns(['project_id', 'estimate_name', ...ERRORS_FILE_COLUMNS], ESTIMATE_COLUMNS, undefined, 'fix.csv');
    expect([cols.sourceLineIndex, cols.errorIndex]).toEqual([2, 3]);
  });

  it('end the errors file, which imports again with them recognised', async () => {
    const file = path.join(dir, 'estimates.csv');
    await writeFile(file, 'project_id,estimate_name,category,qty\r\n1042,Kitchen,Cabinets,lots\r\n1042,Kitchen,,3\r\n');
    const plan = await planEstimates(file, {});
    const toFix = new Map(plan.statics.map((s) => [s.line, s.message]));
    expect(toFix.size).toBe(2);
    let text = '';
    for await (const chunk of errorsFileChunks(errorsFileSource(plan, file, {}), toFix)) text += chunk.text;
    const rows = parse(text.slice(1)) as string[][];
    expect(rows[0]!.slice(-ERRORS_FILE_COLUMNS.length)).toEqual([...ERRORS_FILE_COLUMNS]);

    const errorsFile = path.join(dir, 'estimates.errors.csv');
    await writeFile(errorsFile, text);
    const again = await planEstimates(errorsFile, {});
    expect([again.table!.sourceLineIndex, again.table!.errorIndex]).toEqual([4, 5]);
    expect(again.statics.map((s) => s.line)).toEqual([2, 3]);
  });
});
