import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openTable } from '../src/tables/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'buildsync-csv-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function lines(name: string, content: string) {
  const file = join(dir, name);
  writeFileSync(file, content);
  const table = await openTable(file);
  const rows: [number, string][] = [];
  for await (const row of table.rows()) rows.push([row.line, String(row.values[0])]);
  return { table, rows };
}

describe('line numbers of rows', () => {
  it('gives each record the physical line it starts on, after multi-line quoted fields (LF)', async () => {
    const { table, rows } = await lines('lf.csv', 'id,notes\n1,"two\nlines"\n2,"three\nline\nnote"\n3,plain\n');
    expect(table.headerLine).toBe(1);
    expect(rows).toEqual([[2, '1'], [4, '2'], [7, '3']]);
  });

  it('counts a CRLF inside a quoted field as one line break', async () => {
    const { rows } = await lines('crlf.csv', 'id,notes\r\n1,"two\r\nlines"\r\n2,"three\r\nline\r\nnote"\r\n3,plain\r\n');
    expect(rows).toEqual([[2, '1'], [4, '2'], [7, '3']]);
  });

  it('counts old Mac CR line endings', async () => {
    const { rows } = await lines('cr.csv', 'id,notes\r1,"a\rb"\r2,c\r');
    expect(rows).toEqual([[2, '1'], [4, '2']]);
  });

  it('skips blank lines and rows of empty cells but keeps counting them', async () => {
    const { table, rows } = await lines('blank.csv', '\nid,notes\n1,a\n\n\n,\n2,"x\n\ny"\n\n3,z');
    expect(table.headerLine).toBe(2);
    expect(rows).toEqual([[3, '1'], [7, '2'], [11, '3']]);
  });

  it('hands out the same rows through batches() and on a second pass', async () => {
    const content = 'id,n\n' + Array.from({ length: 30_000 }, (_, i) => `${i},"line\n${i}"`).join('\n') + '\n';
    const file = join(dir, 'many.csv');
    writeFileSync(file, content);
    const table = await openTable(file);
    let count = 0;
    let lastLine = 0;
    for await (const batch of table.batches()) {
      expect(batch.length).toBeGreaterThan(0);
      for (const row of batch) {
        expect(row.line).toBe(2 + 2 * count);
        count++;
        lastLine = row.line;
      }
    }
    expect(count).toBe(30_000);
    expect(lastLine).toBe(60_000);
    let again = 0;
    for await (const _ of table.rows()) again++;
    expect(again).toBe(30_000);
  });
});
