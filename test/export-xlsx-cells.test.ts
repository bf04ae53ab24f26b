/** The .xlsx sheet's cell rules that need no service (issue 27): date serials and text escapes. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { writeFileAtomically } from '../src/atomic-file.ts';
import { openXlsxFile } from '../src/export/xlsx/xlsx-file.ts';
import { openTable } from '../src/tables/index.ts';
import { columnLetter } from '../src/values/index.ts';
import { excelSerial, SheetRows, textCellXml } from '../src/export/xlsx/sheet-rows.ts';
import { xmlText } from '../src/export/xlsx/xml-text-bytes.ts';

const serialOf = (iso: string) => (Date.parse(`${iso}Z`) - Date.UTC(1899, 11, 30)) / 86_400_000;

it('reads an ISO date-time without a zone as the wall-clock time it names', () => {
  expect(excelSerial('2024-03-05T14:22:11')).toBeCloseTo(serialOf('2024-03-05T14:22:11'), 10);
  expect(excelSerial('2024-03-05T14:22:11.37')).toBeCloseTo(serialOf('2024-03-05T14:22:11.370'), 10);
  expect(excelSerial('2024-03-05 14:22')).toBeCloseTo(serialOf('2024-03-05T14:22:00'), 10);
  expect(excelSerial('2024-02-29T10:00:00')).toBeCloseTo(serialOf('2024-02-29T10:00:00'), 10);
  // Excel's own serial of 1900-03-01 is 61 (its 1900 has a 29 February).
  expect(excelSerial('1900-03-01T00:00:00')).toBe(61);
  // Before it, serials count as Excel shows them: 1900-01-01 is 1, 1900-02-28 is 59 (60 is Excel's 1900-02-29).
  expect(excelSerial('1900-01-01T00:00:00')).toBe(1);
  expect(excelSerial('1900-02-28T00:00:00')).toBe(59);
  expect(excelSerial('1900-02-28T12:00:00')).toBe(59.5);
  expect(excelSerial('2026-11-26T00:00:00')).toBe(46_352);
});

it('leaves as text what is not such a date-time', () => {
  for (const text of ['2023-02-29T10:00:00', '2026-02-30T00:00:00', '2024-03-05T24:00:00', '2024-03-05T14:60', '2024-03-05T14:22:1', '2024-03-05T14:22:11.', '2024-03-05', '2024-03-05T14:22:11Z', '2024-03-05T14:22:11+01:00', '1899-12-31T23:59:59', '1900-02-29T00:00:00', 'soon']) {
    expect(excelSerial(text), text).toBeUndefined();
  }
});

it('escapes markup, control characters, CR and _xHHHH_ look-alikes; lone surrogates become U+FFFD', () => {
  expect(xmlText('plain')).toBe('plain');
  expect(xmlText('<p>a & b</p>')).toBe('&lt;p&gt;a &amp; b&lt;/p&gt;');
  expect(xmlText('a\r\nb\tc\u0001')).toBe('a_x000D_\nb\tc_x0001_');
  expect(xmlText('keep _x0041_ as typed')).toBe('keep _x005F_x0041_ as typed');
  expect(xmlText('bad \uD800 pair, good 🏗')).toBe('bad \uFFFD pair, good 🏗');
});

it('names columns as Excel does', () => {
  expect([1, 26, 27, 52, 53, 65, 702, 703, 16_384].map(columnLetter)).toEqual(['A', 'Z', 'AA', 'AZ', 'BA', 'BM', 'ZZ', 'AAA', 'XFD']);
});

it('writes a row\'s text cells byte for byte as the string escaper does', () => {
  const sheet = new SheetRows();
  const texts = ['plain', '<p>a & b</p>', 'a\r\nb', 'tab\there', ' padded ', 'keep _x0041_ as typed', '_x12', 'Müller — 東京 🏗', 'bad \uD800 pair', 'lone \uDC00', '\uFFFE\uFFFF', 'ctl \u0001\u001F', 'x'.repeat(5000) + '&', 'Long clean text — ü, 東京 and more words '.repeat(10), 'Long text with a\nline break '.repeat(10), ' long padded text '.repeat(10)];
  for (const text of texts) {
    const xml = sheet.row({ ID: 1, NAME: text }).toString('utf8');
    expect(xml, JSON.stringify(text)).toContain(`<c><v>1</v></c>${textCellXml(text)}<c/>`);
  }
});

it('a date the writer writes is the date the reader reads, before 1900-03-01 too (serials as Excel counts them)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'buildsync-serial-round-trip-'));
  try {
    const path = join(dir, 'projects.xlsx');
    const sheet = new SheetRows();
    const xlsx = await openXlsxFile(await writeFileAtomically(path), sheet);
    const dates = ['1900-01-01T00:00:00', '1900-02-28T12:30:00', '1900-03-01T00:00:00', '2026-11-26T08:15:42', '1899-12-31T00:00:00'];
    for (const [i, LMOD] of dates.entries()) await xlsx.write(Buffer.from(sheet.row({ ID: i + 1, LMOD })));
    await xlsx.commit();
    const table = await openTable(path);
    const lmod = table.headers.indexOf('LMOD');
    const read: unknown[] = [];
    for await (const row of table.rows()) read.push(row.values[lmod]);
    // 1899-12-31 is no day Excel shows (its serial would be 0): written as text, read as the text.
    expect(read).toEqual([...dates.slice(0, 4).map((d) => new Date(`${d}Z`)), '1899-12-31T00:00:00']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
