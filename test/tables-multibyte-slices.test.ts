import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, expect, it } from 'vitest';
import { openTable } from '../src/tables/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'buildsync-csv-slices-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The reader hands csv-parse each read in slices and decodes fields straight from csv-parse's
// field buffer: multi-byte characters and fields cut by a slice or read boundary, fields longer
// than the buffer's first size, and quoted line breaks must read exactly as csv-parse reads them.
it('reads multi-byte text, long fields and quoted line breaks across slice boundaries as csv-parse does', async () => {
  const words = ['Béton armé', 'Ölfarbe', '配管工事', 'emoji 🧱 brick', 'plain'];
  const lines = ['project_id,estimate_name,description'];
  for (let i = 0; i < 6000; i++) {
    const long = `${words[i % words.length]} `.repeat(1 + (i % 40));
    const description = i % 97 === 0 ? `"line one\nline two, ${long}"` : i % 11 === 0 ? `"quoted, ${long}"` : long.trim();
    lines.push(`${1000 + i},Estimate ${words[(i + 2) % words.length]} ${i},${description}`);
  }
  const text = `${lines.join('\n')}\n`;
  expect(Buffer.byteLength(text)).toBeGreaterThan(600 * 1024); // several reads, many slices
  const file = join(dir, 'multibyte.csv');
  writeFileSync(file, text);

  const expected = parse(text, { relax_quotes: true, skip_empty_lines: true }) as string[][];
  const table = await openTable(file);
  expect(table.headers).toEqual(expected[0]);
  const got: string[][] = [];
  for await (const batch of table.batches()) for (const row of batch) got.push(row.values as string[]);
  expect(got).toEqual(expected.slice(1));
});
