import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileError } from '../src/errors/index.ts';
import { openTable } from '../src/tables/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'buildsync-csv-enc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const text = 'category,description,unit_cost\r\nCafé,Crème brûlée € 5,"1,234.50"\r\nPlain,ascii only,3\r\n';
const expectedRows = [
  { line: 2, values: ['Café', 'Crème brûlée € 5', '1,234.50'] },
  { line: 3, values: ['Plain', 'ascii only', '3'] },
];

function utf16be(s: string): Buffer {
  const le = Buffer.from(s, 'utf16le');
  const be = Buffer.alloc(le.length);
  for (let i = 0; i < le.length; i += 2) {
    be[i] = le[i + 1]!;
    be[i + 1] = le[i]!;
  }
  return be;
}

/** Windows-1252 bytes of text made of Latin-1 letters and €. */
function cp1252(s: string): Buffer {
  return Buffer.from(Array.from(s, (c) => (c === '€' ? 0x80 : c.charCodeAt(0))));
}

async function readFile(name: string, bytes: Buffer) {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  const table = await openTable(file);
  const rows = [];
  for await (const row of table.rows()) rows.push(row);
  return { table, rows };
}

describe('reading CSV in each accepted encoding', () => {
  const cases: [string, string, Buffer][] = [
    ['utf-8', 'utf8.csv', Buffer.from(text, 'utf8')],
    ['utf-8-bom', 'utf8-bom.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')])],
    ['utf-16le', 'utf16le.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
    ['utf-16be', 'utf16be.csv', Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(text)])],
    ['windows-1252', 'cp1252.csv', cp1252(text)],
  ];
  for (const [encoding, name, bytes] of cases) {
    it(`decodes ${encoding} with é and € intact, and reports the encoding`, async () => {
      const { table, rows } = await readFile(name, bytes);
      expect(table.encoding).toBe(encoding);
      expect(table.headers).toEqual(['category', 'description', 'unit_cost']);
      expect(rows).toEqual(expectedRows);
    });
  }

  it('detects Windows-1252 when the first non-ASCII byte comes after many ASCII chunks', async () => {
    const filler = 'Plain,ascii only,3\n'.repeat(40_000); // ~760 KB, several read chunks
    const { table, rows } = await readFile('late-1252.csv', cp1252(`category,description,unit_cost\n${filler}Café,€,1\n`));
    expect(table.encoding).toBe('windows-1252');
    expect(rows).toHaveLength(40_001);
    expect(rows.at(-1)).toEqual({ line: 40_002, values: ['Café', '€', '1'] });
  });

  it('keeps a UTF-8 character split across read chunks whole', async () => {
    // 'é' straddles the first 256 KB chunk boundary (rows of 12 bytes, then 11 x's and 'é').
    const filler = 'xxxxxxxxx,1\n'.repeat(21_844);
    const { table, rows } = await readFile('split.csv', Buffer.from(`a,b\n${filler}xxxxxxxxxxxé,1\n`, 'utf8'));
    expect(Buffer.byteLength(`a,b\n${filler}xxxxxxxxxxx`)).toBe(256 * 1024 - 1);
    expect(table.encoding).toBe('utf-8');
    expect(rows.at(-1)!.values[0]).toBe('xxxxxxxxxxxé');
  });

  it('refuses a file whose UTF-8 text is followed by invalid bytes, naming the fix', async () => {
    const bytes = Buffer.concat([Buffer.from('a,b\nCafé,1\n' + 'p,q\n'.repeat(100_000), 'utf8'), Buffer.from([0x80, 0x2c, 0x31, 0x0a])]);
    const file = join(dir, 'mixed.csv');
    writeFileSync(file, bytes);
    const table = await openTable(file);
    const read = async () => {
      for await (const _ of table.batches()) {
        // drain
      }
    };
    await expect(read()).rejects.toThrow(FileError);
    await expect(read()).rejects.toThrow(/mixes encodings.*save it again as "CSV UTF-8"/);
  });

  it('reads UTF-16 LE and BE without a byte order mark by the pattern of their zero bytes', async () => {
    const le = await readFile('utf16le-nobom.csv', Buffer.from(text, 'utf16le'));
    expect(le.table.encoding).toBe('utf-16le');
    expect(le.rows).toEqual(expectedRows);
    const be = await readFile('utf16be-nobom.csv', utf16be(text));
    expect(be.table.encoding).toBe('utf-16be');
    expect(be.rows).toEqual(expectedRows);
  });

  it('still refuses NUL bytes that are no UTF-16 pattern, naming line and column', async () => {
    const file = join(dir, 'nul.csv');
    writeFileSync(file, Buffer.from('a,b\r\nx\u0000y,1\r\n', 'latin1'));
    await expect(openTable(file)).rejects.toThrow(`${file}:2 column 2: a NUL byte, which no text holds (at byte offset 6). It is not a text CSV file there: a binary file, or a damaged cell. Save it as "CSV UTF-8" or as .xlsx, or delete that character.`);
  });
});
