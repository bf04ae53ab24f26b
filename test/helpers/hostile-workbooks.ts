/**
 * Hostile workbooks (issue 32): small .xlsx files, written at test time, each built to spend a
 * reader's memory or time on one dimension of the workbook: nesting, sheets, shared strings,
 * merged ranges, column definitions, rows and their order. Each is an estimate workbook as Excel
 * writes it (test/helpers/excel-xml.ts) with one part made hostile, deflated as Excel deflates,
 * so the file stays small while the part inflates to megabytes. test/xlsx-hostile-workbooks.test.ts
 * runs each through the CLI; `npm run bench -- bad-input` measures them too.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { excelParts, zip, type ExcelSheet } from './excel-xml.ts';

export interface HostileWorkbook {
  /** The file's name (also the behaviour's short name in the bench). */
  file: string;
  /** What the case is, as a sentence. */
  name: string;
  /** Writes the workbook into DIR; returns its path. */
  write(dir: string): string;
  /** What the stop must say: the limit (or the rule) and the part of the workbook. */
  says: RegExp[];
}

const HEADER = ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost'];
const LETTERS = 'ABCDEFG';
const text = (ref: string, t: string) => `<c r="${ref}" t="inlineStr"><is><t>${t}</t></is></c>`;

/** Row `r` of one estimate line (project 10008), cells A–G. */
function estimateRow(r: number, attrs = ''): string {
  const values = [10008, 'Kitchen remodel', 'General', 'Labor', 'Crew day', 2, 640];
  const cells = values.map((v, i) => (typeof v === 'number' ? `<c r="${LETTERS[i]}${r}"><v>${v}</v></c>` : text(`${LETTERS[i]}${r}`, v)));
  return `<row r="${r}"${attrs}>${cells.join('')}</row>`;
}

const HEADER_ROW = `<row r="1">${HEADER.map((h, i) => text(`${LETTERS[i]}1`, h)).join('')}</row>`;

/** The estimate workbook with `change` made to its parts (path → XML), deflated. */
function book(file: string, sheet: ExcelSheet, change: (parts: Map<string, string | Buffer>) => void = () => {}): (dir: string) => string {
  return (dir) => {
    const parts = new Map(excelParts({ sheets: [sheet] }));
    change(parts);
    const path = join(dir, file);
    writeFileSync(path, zip([...parts], true));
    return path;
  };
}

const SHEET1 = 'xl/worksheets/sheet1.xml';
const WORKBOOK = 'xl/workbook.xml';
const STRINGS = 'xl/sharedStrings.xml';
const plain: ExcelSheet = { name: 'Sheet1', rows: HEADER_ROW + estimateRow(2) };
/** `count` elements nested in one another. */
const nested = (count: number) => '<x>'.repeat(count) + '</x>'.repeat(count);
/** The part at `path` with `xml` put before its first `before`. */
function insert(parts: Map<string, string | Buffer>, path: string, before: string, xml: string): void {
  const old = String(parts.get(path));
  const at = old.indexOf(before);
  if (at < 0) throw new Error(`${path} has no ${before}`);
  parts.set(path, old.slice(0, at) + xml + old.slice(at));
}
const limit = (n: string, what: string) => new RegExp(`more than ${n} ${what}[^\\n]*limit of ${n} ${what}`);
const part = (path: string) => new RegExp(path.replace(/[./]/g, '\\$&'));

export const HOSTILE_WORKBOOKS: HostileWorkbook[] = [
  {
    file: 'deep-sheet.xlsx',
    name: 'XML nested 100,000 deep in a cell of a sheet',
    write: book('deep-sheet.xlsx', { name: 'Sheet1', rows: HEADER_ROW + estimateRow(2).replace('</row>', `<c r="H2">${nested(100_000)}</c></row>`) }),
    says: [limit('64', 'elements nested in one another'), part(SHEET1)],
  },
  {
    file: 'deep-workbook.xlsx',
    name: 'XML nested 100,000 deep in xl/workbook.xml',
    write: book('deep-workbook.xlsx', plain, (p) => insert(p, WORKBOOK, '<sheets>', nested(100_000))),
    says: [limit('64', 'elements nested in one another'), part(WORKBOOK)],
  },
  {
    file: 'col-bomb.xlsx',
    name: '20,000 <col hidden> definitions each over every column',
    write: book('col-bomb.xlsx', plain, (p) => insert(p, SHEET1, '<sheetData>', `<cols>${'<col min="1" max="16384" width="0" hidden="1" customWidth="1"/>'.repeat(20_000)}</cols>`)),
    says: [limit('16,384', 'column definitions \\(<col>\\)'), part(SHEET1)],
  },
  {
    file: 'sheet-bomb.xlsx',
    name: '20,000 sheets pointing at one part',
    write: book('sheet-bomb.xlsx', plain, (p) =>
      insert(p, WORKBOOK, '</sheets>', Array.from({ length: 20_000 }, (_, i) => `<sheet name="Copy ${i + 1}" sheetId="${i + 2}" r:id="rId1"/>`).join('')),
    ),
    says: [limit('1,000', 'sheets'), part(WORKBOOK)],
  },
  {
    file: 'string-count-bomb.xlsx',
    name: '3,000,000 empty shared strings',
    write: book('string-count-bomb.xlsx', plain, (p) => p.set(STRINGS, `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${'<si><t/></si>'.repeat(3_000_000)}</sst>`)),
    says: [limit('2,000,000', 'shared strings'), part(STRINGS)],
  },
  {
    file: 'string-chars-bomb.xlsx',
    name: '60,000,000 characters of shared strings (2,000 strings of 30,000)',
    write: book('string-chars-bomb.xlsx', plain, (p) => p.set(STRINGS, `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${`<si><t>${'x'.repeat(30_000)}</t></si>`.repeat(2_000)}</sst>`)),
    says: [limit('50,000,000', 'characters of shared strings'), part(STRINGS)],
  },
  {
    file: 'merge-bomb.xlsx',
    name: '1,000,000 merged ranges',
    write: book('merge-bomb.xlsx', plain, (p) => insert(p, SHEET1, '<pageMargins', `<mergeCells>${'<mergeCell ref="H2:I3"/>'.repeat(1_000_000)}</mergeCells>`)),
    says: [limit('100,000', 'merged ranges'), part(SHEET1)],
  },
  {
    file: 'merge-overlap.xlsx',
    name: '100,000 merged ranges over one column of 3,000 rows (within the limit, each overlapping the others)',
    write: book(
      'merge-overlap.xlsx',
      { name: 'Sheet1', rows: HEADER_ROW + Array.from({ length: 2_999 }, (_, i) => estimateRow(i + 2)).join('') },
      (p) => insert(p, SHEET1, '<pageMargins', `<mergeCells>${'<mergeCell ref="B2:B3000"/>'.repeat(100_000)}</mergeCells>`),
    ),
    says: [/merge-overlap\.xlsx: the merged ranges Sheet1!B2:B3000 and Sheet1!B2:B3000 overlap, which no spreadsheet program writes/],
  },
  {
    file: 'row-beyond-limit.xlsx',
    name: 'a row numbered 1,048,577',
    write: book('row-beyond-limit.xlsx', { name: 'Sheet1', rows: HEADER_ROW + estimateRow(2) + estimateRow(1_048_577) }),
    says: [limit('1,048,576', 'rows'), part(SHEET1), /1,048,577/],
  },
  {
    file: 'row-repeated.xlsx',
    name: 'two rows numbered r="3"',
    write: book('row-repeated.xlsx', { name: 'Sheet1', rows: HEADER_ROW + estimateRow(2) + estimateRow(3) + estimateRow(3).replace('Crew day', 'Second crew') }),
    says: [/row-repeated\.xlsx:3: sheet "Sheet1" \(xl\/worksheets\/sheet1\.xml\) holds a second row 3: rows must be numbered in order, each once/],
  },
  {
    file: 'row-backward.xlsx',
    name: 'row 4 after row 5',
    write: book('row-backward.xlsx', { name: 'Sheet1', rows: HEADER_ROW + estimateRow(2) + estimateRow(5) + estimateRow(4) }),
    says: [/row-backward\.xlsx:4: sheet "Sheet1" \(xl\/worksheets\/sheet1\.xml\) holds row 4 after row 5: rows must be numbered in order, each once/],
  },
  {
    file: 'hidden-rows.xlsx',
    name: '20,000 hidden rows: the stop names ten and counts the rest',
    write: book('hidden-rows.xlsx', { name: 'Sheet1', rows: HEADER_ROW + Array.from({ length: 20_000 }, (_, i) => estimateRow(i + 2, ' hidden="1"')).join('') }),
    says: [/sheet "Sheet1" holds what its reader does not see: hidden rows 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 19990 more\. /],
  },
];
