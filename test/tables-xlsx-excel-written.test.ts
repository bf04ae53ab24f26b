import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { openTable, UnreadableCell, type CellValue, type SourceRow } from '../src/tables/index.ts';
import { FileError, RowError } from '../src/errors/index.ts';
import { STYLE, excelParts, writeExcelXlsx, xmlEscape, zip, type ExcelWorkbook } from './helpers/excel-xml.ts';
import { failure } from './helpers/failure.ts';

/*
 * Workbooks written the way Excel writes them (test/helpers/excel-xml.ts), read through
 * openTable: each cell keeps the type Excel gave it, and a cell with no readable value is an
 * UnreadableCell (docs/reading-rules.md), never empty and never its text.
 */

const dir = mkdtempSync(join(tmpdir(), 'buildsync-excel-xml-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;

/** A full garbage collection, to measure what the reader retains (not what it has yet to free). */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
function book(workbook: ExcelWorkbook): string {
  const file = join(dir, `book-${++n}.xlsx`);
  writeExcelXlsx(file, workbook);
  return file;
}

async function readAll(file: string, sheet?: string) {
  const table = await openTable(file, sheet === undefined ? {} : { sheet });
  const rows: SourceRow[] = [];
  for await (const row of table.rows()) rows.push(row);
  return { table, rows };
}

/** A sheet "Sheet1" with header row 1 `a`, `b`, `c`, `d` (inline strings) and `rows` after it. */
function withHeader(rows: string, extra: Omit<ExcelWorkbook, 'sheets'> = {}): string {
  const header = '<row r="1"><c r="A1" t="inlineStr"><is><t>a</t></is></c><c r="B1" t="inlineStr"><is><t>b</t></is></c><c r="C1" t="inlineStr"><is><t>c</t></is></c><c r="D1" t="inlineStr"><is><t>d</t></is></c></row>';
  return book({ ...extra, sheets: [{ name: 'Sheet1', rows: header + rows }] });
}

/** The cells of data row `line` of `file`. */
async function cellsOf(file: string, line = 2): Promise<CellValue[]> {
  const { rows } = await readAll(file);
  const row = rows.find((r) => r.line === line);
  if (!row) throw new Error(`no row ${line} in ${JSON.stringify(rows)}`);
  return row.values;
}

describe('formula results keep the type Excel wrote', () => {
  it('a formula whose cached result is FALSE reads as false, not empty', async () => {
    const file = withHeader('<row r="2"><c r="A2"><v>-3</v></c><c r="B2" t="b"><f>A2&gt;0</f><v>0</v></c></row>');
    expect(await cellsOf(file)).toEqual([-3, false, null, null]);
  });

  it('a formula whose cached result is TRUE reads as true, not the number 1', async () => {
    const file = withHeader('<row r="2"><c r="A2"><v>3</v></c><c r="B2" t="b"><f>A2&gt;0</f><v>1</v></c></row>');
    const cells = await cellsOf(file);
    expect(cells[1]).toBe(true);
  });

  it('a TRUE/FALSE cell without a formula reads as a boolean', async () => {
    const file = withHeader('<row r="2"><c r="A2" t="b"><v>1</v></c><c r="B2" t="b"><v>0</v></c></row>');
    expect(await cellsOf(file)).toEqual([true, false, null, null]);
  });

  it('a formula whose cached result is text (t="str") reads as that text, even when it looks like a number', async () => {
    const file = withHeader('<row r="2"><c r="A2" t="str"><f>"0"&amp;"123"</f><v>0123</v></c><c r="B2" t="str"><f>A2&amp;" &amp; &lt;b&gt;"</f><v>0123 &amp; &lt;b&gt;</v></c></row>');
    expect(await cellsOf(file)).toEqual(['0123', '0123 & <b>', null, null]);
  });

  it('a text formula whose saved result is empty text reads as empty, not as an unreadable cell', async () => {
    const file = withHeader('<row r="2"><c r="A2"><v>1</v></c><c r="B2" t="str"><f>IF(A2&gt;0,"","x")</f><v></v></c></row>');
    expect(await cellsOf(file)).toEqual([1, null, null, null]);
  });

  it('a numeric formula result reads as its number', async () => {
    const file = withHeader('<row r="2"><c r="A2"><v>2.5</v></c><c r="B2"><f>A2*2</f><v>5</v></c><c r="C2" s="3"><f>A2/3</f><v>0.83333333333333337</v></c></row>');
    expect(await cellsOf(file)).toEqual([2.5, 5, 0.8333333333333334, null]);
  });

  it('a date-formatted formula result reads as a Date', async () => {
    const file = withHeader(`<row r="2"><c r="A2" s="${STYLE.date}"><f>DATE(2026,3,2)</f><v>46083</v></c><c r="B2" s="${STYLE.dateTime}"><f>A2+0.5</f><v>46083.5</v></c></row>`);
    expect(await cellsOf(file)).toEqual([new Date(Date.UTC(2026, 2, 2)), new Date(Date.UTC(2026, 2, 2, 12)), null, null]);
  });

  it('shared formulas: the master and every follower read their own cached values', async () => {
    const rows = [
      '<row r="2"><c r="A2"><v>1</v></c><c r="B2"><f t="shared" ref="B2:B4" si="0">A2*2</f><v>2</v></c><c r="C2" t="b"><f t="shared" ref="C2:C4" si="1">B2&gt;4</f><v>0</v></c></row>',
      '<row r="3"><c r="A3"><v>2</v></c><c r="B3"><f t="shared" si="0"/><v>4</v></c><c r="C3" t="b"><f t="shared" si="1"/><v>0</v></c></row>',
      '<row r="4"><c r="A4"><v>3</v></c><c r="B4"><f t="shared" si="0"/><v>6</v></c><c r="C4" t="b"><f t="shared" si="1"/><v>1</v></c></row>',
    ].join('');
    const { rows: read } = await readAll(withHeader(rows));
    expect(read).toEqual([
      { line: 2, values: [1, 2, false, null] },
      { line: 3, values: [2, 4, false, null] },
      { line: 4, values: [3, 6, true, null] },
    ]);
  });
});

describe('cells that hold no readable value are UnreadableCells', () => {
  it('a formula whose result is #DIV/0! is an UnreadableCell naming the cell and the error, never empty', async () => {
    const rows = ['<row r="2"><c r="A2"><v>1</v></c></row>', '<row r="7"><c r="A7"><v>1</v></c><c r="B7"><v>0</v></c><c r="D7" t="e"><f>A7/B7</f><v>#DIV/0!</v></c></row>'].join('');
    const cells = await cellsOf(withHeader(rows), 7);
    expect(cells[3]).toEqual(
      new UnreadableCell(
        'Sheet1!D7',
        'Sheet1!D7 holds the error #DIV/0! (a formula that cannot be computed: it divides by zero); fix the formula or type the value, then save the workbook again',
        '#DIV/0!',
      ),
    );
  });

  it('a formula with no saved result is an UnreadableCell showing the formula, never empty', async () => {
    const cells = await cellsOf(withHeader('<row r="7"><c r="A7"><v>4</v></c><c r="D7"><f>A1*2</f></c></row>'), 7);
    expect(cells[3]).toEqual(
      new UnreadableCell(
        'Sheet1!D7',
        'Sheet1!D7 holds the formula =A1*2 but no saved result (the workbook was written by a program that does not compute formulas); open it in Excel or LibreOffice and save it again',
        '=A1*2',
      ),
    );
  });

  it('a numeric formula with an empty saved value has no saved result', async () => {
    const cells = await cellsOf(withHeader('<row r="2"><c r="A2"><f>SUM(B2:C2)</f><v></v></c></row>'));
    expect(cells[0]).toBeInstanceOf(UnreadableCell);
    expect((cells[0] as UnreadableCell).typed).toBe('=SUM(B2:C2)');
  });

  it('an error value without a formula in a text column is an UnreadableCell, not the text "#REF!"', async () => {
    const cells = await cellsOf(withHeader('<row r="2"><c r="A2" t="inlineStr"><is><t>Nails</t></is></c><c r="B2" t="e"><v>#REF!</v></c></row>'));
    expect(cells[1]).toEqual(
      new UnreadableCell(
        'Sheet1!B2',
        'Sheet1!B2 holds the error #REF! as its value, not a formula result (it refers to a cell that was deleted); type the value it should hold, then save the workbook again',
        '#REF!',
      ),
    );
  });

  it('every Excel error value, with or without a formula, is an UnreadableCell carrying the error as typed', async () => {
    const errors = ['#DIV/0!', '#N/A', '#REF!', '#VALUE!', '#NAME?', '#NUM!', '#NULL!', '#SPILL!', '#CALC!', '#GETTING_DATA'];
    const rows = errors
      .map((e, i) => `<row r="${i + 2}"><c r="A${i + 2}" t="e"><f>X${i}()</f><v>${xmlEscape(e)}</v></c><c r="B${i + 2}" t="e"><v>${xmlEscape(e)}</v></c></row>`)
      .join('');
    const { rows: read } = await readAll(withHeader(rows));
    expect(read).toHaveLength(errors.length);
    read.forEach((row, i) => {
      const [withFormula, typed] = row.values as [UnreadableCell, UnreadableCell];
      expect(withFormula).toBeInstanceOf(UnreadableCell);
      expect(typed).toBeInstanceOf(UnreadableCell);
      expect(withFormula.ref).toBe(`Sheet1!A${i + 2}`);
      expect(typed.ref).toBe(`Sheet1!B${i + 2}`);
      expect(withFormula.typed).toBe(errors[i]);
      expect(typed.typed).toBe(errors[i]);
      expect(withFormula.reason).toContain(`Sheet1!A${i + 2} holds`);
      expect(withFormula.reason).toContain(errors[i]);
    });
    expect((read[9]!.values[0] as UnreadableCell).reason).toBe(
      'Sheet1!A11 holds #GETTING_DATA (its value was still being fetched when the workbook was saved); let Excel finish loading it, then save the workbook again',
    );
    expect((read[7]!.values[0] as UnreadableCell).reason).toBe(
      'Sheet1!A9 holds the error #SPILL! (a formula that cannot be computed: its result has no room to spill into); fix the formula or type the value, then save the workbook again',
    );
  });

  it('a shared-formula follower with no saved result shows the formula moved to its own cell', async () => {
    const rows = [
      '<row r="2"><c r="A2"><v>1</v></c><c r="B2"><f t="shared" ref="B2:B3" si="0">A2*$C$1+SUM(A$2:A2)</f></c></row>',
      '<row r="3"><c r="A3"><v>2</v></c><c r="B3"><f t="shared" si="0"/></c></row>',
    ].join('');
    const { rows: read } = await readAll(withHeader(rows));
    expect((read[0]!.values[1] as UnreadableCell).typed).toBe('=A2*$C$1+SUM(A$2:A2)');
    expect(read[1]!.values[1]).toEqual(
      new UnreadableCell(
        'Sheet1!B3',
        'Sheet1!B3 holds the formula =A3*$C$1+SUM(A$2:A3) but no saved result (the workbook was written by a program that does not compute formulas); open it in Excel or LibreOffice and save it again',
        '=A3*$C$1+SUM(A$2:A3)',
      ),
    );
  });

  it("a sheet whose name has spaces is quoted in the cell's reference, as Excel does", async () => {
    const file = book({
      sheets: [
        { name: 'Summary', rows: '<row r="1"><c r="A1" t="inlineStr"><is><t>x</t></is></c></row>' },
        { name: "Bob's Sheet", rows: '<row r="1"><c r="A1" t="inlineStr"><is><t>qty</t></is></c></row><row r="7"><c r="A7" t="e"><f>1/0</f><v>#DIV/0!</v></c></row>' },
      ],
    });
    const { rows } = await readAll(file, "Bob's Sheet");
    expect((rows[0]!.values[0] as UnreadableCell).ref).toBe("'Bob''s Sheet'!A7");
    expect((rows[0]!.values[0] as UnreadableCell).reason).toMatch(/^'Bob''s Sheet'!A7 holds the error #DIV\/0! /);
  });

  it('an error in the header row is a FileError naming the cell', async () => {
    const file = book({ sheets: [{ name: 'Sheet1', rows: '<row r="1"><c r="A1" t="inlineStr"><is><t>qty</t></is></c><c r="B1" t="e"><f>A0</f><v>#REF!</v></c></row><row r="2"><c r="A2"><v>1</v></c></row>' }] });
    const err = await failure(openTable(file));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toBe(
      `${file}:1 column B: the header row cannot be read: Sheet1!B1 holds the error #REF! (a formula that cannot be computed: it refers to a cell that was deleted); fix the formula or type the value, then save the workbook again.`,
    );
  });

  it('a formula with no saved result in the header row is a FileError naming the cell', async () => {
    const file = book({ sheets: [{ name: 'Sheet1', rows: '<row r="3"><c r="C3"><f>UPPER("qty")</f></c></row><row r="4"><c r="C4"><v>1</v></c></row>' }] });
    const err = await failure(openTable(file));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toMatch(/:3 column C: the header row cannot be read: Sheet1!C3 holds the formula =UPPER\("qty"\) but no saved result/);
  });
});

describe('text cells', () => {
  it('shared strings read as their text, entities decoded once and _xHHHH_ escapes decoded', async () => {
    const file = withHeader('<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="s"><v>1</v></c><c r="C2" t="s"><v>2</v></c></row>', {
      sharedStrings: ['Nails & screws', 'typed &lt; literally', { xml: '<t>line one_x000D_\nline two, _x005F_x000D_ kept</t>' }],
    });
    expect(await cellsOf(file)).toEqual(['Nails & screws', 'typed &lt; literally', 'line one\r\nline two, _x000D_ kept', null]);
  });

  it('a shared string with rich-text runs and a phonetic reading reads as its text only', async () => {
    const file = withHeader('<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="s"><v>1</v></c></row>', {
      sharedStrings: [
        { xml: '<r><rPr><b/><sz val="11"/></rPr><t>Bold </t></r><r><t xml:space="preserve">and plain</t></r>' },
        { xml: '<t>東京</t><rPh sb="0" eb="2"><t>トウキョウ</t></rPh><phoneticPr fontId="1"/>' },
      ],
    });
    expect(await cellsOf(file)).toEqual(['Bold and plain', '東京', null, null]);
  });

  it('inline strings read as their text', async () => {
    const file = withHeader('<row r="2"><c r="A2" t="inlineStr"><is><t xml:space="preserve">  Plain inline  </t></is></c><c r="B2" t="inlineStr"><is><t>a &amp;lt; b</t></is></c></row>');
    expect(await cellsOf(file)).toEqual(['  Plain inline  ', 'a &lt; b', null, null]);
  });

  it('rich inline strings read as all of their runs, not the last one', async () => {
    const file = withHeader('<row r="2"><c r="A2" t="inlineStr"><is><r><rPr><b/></rPr><t>Bold </t></r><r><t>and </t></r><r><rPr><i/></rPr><t>italic</t></r></is></c></row>');
    expect(await cellsOf(file)).toEqual(['Bold and italic', null, null, null]);
  });

  it('accented and CJK text split across zip chunks reads whole, never as U+FFFD', async () => {
    const words = ['Crème brûlée', '東京都 千代田区', 'Zürich Straße', '😀 émoji'];
    const rows: string[] = [];
    const strings: string[] = [];
    for (let r = 2; r < 3002; r++) {
      const w = `${words[r % words.length]} ${r}`;
      strings.push(w);
      rows.push(`<row r="${r}"><c r="A${r}" t="inlineStr"><is><t>${w}</t></is></c><c r="B${r}" t="s"><v>${r - 2}</v></c></row>`);
    }
    for (const order of ['excel', 'strings-first'] as const) {
      const file = withHeader(rows.join(''), { sharedStrings: strings, order, deflate: true });
      const { rows: read } = await readAll(file);
      expect(read).toHaveLength(3000);
      for (const row of read) {
        const w = `${words[row.line % words.length]} ${row.line}`;
        expect(row.values.slice(0, 2)).toEqual([w, w]);
      }
    }
  });
});

describe('numbers and dates', () => {
  it('a number reads as a number, with or without t="n", keeping its precision', async () => {
    const file = withHeader(`<row r="2"><c r="A2"><v>1234.5</v></c><c r="B2" t="n"><v>1.5E-3</v></c><c r="C2" s="${STYLE.decimal}"><v>0.1</v></c><c r="D2" s="${STYLE.quotedText}"><v>12</v></c></row>`);
    expect(await cellsOf(file)).toEqual([1234.5, 0.0015, 0.1, 12]);
  });

  it('a date-formatted number reads as a Date, a time-formatted one as a time on day 0', async () => {
    const file = withHeader(`<row r="2"><c r="A2" s="${STYLE.date}"><v>46082</v></c><c r="B2" s="${STYLE.dateTime}"><v>46082.354166666664</v></c><c r="C2" s="${STYLE.time}"><v>0.75</v></c></row>`);
    expect(await cellsOf(file)).toEqual([new Date(Date.UTC(2026, 2, 1)), new Date(Date.UTC(2026, 2, 1, 8, 30)), new Date(Date.UTC(1899, 11, 30, 18)), null]);
  });

  it('the 1904 date system: serial 0 is 1904-01-01', async () => {
    const file = withHeader(`<row r="2"><c r="A2" s="${STYLE.date}"><v>0</v></c><c r="B2" s="${STYLE.date}"><v>44620</v></c><c r="C2" s="${STYLE.date}"><f>B2</f><v>44620</v></c></row>`, { date1904: true });
    expect(await cellsOf(file)).toEqual([new Date(Date.UTC(1904, 0, 1)), new Date(Date.UTC(2026, 2, 1)), new Date(Date.UTC(2026, 2, 1)), null]);
  });

  it('an ISO date cell (t="d") reads as a Date', async () => {
    const file = withHeader(`<row r="2"><c r="A2" t="d" s="${STYLE.date}"><v>2026-03-01T00:00:00</v></c><c r="B2" t="d"><v>2026-03-01T08:30:15.250</v></c><c r="C2" t="d"><v>2026-03-01</v></c><c r="D2" t="d"><v>2026-02-30</v></c></row>`);
    const cells = await cellsOf(file);
    expect(cells.slice(0, 3)).toEqual([new Date(Date.UTC(2026, 2, 1)), new Date(Date.UTC(2026, 2, 1, 8, 30, 15, 250)), new Date(Date.UTC(2026, 2, 1))]);
    expect(cells[3]).toBeInstanceOf(UnreadableCell);
    expect((cells[3] as UnreadableCell).reason).toBe('Sheet1!D2 holds the date "2026-02-30", which is not an ISO 8601 date, which cannot be read (the workbook may be damaged); open it in Excel or LibreOffice and save it again');
  });
});

describe('the sheet as Excel lays it out', () => {
  it('empty rows and empty cells are skipped; lines are the sheet row numbers', async () => {
    const file = withHeader('<row r="2"><c r="A2" s="3"/><c r="B2" t="inlineStr"><is><t></t></is></c></row><row r="5" spans="1:4"><c r="C5"><v>7</v></c></row><row r="9"/>');
    const { rows } = await readAll(file);
    expect(rows).toEqual([{ line: 5, values: [null, null, 7, null] }]);
  });

  it('rows and cells without an r attribute follow the one before, as the format allows', async () => {
    const file = book({ sheets: [{ name: 'Sheet1', rows: '<row><c t="inlineStr"><is><t>a</t></is></c><c t="inlineStr"><is><t>b</t></is></c></row><row><c><v>1</v></c><c><v>2</v></c></row>' }] });
    const { table, rows } = await readAll(file);
    expect(table.headers).toEqual(['a', 'b']);
    expect(rows).toEqual([{ line: 2, values: [1, 2] }]);
  });

  it('sheet XML whose elements carry a namespace prefix reads the same', async () => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>' +
      '<x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>qty</x:t></x:is></x:c><x:c r="B1" t="inlineStr"><x:is><x:t>ok</x:t></x:is></x:c></x:row>' +
      '<x:row r="2"><x:c r="A2"><x:v>3</x:v></x:c><x:c r="B2" t="b"><x:f>A2&gt;0</x:f><x:v>1</x:v></x:c></x:row>' +
      '</x:sheetData></x:worksheet>';
    const { table, rows } = await readAll(book({ sheets: [{ name: 'Sheet1', xml }] }));
    expect(table.headers).toEqual(['qty', 'ok']);
    expect(rows).toEqual([{ line: 2, values: [3, true] }]);
  });

  it('the first visible sheet is read when the first tab is hidden', async () => {
    const file = book({
      sheets: [
        { name: 'Lists', state: 'hidden', rows: '<row r="1"><c r="A1" t="inlineStr"><is><t>unit</t></is></c></row>' },
        { name: 'Estimates', rows: '<row r="1"><c r="A1" t="inlineStr"><is><t>qty</t></is></c></row><row r="2"><c r="A2"><v>1</v></c></row>' },
      ],
    });
    const { table, rows } = await readAll(file);
    expect(table.headers).toEqual(['qty']);
    expect(rows).toEqual([{ line: 2, values: [1] }]);
  });

  it('a workbook whose parts are stored, not deflated, with the sheet before the styles and shared strings, keeps its dates and texts', async () => {
    // exceljs' streaming reader lost every part after such a sheet: dates read as numbers, shared strings as nothing.
    const rows = '<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" s="1"><v>46082</v></c></row>';
    for (const deflate of [false, true]) {
      expect(await cellsOf(withHeader(rows, { sharedStrings: ['Nails'], deflate }))).toEqual(['Nails', new Date(Date.UTC(2026, 2, 1)), null, null]);
    }
  });

  it('--sheet finds a sheet whatever the case of its name, as Excel does', async () => {
    const file = book({
      sheets: [
        { name: 'Summary', rows: '<row r="1"><c r="A1" t="inlineStr"><is><t>x</t></is></c></row>' },
        { name: 'Estimates 2026', rows: '<row r="1"><c r="A1" t="inlineStr"><is><t>qty</t></is></c></row><row r="2"><c r="A2"><v>4</v></c></row>' },
      ],
    });
    const { table, rows } = await readAll(file, 'estimates 2026');
    expect(table.headers).toEqual(['qty']);
    expect(rows).toEqual([{ line: 2, values: [4] }]);
  });

  it('a sheet read straight from the zip (shared strings first, as exceljs writes) reads the same as one Excel wrote', async () => {
    const rows = '<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="b"><f>TRUE</f><v>1</v></c><c r="C2" t="e"><f>1/0</f><v>#DIV/0!</v></c><c r="D2" s="1"><v>46082</v></c></row>';
    const excel = await cellsOf(withHeader(rows, { sharedStrings: ['Nails'] }));
    const streamed = await cellsOf(withHeader(rows, { sharedStrings: ['Nails'], order: 'strings-first' }));
    expect(streamed).toEqual(excel);
    expect(excel.slice(0, 2)).toEqual(['Nails', true]);
    expect(excel[2]).toBeInstanceOf(UnreadableCell);
    expect(excel[3]).toEqual(new Date(Date.UTC(2026, 2, 1)));
  });

  it('a 200,000-row sheet is read in batches without holding the sheet in memory', async () => {
    const parts: string[] = [];
    for (let r = 2; r <= 200_001; r++) parts.push(`<row r="${r}"><c r="A${r}"><v>${r}</v></c><c r="B${r}" t="b"><f>A${r}&gt;0</f><v>1</v></c><c r="C${r}" t="str"><f>"x"</f><v>row ${r} text</v></c></row>`);
    for (const order of ['excel', 'strings-first'] as const) {
      const file = withHeader(parts.join(''), { order, deflate: true });
      const table = await openTable(file);
      gc();
      const before = process.memoryUsage().heapUsed;
      let retained = 0;
      let count = 0;
      let batches = 0;
      for await (const batch of table.batches()) {
        batches++;
        count += batch.length;
        expect(batch[0]!.values[1]).toBe(true);
        if (batches % 25 === 0) {
          gc();
          retained = Math.max(retained, process.memoryUsage().heapUsed - before);
        }
      }
      expect(count).toBe(200_000);
      expect(batches).toBeGreaterThan(20);
      // Holding the rows read so far would retain well over 50 MB by the end.
      expect(retained).toBeLessThan(16 * 1024 * 1024);
    }
  }, 120_000);
});

describe('limits (docs/reading-rules.md): file errors naming file, line and column', () => {
  it('more than 1,000 columns in the header row is a FileError naming the line and column', async () => {
    let cells = '';
    for (let c = 1; c <= 1001; c++) cells += `<c t="inlineStr"><is><t>col${c}</t></is></c>`;
    const file = book({ sheets: [{ name: 'Sheet1', rows: `<row r="1">${cells}</row><row r="2"><c><v>1</v></c></row>` }] });
    const err = await failure(openTable(file));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toBe(
      `${file}:1 column ALM: the header row has more than 1,000 columns (Sheet1!ALM1 holds "col1001"); at most 1,000 can be read. Delete the columns that are not imported, or move them to another sheet.`,
    );
  });

  it('empty cells beyond column 1,000 of the header row are no columns', async () => {
    const file = book({ sheets: [{ name: 'Sheet1', rows: '<row r="1"><c r="A1" t="inlineStr"><is><t>qty</t></is></c><c r="ZZ1" s="2"/><c r="XFD1" t="inlineStr"><is><t></t></is></c></row><row r="2"><c r="A2"><v>1</v></c></row>' }] });
    const { table, rows } = await readAll(file);
    expect(table.headers).toEqual(['qty']);
    expect(rows).toEqual([{ line: 2, values: [1] }]);
  });

  it('a shared string of more than 32,767 characters is a FileError naming the cell and quoting 200 characters', async () => {
    const long = 'x'.repeat(40_000);
    const file = withHeader('<row r="2"><c r="A2"><v>1</v></c></row><row r="7"><c r="D7" t="s"><v>0</v></c></row>', { sharedStrings: [long] });
    const err = await failure(readAll(file));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toBe(
      `${file}:7 column D: Sheet1!D7 holds more than 32,767 characters, the most a cell may hold (Excel's own limit): "${'x'.repeat(200)}…". Shorten it or split it over several cells, then save the workbook again.`,
    );
  });

  it('an inline string of more than 32,767 characters is a FileError naming the cell', async () => {
    const file = withHeader(`<row r="3"><c r="B3" t="inlineStr"><is><t>${'é'.repeat(32_768)}</t></is></c></row>`);
    const err = await failure(readAll(file));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toMatch(new RegExp(`^${escape(file)}:3 column B: Sheet1!B3 holds more than 32,767 characters, the most a cell may hold \\(Excel's own limit\\): "é{200}…"`));
  });

  it('a cell of exactly 32,767 characters is read', async () => {
    const file = withHeader(`<row r="2"><c r="A2" t="inlineStr"><is><t>${'y'.repeat(32_767)}</t></is></c></row>`);
    expect((await cellsOf(file))[0]).toBe('y'.repeat(32_767));
  });

  it('a gigantic cell (20 MB) is refused quickly, without reading it whole into memory', async () => {
    const file = join(dir, 'gigantic.xlsx');
    const huge = 'z'.repeat(20 * 1024 * 1024);
    const parts = excelParts({ sheets: [{ name: 'Sheet1', rows: '<row r="1"><c r="A1" t="inlineStr"><is><t>a</t></is></c></row><row r="2"><c r="A2" t="str"><f>REPT("z",1)</f><v>@HUGE@</v></c></row>' }] });
    writeFileSync(file, zip(parts.map(([p, c]) => [p, typeof c === 'string' && c.includes('@HUGE@') ? Buffer.from(c.replace('@HUGE@', huge)) : c]), true));
    const before = process.memoryUsage().heapUsed;
    const started = Date.now();
    const err = await failure(readAll(file));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toMatch(/:2 column A: Sheet1!A2 holds more than 32,767 characters/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(40 * 1024 * 1024);
  });

  it('a gigantic cell of entities is refused as too long, not as damaged XML', async () => {
    const file = withHeader(`<row r="2"><c r="A2" t="inlineStr"><is><t>${'&amp;'.repeat(200_000)}x</t></is></c></row>`);
    const err = await failure(readAll(file));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toMatch(/:2 column A: Sheet1!A2 holds more than 32,767 characters, the most a cell may hold \(Excel's own limit\): "&{200}…"/);
  });

  it('a value at XFD1048576, beyond the header, is a clear error naming the cell, at once', async () => {
    const file = withHeader('<row r="2"><c r="A2"><v>1</v></c></row><row r="1048576"><c r="XFD1048576" t="inlineStr"><is><t>stray</t></is></c></row>');
    const started = Date.now();
    const err = await failure(readAll(file));
    expect(err).toBeInstanceOf(RowError);
    expect(err).toMatchObject({ line: 1_048_576, column: 'XFD' });
    expect(err.message).toBe(`${file}:1048576 column XFD: this cell holds "stray" but its column has no header. Add a header, or delete the value.`);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('an error value beyond the header is an error too, not dropped', async () => {
    const file = withHeader('<row r="2"><c r="A2"><v>1</v></c><c r="F2" t="e"><v>#N/A</v></c></row>');
    const err = await failure(readAll(file));
    expect(err).toBeInstanceOf(RowError);
    expect(err.message).toBe(`${file}:2 column F: this cell holds "#N/A" but its column has no header. Add a header, or delete the value.`);
  });
});

describe('files that are not workbooks are FileErrors that say what they are', () => {
  const cases: [string, Buffer | string, RegExp][] = [
    ['a 0-byte file', Buffer.alloc(0), /: the file is empty \(0 bytes\)\. /],
    ['a text file named .xlsx', 'project_id,qty\n1042,3\n', /: it is a text file, not a workbook\. If it holds CSV, rename it to \.csv/],
    ['random bytes', Buffer.from([0x00, 0x13, 0x99, 0xfe, 0x02, 0x00, 0x07, 0x81, 0x44]), /: it is not a zip archive, as every \.xlsx workbook is\./],
    ['a password-protected workbook (OLE2)', Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504)]), /: it is either protected with a password .* or an old-style \.xls workbook\. Remove the password/],
    ['an empty zip archive', zip([]), /: it is an empty zip archive\./],
    ['a zip archive that holds no workbook', zip([['word/document.xml', '<w:document xmlns:w="urn:w"/>']]), /: it is a zip archive without a workbook in it \(no xl\/workbook\.xml\)\./],
  ];
  for (const [what, content, message] of cases) {
    it(`${what} is a FileError with a clear message`, async () => {
      const file = join(dir, `not-a-workbook-${++n}.xlsx`);
      writeFileSync(file, content);
      const err = await failure(openTable(file));
      expect(err).toBeInstanceOf(FileError);
      expect(err.message.startsWith(`cannot read ${file} as an .xlsx workbook: `)).toBe(true);
      expect(err.message).toMatch(message);
      expect(err.message).not.toMatch(/\n\s+at /);
    });
  }

  it('a workbook cut short is a FileError, never a partial read', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => `<row r="${i + 2}"><c r="A${i + 2}"><v>${i}</v></c></row>`).join('');
    const whole = zip(excelParts({ sheets: [{ name: 'Sheet1', rows: `<row r="1"><c r="A1" t="inlineStr"><is><t>qty</t></is></c></row>${rows}` }], order: 'strings-first' }), true);
    const file = join(dir, 'cut-short.xlsx');
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length * 0.8)));
    const err = await failure(readAll(file));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toMatch(/^cannot read .*cut-short\.xlsx as an \.xlsx workbook: /);
  });

  it('a workbook whose part fails its checksum is a FileError, never read as it is', async () => {
    const bytes = zip(excelParts({ sheets: [{ name: 'Sheet1', rows: '<row r="1"><c r="A1" t="inlineStr"><is><t>qty</t></is></c></row><row r="2"><c r="A2"><v>12345</v></c></row>' }] }));
    const at = bytes.indexOf('12345');
    bytes[at] = '9'.charCodeAt(0);
    const file = join(dir, 'bad-crc.xlsx');
    writeFileSync(file, bytes);
    const err = await failure(readAll(file));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toBe(`cannot read ${file} as an .xlsx workbook: it is damaged (its part xl/worksheets/sheet1.xml fails its checksum). Open it in a spreadsheet and save it again as .xlsx, or export it as CSV.`);
  });

  it('a sheet whose XML is damaged is a FileError', async () => {
    const file = book({ sheets: [{ name: 'Sheet1', xml: '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>qty</t></is></c></row><row r="2"><c r="A2"><v>1</v></row></sheetData></worksheet>' }] });
    const err = await failure(readAll(file));
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toMatch(/^cannot read .* as an \.xlsx workbook: it is damaged \(/);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
