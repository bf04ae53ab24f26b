import { open } from 'node:fs/promises';
import { TextDecoder } from 'node:util';
import { FileError, MAX_LISTED, listAtMost } from '../../errors/index.ts';
import { columnLetter, parseCellRef } from '../xlsx-cell.ts';
import { readWorkbook } from './package.ts';
import { openZip } from './zip.ts';
import { writeZipCopy, type PartContent } from './zip-copy.ts';

/*
 * Cells of a workbook edited in place (the import page, README "The import page"): a copy of the
 * workbook in which only the edited cells change. Each becomes the text typed, as an inline
 * string keeping the cell's format (`s`); every other cell, row, sheet and part is copied as it
 * was, so the copy reads exactly as the upload did: its line numbers are the sheet's, its title
 * rows, footers, hidden rows, merged cells, dates and number formats are all still there.
 *
 * The sheet's XML is rewritten as it streams, one `<row>` element at a time: rows with no edit
 * pass as they are written.
 */

/** A cell typed on the page: its sheet, row and column (1 = A), and the text ('' empties it). */
export interface WorkbookCellEdit {
  sheet: string;
  row: number;
  col: number;
  text: string;
}

/** Writes to `out` (mode 0600) a copy of the workbook `file` with `edits` made. */
export async function editWorkbookCells(file: string, out: string, edits: readonly WorkbookCellEdit[]): Promise<void> {
  const handle = await open(file, 'r');
  try {
    const zip = await openZip(file, handle);
    const workbook = await readWorkbook(file, zip);
    const bySheet = new Map<string, Map<number, Map<number, string>>>();
    for (const e of edits) {
      const name = workbook.wantedSheet(e.sheet);
      if (name === undefined) throw new FileError(file, `${file} has no sheet "${e.sheet}"; read the file again`);
      let rows = bySheet.get(name);
      if (rows === undefined) bySheet.set(name, (rows = new Map()));
      let cells = rows.get(e.row);
      if (cells === undefined) rows.set(e.row, (cells = new Map()));
      cells.set(e.col, e.text);
    }
    const replaced = new Map<string, PartContent>();
    for (const [sheet, rows] of bySheet) {
      const entry = workbook.sheetPart(sheet);
      replaced.set(entry.name, () => editedRows(file, sheet, zip.read(entry), rows));
    }
    await writeZipCopy(zip, out, replaced);
  } finally {
    await handle.close();
  }
}

/** A `<row>` start tag, with any prefix (`<x:row`), not `<rowBreaks>`. */
const ROW_START = /<([A-Za-z_][\w.-]*:)?row(?=[\s>/])/g;

/** The sheet's XML with the cells of `rows` (row → column → text) edited. */
async function* editedRows(file: string, sheet: string, source: AsyncIterable<Buffer>, rows: ReadonlyMap<number, ReadonlyMap<number, string>>): AsyncGenerator<Buffer> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const left = new Set(rows.keys());
  let buf = '';
  let row = 0;
  /** Takes what of `buf` is complete (whole rows, and the text between them), leaving the rest in `buf`. */
  const take = (final: boolean): string => {
    let out = '';
    let pos = 0;
    for (;;) {
      ROW_START.lastIndex = pos;
      const m = ROW_START.exec(buf);
      if (m === null) {
        const cut = final ? -1 : buf.lastIndexOf('<');
        const safe = cut >= pos ? cut : buf.length;
        out += buf.slice(pos, safe);
        pos = safe;
        break;
      }
      out += buf.slice(pos, m.index);
      pos = m.index;
      const tagEnd = buf.indexOf('>', m.index);
      if (tagEnd < 0) break;
      const prefix = m[1] ?? '';
      const selfClosing = buf[tagEnd - 1] === '/';
      const close = `</${prefix}row>`;
      const closeAt = selfClosing ? tagEnd + 1 : buf.indexOf(close, tagEnd);
      if (closeAt < 0) break;
      const end = selfClosing ? closeAt : closeAt + close.length;
      const r = /\sr\s*=\s*["'](\d+)["']/.exec(buf.slice(m.index, tagEnd));
      row = r === null ? row + 1 : Number(r[1]);
      const cells = rows.get(row);
      if (cells === undefined) out += buf.slice(m.index, end);
      else {
        out += editRow(buf.slice(m.index, end), buf.slice(m.index, tagEnd + 1), prefix, row, cells);
        left.delete(row);
      }
      pos = end;
    }
    buf = buf.slice(pos);
    return out;
  };
  for await (const chunk of source) {
    buf += decoder.decode(chunk, { stream: true });
    const out = take(false);
    if (out !== '') yield Buffer.from(out, 'utf8');
  }
  buf += decoder.decode();
  // Whatever is left is no whole row (a damaged sheet, which its reader refuses): passed as it is.
  const out = take(true) + buf;
  if (out !== '') yield Buffer.from(out, 'utf8');
  if (left.size > 0) throw new FileError(file, `${file}: sheet "${sheet}" has no row ${listAtMost([...left].slice(0, MAX_LISTED), left.size)} to edit; read the file again`);
}

/** One `<row>` element (`start`: its start tag) with the cells of `cells` (column → text) replaced or added in column order. */
function editRow(xml: string, start: string, prefix: string, row: number, cells: ReadonlyMap<number, string>): string {
  const p = prefix.replace(/[.]/g, '\\.');
  const cell = new RegExp(`<${p}c(?=[\\s>/])([^>]*?)(/>|>[\\s\\S]*?</${p}c>)`, 'g');
  const selfClosing = start.endsWith('/>');
  const body = selfClosing ? '' : xml.slice(start.length, xml.length - `</${prefix}row>`.length);
  const pending = [...cells.keys()].sort((a, b) => a - b);
  let out = '';
  let pos = 0;
  let col = 0;
  for (const m of body.matchAll(cell)) {
    const ref = /\sr\s*=\s*["']([^"']*)["']/.exec(m[1]!);
    col = ref === null ? col + 1 : (parseCellRef(ref[1]!)?.col ?? col + 1);
    out += body.slice(pos, m.index);
    while (pending.length > 0 && pending[0]! < col) out += newCell(prefix, pending[0]!, row, undefined, cells.get(pending.shift()!)!);
    if (pending[0] === col) {
      const style = /\ss\s*=\s*["'](\d+)["']/.exec(m[1]!)?.[1];
      out += newCell(prefix, col, row, style, cells.get(pending.shift()!)!);
    } else out += m[0];
    pos = m.index! + m[0].length;
  }
  out += body.slice(pos);
  while (pending.length > 0) out += newCell(prefix, pending[0]!, row, undefined, cells.get(pending.shift()!)!);
  const open = selfClosing ? `${start.slice(0, -2).trimEnd()}>` : start;
  return `${open}${out}</${prefix}row>`;
}

/** The edited cell: the text as an inline string in the cell's format, or an empty cell. */
function newCell(prefix: string, col: number, row: number, style: string | undefined, text: string): string {
  const attrs = ` r="${columnLetter(col)}${row}"${style === undefined ? '' : ` s="${style}"`}`;
  if (text === '') return `<${prefix}c${attrs}/>`;
  return `<${prefix}c${attrs} t="inlineStr"><${prefix}is><${prefix}t xml:space="preserve">${xmlText(text)}</${prefix}t></${prefix}is></${prefix}c>`;
}

/**
 * Text as an OOXML string (ST_Xstring) holds it: `&`, `<` and `>` as entities; a character XML 1.0
 * cannot hold (and a carriage return, as Excel writes it) as `_xHHHH_`; a literal `_xHHHH_` with
 * its `_` escaped, so that it reads back as typed.
 */
function xmlText(text: string): string {
  return text
    .replace(/_(x[0-9A-Fa-f]{4}_)/g, '_x005F_$1')
    .replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'))
    .replace(/[\u0000-\u0008\u000b\u000c\u000d\u000e-\u001f\ufffe\uffff]/g, (c) => `_x${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`);
}
