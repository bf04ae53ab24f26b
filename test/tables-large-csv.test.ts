/**
 * Reading a 200,000-row CSV streams: every row with its line, the heap flat.
 *
 * @scale: whole suite only (not `npm run test:quick`).
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTable } from '../src/tables/index.ts';

// Streams a generated 200,000-row estimate CSV and compares with raw csv-parse (`columns: true`)
// on the same file. The figures are printed for the record, not asserted: the machine is shared,
// so timings vary too much to gate a test on.
const ROWS = 200_000;
const dir = mkdtempSync(join(tmpdir(), 'buildsync-csv-large-'));
const file = join(dir, 'large.csv');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const out = createWriteStream(file);
  out.write('project_id,estimate_name,category,subcategory,item,description,unit,qty,unit_cost,markup_name,notes_general\n');
  let chunk = '';
  for (let i = 0; i < ROWS; i++) {
    chunk += `${1000 + (i % 500)},Estimate ${i % 500},Category ${i % 7},Sub ${i % 13},Item ${i},"Description, with comma ${i}",ea,${i % 17}.5,"$1,${String(i % 1000).padStart(3, '0')}.25",,General notes for this line\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      chunk = '';
    }
  }
  await new Promise((resolve) => out.end(chunk, () => resolve(undefined)));
});

describe('reading a large CSV', () => {
  it('streams every row with its line number and stays near raw csv-parse speed', async () => {
    const cpuMs = (): number => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    const rawCpu = cpuMs();
    const rawStart = performance.now();
    let rawRows = 0;
    for await (const _ of createReadStream(file).pipe(parse({ columns: true }))) rawRows++;
    const rawMs = performance.now() - rawStart;
    const rawCpuMs = cpuMs() - rawCpu;

    const heapBefore = process.memoryUsage().heapUsed;
    let peakHeap = heapBefore;
    const cpuStart = cpuMs();
    const start = performance.now();
    const table = await openTable(file);
    let rows = 0;
    let lineSum = 0;
    for await (const batch of table.batches()) {
      for (let i = 0; i < batch.length; i++) {
        rows++;
        lineSum += batch[i]!.line;
      }
      peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    }
    const ms = performance.now() - start;
    const ourCpuMs = cpuMs() - cpuStart;

    expect(rawRows).toBe(ROWS);
    expect(rows).toBe(ROWS);
    expect(lineSum).toBe((ROWS * (ROWS + 1)) / 2 + ROWS); // lines 2 … ROWS+1
    // Streaming: the reader never holds the file (~26 MB of text, far more as row objects).
    expect(peakHeap - heapBefore).toBeLessThan(64 * 1024 * 1024);
    console.log(
      `[tables-large-csv] ${ROWS} rows: raw csv-parse ${Math.round(rawMs)} ms (${Math.round((ROWS / rawMs) * 1000)} rows/s), ` +
        `openTable batches ${Math.round(ms)} ms (${Math.round((ROWS / ms) * 1000)} rows/s), ratio ${(rawMs / ms).toFixed(2)}; ` +
        `CPU time raw ${Math.round(rawCpuMs)} ms, ours ${Math.round(ourCpuMs)} ms, ratio ${(rawCpuMs / ourCpuMs).toFixed(2)}`,
    );
  });
});
