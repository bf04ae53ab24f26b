import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMappingFile } from '../src/mapping/index.ts';
import { openTable } from '../src/tables/index.ts';
import { decideSingleByte, readsPlausibly } from '../src/tables/encoding-evidence.ts';
import { decodeBytes, isEncodingOption } from '../src/tables/encodings.ts';
import { runCli } from './helpers/cli.ts';

// docs/reading-rules.md, "Files": a file that is not UTF-8 is read in the single-byte encoding its
// text reads plausibly in (Windows-1252 first, then Windows-1250 or Mac Roman alone), or stops.

const dir = mkdtempSync(join(tmpdir(), 'buildsync-enc-evidence-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The bytes of `s` in a single-byte encoding (every character must have one). */
function bytesIn(encoding: string, s: string): Buffer {
  const map = new Map<string, number>();
  for (let b = 0x80; b < 0x100; b++) map.set(decodeBytes(encoding, Uint8Array.of(b)), b);
  return Buffer.from(Array.from(s, (c) => (c.charCodeAt(0) < 0x80 ? c.charCodeAt(0) : map.get(c)!)));
}

describe('what reads plausibly', () => {
  it.each([
    ['Termin płatności', true],
    ['Rénovation café', true],
    ['ÉCOLE MATERNELLE, GRÖSSE', true],
    ['l’École, don’t, Lyon–Paris, col·lecció', true],
    ['50 m², 45°C, Nº 5', true],
    ['Termin p³atnoœci', false], // a symbol inside a word
    ['RŽnovation cafŽ', false], // a capital inside a word of small letters
    ['cafÈ', false],
    ['M‰rz', false],
    ['Caf\u008de', false], // a C1 control
  ])('%j: %s', (text, plausible) => {
    expect(readsPlausibly(text)).toBe(plausible);
  });
});

describe('the encoding of bytes that are not UTF-8', () => {
  it('a German text reads the same in Windows-1252 and Windows-1250: Windows-1252, no stop', () => {
    const german = bytesIn('windows-1252', 'Fällig;Fliesenkleber für Bad;Größe;Straße');
    expect(decodeBytes('windows-1250', german)).toBe(decodeBytes('windows-1252', german));
    expect(decideSingleByte(german)).toEqual({ encoding: 'windows-1252' });
  });

  it('Spanish in Windows-1252 is Windows-1252, though Windows-1250 reads "ñ" as a letter too', () => {
    expect(decideSingleByte(bytesIn('windows-1252', 'Reforma baño;Albañilería;Fontanería'))).toEqual({ encoding: 'windows-1252' });
  });

  it('Polish in Windows-1250 is Windows-1250 ("p³atnoœci" in 1252, "p≥atnoúci" in Mac Roman)', () => {
    expect(decideSingleByte(bytesIn('windows-1250', 'Termin płatności;Ilość'))).toEqual({ encoding: 'windows-1250' });
  });

  it('French in Mac Roman is Mac Roman ("RŽnovation" in 1252 and 1250)', () => {
    expect(decideSingleByte(bytesIn('macintosh', 'Rénovation café;Démolition'))).toEqual({ encoding: 'macintosh' });
  });

  it('several plausible: the readings of the first word they differ in', () => {
    const bytes = bytesIn('macintosh', 'Dumpster,"Benne, où possible"');
    expect(decideSingleByte(bytes)).toEqual({ readings: [{ encoding: 'windows-1250', word: 'oť' }, { encoding: 'macintosh', word: 'où' }], plausible: true, at: 17 });
  });
});

describe('a file that mixes encodings stops at the first byte that does not fit', () => {
  it('Mac Roman text, then UTF-8: names the line and column of the UTF-8 byte and the encoding read', async () => {
    const file = join(dir, 'mac-then-utf8.csv');
    writeFileSync(file, Buffer.concat([bytesIn('macintosh', 'a,b\rRénovation,1\r'), Buffer.from('Café,2\r', 'utf8')]));
    await expect(openTable(file)).rejects.toThrow(
      `${file}:3 column 4: a UTF-8 sequence after Mac Roman text (byte 0xC3 at offset 20): the file mixes encodings (UTF-8 and Mac Roman), so some text would be read wrong. ` +
        'Open it in a spreadsheet and save it again as "CSV UTF-8", or fix that character; --encoding utf8 or cp1252 forces one reading.',
    );
  });
});

describe('--encoding takes any WHATWG label but the replacement encoding\'s', () => {
  it.each([
    ['auto', true], ['utf8', true], ['utf16le', true], ['utf16be', true], ['cp1252', true],
    ['windows-1250', true], ['macintosh', true], ['x-mac-roman', true], ['shift_jis', true], ['gb18030', true],
    ['replacement', false], ['iso-2022-kr', false], ['latin-9000', false], ['', false],
  ])('%j: %s', (label, known) => {
    expect(isEncodingOption(label)).toBe(known);
  });

  it('reads a Shift_JIS file with --encoding shift_jis', async () => {
    const table = await openTable(join(import.meta.dirname, 'fixtures', 'reading', 'excel-ja-mitsumori.csv'), { encoding: 'shift_jis' });
    const rows = [];
    for await (const r of table.rows()) rows.push(r.values);
    expect(table.encoding).toBe('shift_jis');
    expect(rows).toEqual([
      ['1042', '台所改修', '解体', '人工', '作業員', '１２．５', '人日', '６４０', '－５０'],
      ['1042', '台所改修', '解体', '処分', 'コンテナ', '１', '式', '１２５０', ''],
    ]);
  });

  it('the mapping file\'s "encoding" refuses a label that names no encoding', () => {
    expect(() => parseMappingFile({ encoding: 'iso-2022-kr' }, 'map.json')).toThrow(
      'encoding "iso-2022-kr" is no encoding buildsync reads; give auto, utf8, utf16le, utf16be, cp1252, or a WHATWG encoding label such as windows-1250, macintosh or shift_jis',
    );
    expect(parseMappingFile({ encoding: 'windows-1250' }, 'map.json').encoding).toBe('windows-1250');
  });

  it('the CLI refuses an unknown label before reading anything (exit 2)', async () => {
    const run = await runCli(['import', 'estimates', 'none.csv', '--encoding', 'latin-9000', '--dry-run'], { REDIS_URL: 'redis://127.0.0.1:1' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('"latin-9000" is no encoding buildsync reads; give auto, utf8, utf16le, utf16be, cp1252, or a WHATWG encoding label such as windows-1250, macintosh or shift_jis');
  });
});
