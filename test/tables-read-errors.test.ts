import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileError, InterruptedError, RowError } from '../src/errors/index.ts';
import { openTable } from '../src/tables/index.ts';
import { failure } from './helpers/failure.ts';

const dir = mkdtempSync(join(tmpdir(), 'buildsync-csv-err-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string | Buffer): string {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

async function readAll(file: string): Promise<number> {
  const table = await openTable(file);
  let n = 0;
  for await (const _ of table.rows()) n++;
  return n;
}


describe('errors reading input files', () => {
  it('names a missing file and says to check the path', async () => {
    const file = join(dir, 'nope.csv');
    const err = await failure(openTable(file));
    expect(err).toBeInstanceOf(FileError);
    expect(err).toMatchObject({ code: 'BUILDSYNC_FILE_UNREADABLE', file });
    expect(err.message).toBe(`cannot read ${file}: there is no such file. Check the path (it is relative to the current directory).`);
  });

  it('refuses a directory', async () => {
    const sub = join(dir, 'folder.csv');
    mkdirSync(sub);
    const err = await failure(openTable(sub));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toMatch(/is a directory/);
  });

  it('refuses an empty file, asking for a header row', async () => {
    const file = write('empty.csv', '');
    const err = await failure(openTable(file));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toBe(`${file} is empty: the first line must be a header row naming the columns (e.g. project_id,estimate_name,category).`);
    const blank = write('blank.csv', '\r\n\r\n');
    expect((await failure(openTable(blank))).message).toMatch(/is empty/);
  });

  it('refuses a header row without names', async () => {
    const file = write('noheader.csv', ',,\n1,2,3\n');
    const err = await failure(openTable(file));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toMatch(/:1: the header row has no column names/);
  });

  it('reports an unclosed quote at the line where its record starts', async () => {
    const file = write('unclosed.csv', 'id,notes\n1,ok\n\n2,"never closed\n3,more\n4,end\n');
    const err = await failure(readAll(file));
    expect(err).toBeInstanceOf(RowError);
    expect(err).toMatchObject({ code: 'BUILDSYNC_ROW_INVALID', file, line: 4 });
    expect(err.message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4 column 2 \\("notes"\\): a quoted field is opened here and never closed`));
  });

  it('reports a row with more or fewer fields than the header, at its start line', async () => {
    const file = write('count.csv', 'id,notes,qty\n1,"a\nb",2\n2,$1,234.50,3\n');
    const err = await failure(readAll(file));
    expect(err).toBeInstanceOf(RowError);
    expect(err).toMatchObject({ line: 4 });
    expect(err.message).toBe(`${file}:4: this row has 4 fields but the header has 3. Quote any value that contains the delimiter "," (as "1,234.50"), and make every row have one value per header.`);
    const short = write('short.csv', 'a;b;c\n1;2;3\n1;2\n');
    const err2 = await failure(readAll(short));
    expect(err2).toMatchObject({ line: 3 });
    expect(err2.message).toMatch(/has 2 fields but the header has 3\. Quote any value that contains the delimiter ";"/);
  });

  it('reports a quote left open in the header line, even in a long file', async () => {
    const file = write('header-quote.csv', 'id,"notes\n' + '1,2\n'.repeat(200_000));
    const err = await failure(openTable(file));
    expect(err).toBeInstanceOf(RowError);
    expect(err).toMatchObject({ line: 1 });
    expect(err.message).toMatch(/:1 column 2: a quoted field is opened here and never closed/);
  });

  it('stops at a row of more than 1 MiB (a quote left open in a longer file) without reading on', async () => {
    const file = write('header-quote-long.csv', 'id,"notes\n' + '1,2\n'.repeat(400_000));
    const err = await failure(openTable(file));
    expect(err).toBeInstanceOf(RowError);
    expect(err).toMatchObject({ line: 1 });
    expect(err.message).toMatch(/:1: this row is longer than 1 MiB.*is a quote left open/);
  });

  it('refuses an old .xls workbook and --sheet on a CSV', async () => {
    const xls = write('old.xls', 'whatever');
    expect((await failure(openTable(xls))).message).toMatch(/old-style \.xls workbook.*Save it as \.xlsx/);
    const csv = write('plain.csv', 'a\n1\n');
    const err = await failure(openTable(csv, { sheet: 'Sheet1' }));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toMatch(/--sheet applies to \.xlsx workbooks only/);
  });

  it('stops between chunks when the signal aborts', async () => {
    const file = write('long.csv', 'a,b\n' + '1,2\n'.repeat(200_000));
    const controller = new AbortController();
    const table = await openTable(file, { signal: controller.signal });
    let n = 0;
    const err = await failure(
      (async () => {
        for await (const batch of table.batches()) {
          n += batch.length;
          controller.abort();
        }
      })(),
    );
    expect(err).toBeInstanceOf(InterruptedError);
    expect(n).toBeLessThan(200_000);
  });
});
