/**
 * Cells edited on the import page, read over the file as it is (src/import/cell-edits.ts): the
 * plan reads the typed text at the row's physical line, the title block and the footer stay
 * ignored lines with their own numbers, and the rows to fix hold a row still invalid as it was
 * typed. In process, a real file in a temp dir.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { errorsFileChunks, errorsFileSource, planBills } from '../src/import/index.ts';

const work = mkdtempSync(join(tmpdir(), 'bs-cell-edits-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('cells edited over the file', () => {
  it('are read at their physical lines; a row still invalid goes to the rows to fix as typed', async () => {
    const file = join(work, 'bills.csv');
    writeFileSync(file, 'Bills to enter\r\n\r\nbill_ref,project_id,vendor_id,item_name,rate\r\nE-1,7,55,Gravel,1O.00\r\nE-2,7,55,Sand,x\r\nE-3,7,55,Stone,3.00\r\n\r\nPrinted by Pat\r\n');
    const cellEdits = [{ line: 4, header: 'rate', value: '10.00' }, { line: 5, header: 'rate', value: 'five' }];
    const plan = await planBills(file, { cellEdits });
    expect(plan.records.map((r) => [r.lines, JSON.parse(r.payloadJson ?? JSON.stringify(r.payload)).ITEMS?.[0]?.RATE ?? null])).toEqual([[[4], '10.00'], [[6], '3.00']]);
    expect(plan.statics.map((s) => [s.line, s.status])).toEqual([[1, 'ignored'], [5, 'invalid'], [8, 'ignored']]);
    const source = errorsFileSource(plan, file, { cellEdits });
    let text = '';
    for await (const chunk of errorsFileChunks(source, new Map([[5, 'bad rate']]))) text += chunk.text;
    expect(text.replace(/^\uFEFF/, '').split(/\r?\n/).filter((l) => l !== '')).toEqual(['bill_ref,project_id,vendor_id,item_name,rate,source_line,error', 'E-2,7,55,Sand,five,5,bad rate']);
  });
});
