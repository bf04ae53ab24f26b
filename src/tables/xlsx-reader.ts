import { open, type FileHandle } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pipeline } from 'node:stream';
import { TextDecoder } from 'node:util';
import * as zlib from 'node:zlib';
import { BuildsyncError, FileError, InterruptedError, RowError } from '../errors/index.ts';
import { fileSystemError, isFileSystemError } from './file-errors.ts';
import { UnreadableCell, type CellValue, type SourceRow } from './types.ts';
import {
  MAX_CELL_CHARS,
  MAX_COLUMNS,
  MAX_QUOTE,
  MAX_SHEET_COLUMN,
  OverlongText,
  cellRef,
  columnLetter,
  decodeXString,
  describeValue,
  isDateNumFmt,
  parseCellRef,
  quote,
  readRawCell,
  sheetRefName,
  shiftFormula,
  xlsxHeaderText,
  type CellContext,
  type RawCell,
  type SharedTexts,
} from './xlsx-cell.ts';

/*
 * How an .xlsx is read, and why not with exceljs' streaming reader (exceljs 4.4.0,
 * lib/stream/xlsx/workbook-reader.js and worksheet-reader.js), which this module used before:
 *
 * Its WorksheetReader loses what Excel wrote:
 *  - every formula's cached `<v>` goes through parseFloat whatever its `t`: a TRUE/FALSE result
 *    becomes 1/0 (FALSE then reads as empty downstream), an error result (`#DIV/0!`) NaN (empty);
 *    a formula without `<v>` has no result (empty);
 *  - an error cell without formula is `{ error: '#REF!' }`, which was read as the text "#REF!";
 *  - `t="d"` ISO dates go through parseFloat (2026-03-01 → 2026);
 *  - a rich inline string keeps only its last run (`<is><r><t>a</t></r><r><t>b</t></r></is>` → "b");
 *  - text saxes has already decoded is entity-decoded again (a cell typed `&lt;` reads `<`);
 *  - OOXML's `_x000D_` escapes are left in the text;
 *  - each chunk is decoded with `TextDecoder.decode(chunk)` without `stream: true`, so a UTF-8
 *    character split across two chunks becomes U+FFFD (sheets and shared strings alike);
 *  - in shared strings, the phonetic reading (`<rPh><t>トウキョウ</t></rPh>`) replaces the text;
 *  - `date1904` sits where this module did not look, so 1904 workbooks read four years off.
 * Its WorkbookReader streams the zip with unzipper and, when a sheet comes before the shared
 * strings (Excel's order), copies the sheet to a temporary file; while it creates that file the
 * rest of the zip can be lost without an error (always so for a workbook whose parts are stored,
 * not deflated): no styles (dates read as numbers), no shared strings. Its temporary files and
 * their descriptors also stayed until the process exited, in a worker that reads many workbooks.
 *
 * So: the zip is read here from its central directory (node:fs, node:zlib; every part checked
 * against its size and CRC), which lets the parts be read in the order they are needed, whatever
 * their order in the file, and the chosen sheet streamed straight from the file. The XML is parsed
 * with saxes through exceljs' own wrapper (`exceljs/lib/utils/parse-sax.js`): saxes is not a
 * dependency of this package (package.json does not list it; it comes with exceljs), so it is
 * reached through exceljs rather than imported, which would break unnoticed the day exceljs stops
 * carrying it. The wrapper only turns saxes' callbacks into batches of events per chunk; the text
 * it is fed is decoded here (`XmlText`), so its chunk-by-chunk decoding never sees bytes.
 *
 * Memory: rows are handed out as they are parsed (one chunk of XML at a time), never the sheet.
 * Text is fed to saxes with every run between two `<` cut at `MAX_RUN` characters (saxes buffers a
 * text node whole), so a gigantic cell costs at most about a megabyte before it is refused. The
 * shared strings (the workbook's table of texts) are held, as any reader must, each cut to a cell's
 * limit.
 */

const require = createRequire(import.meta.url);

interface SaxTag {
  name: string;
  attributes: Record<string, string>;
  isSelfClosing: boolean;
}
type SaxEvent = { eventType: 'opentag' | 'closetag'; value: SaxTag } | { eventType: 'text'; value: string };
const parseSax = require('exceljs/lib/utils/parse-sax.js') as (source: AsyncIterable<string>) => AsyncIterable<SaxEvent[]>;

export interface XlsxHead {
  headers: string[];
  headerLine: number;
  sheet: string;
  /** The workbook's date system is 1904's (for numbers a date column reads as serial days). */
  date1904: boolean;
}

/** Rows per batch: rows are parsed per chunk of XML, so batches only bound the hand-off cost. */
const BATCH_ROWS = 1000;
/**
 * The longest run of XML between two `<` that is passed to saxes. A cell of `MAX_CELL_CHARS`
 * characters takes at most about 12 characters of XML each (`&#x5F;x000D_`), so a longer run can
 * only be a cell that is too long (or damage); the rest of the run is dropped and the cell refused.
 */
const MAX_RUN = 12 * (MAX_CELL_CHARS + 1);
/** A cell's text after entity decoding: `_xHHHH_` takes 7 characters for one. */
const MAX_RAW_TEXT = 7 * (MAX_CELL_CHARS + 1);
/** Shared formulas remembered (to show a follower's formula when it has no saved result). */
const MAX_SHARED_FORMULAS = 10_000;

interface SheetEntry {
  name: string;
  state: string | undefined;
  rId: string | undefined;
}
interface Relationship {
  id: string;
  type: string;
  target: string;
  external: boolean;
}

/**
 * Reads one sheet of an .xlsx workbook, streaming. The sheet is `sheet` when given (exactly, else
 * ignoring case as Excel does), else the first visible worksheet in tab order. The header row is
 * the sheet's first non-empty row; line numbers are the sheet's row numbers. Empty rows are
 * skipped. A value in a column that has no header is an error, since it would silently be lost.
 */
export async function* readXlsx(
  file: string,
  sheet: string | undefined,
  onHead: (head: XlsxHead) => void,
  options: { headOnly?: boolean; signal?: AbortSignal; cache?: XlsxCache } = {},
): AsyncGenerator<SourceRow[]> {
  const { headOnly = false, signal } = options;
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    throw fileSystemError(file, err);
  }
  try {
    const zip = await openZip(file, handle);
    const book = await readWorkbook(file, zip, options.cache);
    const name = book.wantedSheet(sheet);
    if (name === undefined) {
      if (sheet === undefined) throw new FileError(file, `${file} has no worksheets.`);
      const names = book.sheets.map((s) => `"${s.name}"`);
      throw new FileError(file, `${file} has no sheet named "${sheet}". Its sheets are ${names.join(', ') || '(none)'}; pass one of them with --sheet.`);
    }
    const part = book.sheetPart(name);
    yield* readSheet(file, name, zip.read(part), book.context, onHead, headOnly, signal);
  } catch (err) {
    if (err instanceof BuildsyncError) throw err;
    if (isFileSystemError(err)) throw fileSystemError(file, err);
    throw new FileError(file, `cannot read ${file} as an .xlsx workbook: it is damaged (${(err as Error)?.message ?? String(err)}). Open it in a spreadsheet and save it again as .xlsx, or export it as CSV.`, { cause: err });
  } finally {
    await handle.close().catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------
// The workbook's parts

interface Workbook {
  sheets: SheetEntry[];
  context: CellContext;
  wantedSheet(sheet: string | undefined): string | undefined;
  /** The zip entry of sheet `name` (one of `sheets`). */
  sheetPart(name: string): ZipEntry;
}

/**
 * The workbook part (found through `_rels/.rels`), its relationships, `date1904`, the sheets in tab
 * order, and for the cells: the date formats of `xl/styles.xml` and the texts of
 * `xl/sharedStrings.xml` (read whole before any sheet, whatever their place in the zip).
 */
/**
 * What several reads of one workbook share (`readXlsx`'s `cache`, one per opened table): the cell
 * context, whose shared strings are most of a big workbook's memory and parsing time, is read
 * once, not once per pass over the sheet.
 */
export interface XlsxCache {
  context?: CellContext;
}

async function readWorkbook(file: string, zip: Zip, cache?: XlsxCache): Promise<Workbook> {
  const rootRels = zip.entry('_rels/.rels');
  const officeDocument = rootRels && (await parseRelationships(zip.read(rootRels))).find((r) => !r.external && /\/officeDocument$/.test(r.type));
  const workbookPath = officeDocument ? resolvePart('', officeDocument.target) : 'xl/workbook.xml';
  const workbookEntry = zip.entry(workbookPath);
  if (workbookEntry === undefined) {
    throw new FileError(file, `cannot read ${file} as an .xlsx workbook: it is a zip archive without a workbook in it (no ${workbookPath}). Open it in a spreadsheet and save it as .xlsx, or export it as CSV.`);
  }
  const { sheets, date1904 } = await parseWorkbookXml(zip.read(workbookEntry));
  const relsEntry = zip.entry(relsPathOf(workbookPath));
  const rels = relsEntry ? await parseRelationships(zip.read(relsEntry)) : [];
  const partOf = (type: string, fallback: string): ZipEntry | undefined => {
    const rel = rels.find((r) => !r.external && r.type.endsWith(`/${type}`));
    return zip.entry(rel ? resolvePart(workbookPath, rel.target) : fallback);
  };
  let context = cache?.context;
  if (context === undefined) {
    const stylesEntry = partOf('styles', 'xl/styles.xml');
    const dateStyles = stylesEntry ? await parseDateStyles(zip.read(stylesEntry)) : [];
    const stringsEntry = partOf('sharedStrings', 'xl/sharedStrings.xml');
    const sharedStrings = stringsEntry ? await parseSharedStrings(zip.read(stringsEntry)) : undefined;
    context = { sharedStrings, isDateStyle: (s) => dateStyles[s] === true, date1904 };
    if (cache !== undefined) cache.context = context;
  }
  const relOf = (s: SheetEntry): Relationship | undefined => rels.find((r) => r.id === s.rId);
  const worksheets = sheets.filter((s) => {
    const rel = relOf(s);
    return rel !== undefined && /\/worksheet$/.test(rel.type);
  });
  return {
    sheets,
    context,
    wantedSheet(sheet) {
      if (sheet === undefined) {
        // A hidden sheet (say, the lists behind drop-downs) is not the first one a user sees.
        return (worksheets.find((s) => s.state === undefined || s.state === 'visible') ?? worksheets[0])?.name;
      }
      const lower = sheet.toLowerCase();
      return (worksheets.find((s) => s.name === sheet) ?? worksheets.find((s) => s.name.toLowerCase() === lower))?.name;
    },
    sheetPart(name) {
      const rel = relOf(sheets.find((s) => s.name === name)!)!;
      const path = resolvePart(workbookPath, rel.target);
      const entry = zip.entry(path);
      if (entry === undefined) {
        throw new FileError(file, `cannot read ${file} as an .xlsx workbook: sheet "${name}" is missing from it (no ${path}). Open it in a spreadsheet and save it again as .xlsx, or export it as CSV.`);
      }
      return entry;
    },
  };
}

/** `xl/workbook.xml` → `xl/_rels/workbook.xml.rels`. */
function relsPathOf(part: string): string {
  const slash = part.lastIndexOf('/');
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

/** A relationship's target, relative to the part that holds it (or absolute with `/`), as a zip path. */
function resolvePart(from: string, target: string): string {
  const path = target.trim().replace(/\\/g, '/');
  const joined = path.startsWith('/') ? path.slice(1) : from.slice(0, from.lastIndexOf('/') + 1) + path;
  const out: string[] = [];
  for (const segment of joined.split('/')) {
    if (segment === '..') out.pop();
    else if (segment !== '.' && segment !== '') out.push(segment);
  }
  return out.join('/');
}

/** An element's name without its namespace prefix (`x:c` → `c`: some writers prefix every element). */
function local(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** The value of attribute `name` whatever its prefix (`r:id`, `ns1:id`). */
function prefixedAttribute(attributes: Record<string, string>, name: string): string | undefined {
  for (const key of Object.keys(attributes)) if (key.endsWith(`:${name}`)) return attributes[key];
  return undefined;
}

async function parseRelationships(entry: AsyncIterable<Buffer>): Promise<Relationship[]> {
  const rels: Relationship[] = [];
  for await (const events of parseSax(new XmlText().decode(entry))) {
    for (const e of events) {
      if (e.eventType !== 'opentag' || local(e.value.name) !== 'Relationship') continue;
      const a = e.value.attributes;
      rels.push({ id: a.Id ?? '', type: a.Type ?? '', target: a.Target ?? '', external: a.TargetMode === 'External' });
    }
  }
  return rels;
}

async function parseWorkbookXml(entry: AsyncIterable<Buffer>): Promise<{ sheets: SheetEntry[]; date1904: boolean }> {
  const sheets: SheetEntry[] = [];
  let date1904 = false;
  for await (const events of parseSax(new XmlText().decode(entry))) {
    for (const e of events) {
      if (e.eventType !== 'opentag') continue;
      const a = e.value.attributes;
      switch (local(e.value.name)) {
        case 'workbookPr':
          date1904 = a.date1904 === '1' || a.date1904 === 'true';
          break;
        case 'sheet':
          sheets.push({ name: a.name ?? '', state: a.state, rId: prefixedAttribute(a, 'id') ?? a.id });
          break;
      }
    }
  }
  return { sheets, date1904 };
}

/** For each cell format (`<cellXfs>`, the `s` of a cell), whether it shows numbers as dates. */
async function parseDateStyles(entry: AsyncIterable<Buffer>): Promise<boolean[]> {
  const codes = new Map<number, string>();
  const formats: number[] = [];
  let inNumFmts = false;
  let inCellXfs = false;
  for await (const events of parseSax(new XmlText().decode(entry))) {
    for (const e of events) {
      if (e.eventType === 'text') continue;
      const name = local(e.value.name);
      if (e.eventType === 'closetag') {
        if (name === 'numFmts') inNumFmts = false;
        else if (name === 'cellXfs') inCellXfs = false;
        continue;
      }
      const a = e.value.attributes;
      if (name === 'numFmts') inNumFmts = true;
      else if (name === 'cellXfs') inCellXfs = true;
      else if (name === 'numFmt' && inNumFmts) codes.set(Number(a.numFmtId), a.formatCode ?? '');
      else if (name === 'xf' && inCellXfs) formats.push(Number(a.numFmtId ?? 0));
    }
  }
  return formats.map((id) => isDateNumFmt(id, codes.get(id)));
}

/**
 * `xl/sharedStrings.xml`: each `<si>` is the text of its `<t>` elements, plain or in rich-text
 * runs (`<r>`), without the phonetic readings (`<rPh>`) Japanese Excel adds. A string longer than
 * a cell may hold is kept as its first characters only.
 */
async function parseSharedStrings(entry: AsyncIterable<Buffer>): Promise<SharedTexts> {
  const strings = new PackedTexts();
  const xml = new XmlText();
  let text = '';
  let overlong = false;
  let inT = false;
  let inPhonetic = false;
  for await (const events of parseSax(xml.decode(entry))) {
    for (const e of events) {
      if (e.eventType === 'text') {
        const cutRun = xml.takeCut();
        if (!inT || inPhonetic) continue;
        if (cutRun) overlong = true;
        if (!overlong) {
          text += e.value;
          if (text.length > MAX_RAW_TEXT) overlong = true;
        }
        continue;
      }
      const name = local(e.value.name);
      if (e.eventType === 'opentag') {
        if (name === 'si') {
          text = '';
          overlong = false;
        } else if (name === 't') inT = !e.value.isSelfClosing;
        else if (name === 'rPh') inPhonetic = !e.value.isSelfClosing;
      } else if (name === 't') inT = false;
      else if (name === 'rPh') inPhonetic = false;
      else if (name === 'si') {
        const s = decodeXString(text);
        strings.push(overlong || s.length > MAX_CELL_CHARS ? new OverlongText(s.slice(0, MAX_QUOTE + 1)) : s);
        text = '';
      }
    }
  }
  strings.seal();
  return strings;
}

/** Texts per `PackedTexts` block. */
const PACKED_BLOCK = 4096;

/**
 * The shared strings, packed: each block of `PACKED_BLOCK` texts is one flat string, with the end
 * of each text in it. Why: a workbook of 200,000 rows holds about 600,000 shared strings, which
 * are held while every pass over the sheet reads them. As strings of their own they cost a
 * header each (more than the text of a short one) and, cut from the parser's chunks, could keep
 * those chunks alive; packed, they cost their characters and four bytes. A cell's text is sliced
 * out when the cell is read, and dies with its row.
 */
class PackedTexts implements SharedTexts {
  length = 0;
  readonly #blocks: string[] = [];
  readonly #ends: Uint32Array[] = [];
  readonly #overlong = new Map<number, OverlongText>();
  #pending: string[] = [];

  push(text: string | OverlongText): void {
    if (text instanceof OverlongText) {
      this.#overlong.set(this.length, text);
      this.#pending.push('');
    } else this.#pending.push(text);
    this.length++;
    if (this.#pending.length === PACKED_BLOCK) this.seal();
  }

  /** Packs the texts pushed since the last block; call once more after the last push. */
  seal(): void {
    if (this.#pending.length === 0) return;
    const ends = new Uint32Array(this.#pending.length);
    let at = 0;
    for (let i = 0; i < this.#pending.length; i++) ends[i] = at += this.#pending[i]!.length;
    this.#blocks.push(this.#pending.join(''));
    this.#ends.push(ends);
    this.#pending = [];
  }

  at(index: number): string | OverlongText | undefined {
    if (!(index >= 0 && index < this.length)) return undefined;
    const long = this.#overlong.size > 0 ? this.#overlong.get(index) : undefined;
    if (long !== undefined) return long;
    const block = Math.floor(index / PACKED_BLOCK);
    const ends = this.#ends[block];
    if (ends === undefined) return this.#pending[index - block * PACKED_BLOCK];
    const k = index - block * PACKED_BLOCK;
    return this.#blocks[block]!.slice(k === 0 ? 0 : ends[k - 1], ends[k]);
  }
}

/**
 * Bytes of an XML part to text for saxes: decoded as one stream (a character split across two
 * chunks stays whole), UTF-16 when the part starts with its byte-order mark, invalid UTF-8 refused
 * (never read as U+FFFD); every run of more than `MAX_RUN` characters without a `<` is cut there,
 * and `takeCut()` then tells the consumer that the next text event is such a cut run.
 */
class XmlText {
  private run = 0;
  private dropping = false;
  private cutPending = false;

  /** True once after a run was cut: the text event that follows is that run. */
  takeCut(): boolean {
    if (!this.cutPending) return false;
    this.cutPending = false;
    return true;
  }

  async *decode(source: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
    let decoder: TextDecoder | undefined;
    for await (const chunk of source) {
      let text: string;
      if (typeof chunk === 'string') text = chunk;
      else {
        decoder ??= new TextDecoder(chunk[0] === 0xff && chunk[1] === 0xfe ? 'utf-16le' : chunk[0] === 0xfe && chunk[1] === 0xff ? 'utf-16be' : 'utf-8', { fatal: true });
        text = decoder.decode(chunk, { stream: true });
      }
      yield* this.limit(text);
    }
    if (decoder) {
      const rest = decoder.decode();
      if (rest) yield* this.limit(rest);
    }
  }

  private *limit(text: string): Generator<string> {
    if (this.dropping) {
      const lt = text.indexOf('<');
      if (lt < 0) return;
      this.dropping = false;
      this.run = 0;
      text = text.slice(lt);
    }
    const lastLt = text.lastIndexOf('<');
    const tail = lastLt < 0 ? this.run + text.length : text.length - lastLt - 1;
    if (tail <= MAX_RUN) {
      this.run = tail;
      if (text) yield text;
      return;
    }
    let at = text.length - (tail - MAX_RUN);
    // Never cut inside an entity (`&amp;`) or a surrogate pair: saxes would refuse the XML.
    const amp = text.lastIndexOf('&', at - 1);
    if (amp >= 0 && amp >= at - 12) {
      const semicolon = text.indexOf(';', amp);
      if (semicolon < 0 || semicolon >= at) at = amp;
    }
    const code = text.charCodeAt(at - 1);
    if (code >= 0xd800 && code <= 0xdbff) at -= 1;
    // The events before the cut run are handled before `cutPending` is set.
    yield text.slice(0, at);
    this.cutPending = true;
    this.dropping = true;
  }
}

// ---------------------------------------------------------------------------------------------
// The sheet

/**
 * Parses `<sheetData>` of one sheet and hands out its rows. Elements read (any prefix):
 * `<row r>`, `<c r t s>`, `<f t si>`, `<v>`, `<is>` with `<t>` and `<r><t>` (not `<rPh><t>`).
 * A `<row>` or `<c>` without `r` follows the one before it, as the format allows.
 */
async function* readSheet(
  file: string,
  sheetName: string,
  source: AsyncIterable<Buffer>,
  ctx: CellContext,
  onHead: (head: XlsxHead) => void,
  headOnly: boolean,
  signal: AbortSignal | undefined,
): AsyncGenerator<SourceRow[]> {
  const prefix = sheetRefName(sheetName);
  const xml = new XmlText();

  let headers: string[] | undefined;
  let width = 0;
  /** Header cells of the row being read, until the header row is found. */
  let headerCells: CellValue[] = [];
  let out: SourceRow[] = [];
  let values: CellValue[] | undefined;

  let inSheetData = false;
  let inRow = false;
  let inCell = false;
  let inInline = false;
  let inPhonetic = false;
  let sawEnd = false;
  /** Which text is being read: 0 none, 1 `<v>`, 2 `<f>`, 3 `<is>…<t>`. */
  let target = 0;
  let row = 0;
  let col = 0;
  let sharedSi: string | undefined;
  const sharedFormulas = new Map<string, { formula: string; row: number; col: number }>();
  const cell: RawCell = { t: undefined, s: 0, hasFormula: false, formula: '', v: undefined, inline: undefined, overlong: false };

  const where = (): string => cellRef(prefix, col, row);
  const at = (): string => `${file}:${row} column ${columnLetter(col)}`;

  function tooLong(head: string): FileError {
    return new FileError(file, `${at()}: ${where()} holds more than ${MAX_CELL_CHARS.toLocaleString('en-US')} characters, the most a cell may hold (Excel's own limit): ${quote(head)}. Shorten it or split it over several cells, then save the workbook again.`);
  }

  function append(text: string): void {
    if (target === 0 || cell.overlong) return;
    if (target === 1) cell.v = (cell.v ?? '') + text;
    else if (target === 2) cell.formula += text;
    else if (!inPhonetic) cell.inline = (cell.inline ?? '') + text;
    const length = target === 1 ? cell.v!.length : target === 2 ? cell.formula.length : (cell.inline ?? '').length;
    if (length > MAX_RAW_TEXT) cell.overlong = true;
  }

  function endCell(): void {
    if (cell.hasFormula && sharedSi !== undefined) {
      if (cell.formula !== '') {
        if (sharedFormulas.size < MAX_SHARED_FORMULAS || sharedFormulas.has(sharedSi)) sharedFormulas.set(sharedSi, { formula: cell.formula, row, col });
      } else if (cell.v === undefined && cell.inline === undefined) {
        const master = sharedFormulas.get(sharedSi);
        cell.formula = master ? shiftFormula(master.formula, row - master.row, col - master.col) : `(the shared formula #${sharedSi})`;
      }
    }
    if (cell.hasFormula) cell.formula = decodeXString(cell.formula);
    const value = readRawCell(cell, ctx, where);
    if (value instanceof OverlongText) throw tooLong(value.head);
    if (value === null || value === '') return;
    if (headers === undefined) {
      if (value instanceof UnreadableCell) {
        throw new FileError(file, `${at()}: the header row cannot be read: ${value.reason}.`);
      }
      if (col > MAX_COLUMNS) {
        throw new FileError(file, `${at()}: the header row has more than ${MAX_COLUMNS.toLocaleString('en-US')} columns (${where()} holds ${describeValue(value)}); at most ${MAX_COLUMNS.toLocaleString('en-US')} can be read. Delete the columns that are not imported, or move them to another sheet.`);
      }
      headerCells[col - 1] = value;
      return;
    }
    if (col > width) {
      throw new RowError(file, row, columnLetter(col), `this cell holds ${describeValue(value)} but its column has no header. Add a header, or delete the value.`);
    }
    values ??= new Array<CellValue>(width).fill(null);
    values[col - 1] = value;
  }

  function endRow(): void {
    if (headers === undefined) {
      const texts = Array.from(headerCells, (c) => xlsxHeaderText(c ?? null));
      headerCells = [];
      if (texts.every((t) => t.trim() === '')) return;
      headers = texts;
      width = texts.length;
      onHead({ headers, headerLine: row, sheet: sheetName, date1904: ctx.date1904 });
      return;
    }
    if (values !== undefined) out.push({ line: row, values });
    values = undefined;
  }

  function openTag(tag: SaxTag): void {
    const name = local(tag.name);
    if (!inSheetData) {
      if (name === 'sheetData') inSheetData = !tag.isSelfClosing;
      return;
    }
    switch (name) {
      case 'row': {
        const r = tag.attributes.r;
        row = r === undefined ? row + 1 : Number(r);
        if (!Number.isInteger(row) || row < 1) throw damaged(`the row number ${quote(r ?? '')}`);
        col = 0;
        inRow = true;
        return;
      }
      case 'c': {
        if (!inRow) return;
        const a = tag.attributes;
        if (a.r === undefined) col += 1;
        else {
          const ref = parseCellRef(a.r);
          if (ref === undefined) throw damaged(`the cell reference ${quote(a.r)}`);
          col = ref.col;
        }
        if (col > MAX_SHEET_COLUMN) throw damaged(`a cell beyond column XFD`);
        cell.t = a.t;
        cell.s = a.s === undefined ? 0 : Number(a.s);
        cell.hasFormula = false;
        cell.formula = '';
        cell.v = undefined;
        cell.inline = undefined;
        cell.overlong = false;
        sharedSi = undefined;
        inCell = true;
        if (tag.isSelfClosing) {
          inCell = false;
          endCell();
        }
        return;
      }
      case 'v':
        if (!inCell) return;
        cell.v ??= '';
        target = tag.isSelfClosing ? 0 : 1;
        return;
      case 'f':
        if (!inCell) return;
        cell.hasFormula = true;
        if (tag.attributes.t === 'shared') sharedSi = tag.attributes.si;
        target = tag.isSelfClosing ? 0 : 2;
        return;
      case 'is':
        if (!inCell) return;
        cell.inline ??= '';
        inInline = !tag.isSelfClosing;
        return;
      case 'rPh':
        if (inInline) inPhonetic = !tag.isSelfClosing;
        return;
      case 't':
        if (inInline && !tag.isSelfClosing) target = 3;
        return;
    }
  }

  function closeTag(tag: SaxTag): void {
    const name = local(tag.name);
    if (!inSheetData) {
      if (name === 'worksheet') sawEnd = true;
      return;
    }
    switch (name) {
      case 'v':
      case 'f':
      case 't':
        target = 0;
        return;
      case 'rPh':
        inPhonetic = false;
        return;
      case 'is':
        inInline = false;
        return;
      case 'c':
        if (!inCell || tag.isSelfClosing) return;
        inCell = false;
        target = 0;
        endCell();
        return;
      case 'row':
        if (!inRow) return;
        inRow = false;
        endRow();
        return;
      case 'sheetData':
        inSheetData = false;
        return;
    }
  }

  function damaged(what: string): FileError {
    return new FileError(file, `${file}:${row}: sheet "${sheetName}" holds ${what}, which cannot be read: the workbook is damaged. Open it in Excel or LibreOffice and save it again.`);
  }

  for await (const events of parseSax(xml.decode(source))) {
    if (signal?.aborted) throw new InterruptedError(`reading ${file} was interrupted`);
    for (const e of events) {
      if (e.eventType === 'text') {
        if (xml.takeCut() && target !== 0) {
          cell.overlong = true;
          if (target === 3) cell.inline = (cell.inline ?? '') + e.value;
          else if (target === 1) cell.v = (cell.v ?? '') + e.value;
          else cell.formula += e.value;
        } else append(e.value);
      } else if (e.eventType === 'opentag') openTag(e.value);
      else closeTag(e.value);
      if (headOnly && headers !== undefined) return;
    }
    if (out.length >= BATCH_ROWS) {
      const full = out;
      out = [];
      yield full;
    }
  }
  if (!sawEnd) {
    throw new FileError(file, `cannot read ${file} as an .xlsx workbook: sheet "${sheetName}" ends early, after row ${row} (the file is cut short or damaged). Open it in a spreadsheet and save it again as .xlsx, or export it as CSV.`);
  }
  if (headers === undefined) {
    throw new FileError(file, `sheet "${sheetName}" of ${file} is empty: its first row must be a header row naming the columns.`);
  }
  if (out.length > 0) yield out;
}

// ---------------------------------------------------------------------------------------------
// The zip

/** One part of the zip, from its central directory entry. */
interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

interface Zip {
  /** The part at `path` (part names are case-insensitive in a workbook). */
  entry(path: string): ZipEntry | undefined;
  /** The bytes of a part, inflated, checked against its size and CRC as they are read. */
  read(entry: ZipEntry): AsyncGenerator<Buffer>;
}

/** A zip that cannot be read; the reader wraps it in a FileError saying the workbook is damaged. */
class ZipDamage extends Error {}

const ZIP_LOCAL_FILE = 0x04034b50;
const ZIP_CENTRAL_FILE = 0x02014b50;
const ZIP_END = 0x06054b50;
const ZIP64_END = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
/** A workbook's directory is a few kilobytes; more than this is not a workbook. */
const MAX_DIRECTORY = 64 * 1024 * 1024;
const READ_CHUNK = 64 * 1024;
/** `zlib.crc32` is in Node 20.15 and later; package.json allows 20.11. */
const crc32 = (zlib as { crc32?: (data: Buffer, value?: number) => number }).crc32;

/** Checks that FILE can be a workbook, then reads its zip's central directory. */
async function openZip(file: string, handle: FileHandle): Promise<Zip> {
  const stat = await handle.stat();
  if (stat.isDirectory()) throw fileSystemError(file, Object.assign(new Error('is a directory'), { code: 'EISDIR' }));
  const size = stat.size;
  const head = Buffer.alloc(Math.min(size, 512));
  await readFully(handle, head, 0);
  checkSignature(file, head, size);

  const tailLength = Math.min(size, 22 + 0xffff + 20);
  const tail = Buffer.alloc(tailLength);
  await readFully(handle, tail, size - tailLength);
  let end = -1;
  for (let i = tailLength - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === ZIP_END) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new ZipDamage('the end of its zip directory is missing: the file is cut short');
  let count = tail.readUInt16LE(end + 10);
  let dirSize = tail.readUInt32LE(end + 12);
  let dirOffset = tail.readUInt32LE(end + 16);
  if ((count === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff) && end >= 20 && tail.readUInt32LE(end - 20) === ZIP64_LOCATOR) {
    const zip64 = Buffer.alloc(56);
    await readFully(handle, zip64, Number(tail.readBigUInt64LE(end - 20 + 8)));
    if (zip64.readUInt32LE(0) !== ZIP64_END) throw new ZipDamage('its ZIP64 directory is missing');
    count = Number(zip64.readBigUInt64LE(32));
    dirSize = Number(zip64.readBigUInt64LE(40));
    dirOffset = Number(zip64.readBigUInt64LE(48));
  }
  if (dirOffset + dirSize > size) throw new ZipDamage('its zip directory points past the end of the file: the file is cut short');
  if (dirSize > MAX_DIRECTORY) throw new ZipDamage(`its zip directory is ${dirSize} bytes, far more than a workbook has`);
  const dir = Buffer.alloc(dirSize);
  await readFully(handle, dir, dirOffset);

  const entries = new Map<string, ZipEntry>();
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > dir.length || dir.readUInt32LE(at) !== ZIP_CENTRAL_FILE) throw new ZipDamage('its zip directory is damaged');
    const flags = dir.readUInt16LE(at + 8);
    const nameLength = dir.readUInt16LE(at + 28);
    const extraLength = dir.readUInt16LE(at + 30);
    const commentLength = dir.readUInt16LE(at + 32);
    const nameBytes = dir.subarray(at + 46, at + 46 + nameLength);
    const entry: ZipEntry = {
      name: nameBytes.toString(flags & 0x800 ? 'utf8' : 'latin1'),
      method: dir.readUInt16LE(at + 10),
      flags,
      crc: dir.readUInt32LE(at + 16),
      compressedSize: dir.readUInt32LE(at + 20),
      size: dir.readUInt32LE(at + 24),
      localOffset: dir.readUInt32LE(at + 42),
    };
    // ZIP64: the sizes and offset that do not fit in 32 bits are in extra field 0x0001, in this order.
    let extra = at + 46 + nameLength;
    const extraEnd = extra + extraLength;
    while (extra + 4 <= extraEnd) {
      const id = dir.readUInt16LE(extra);
      const length = dir.readUInt16LE(extra + 2);
      if (id === 0x0001) {
        let p = extra + 4;
        for (const field of ['size', 'compressedSize', 'localOffset'] as const) {
          if (entry[field] === 0xffffffff && p + 8 <= extra + 4 + length) {
            entry[field] = Number(dir.readBigUInt64LE(p));
            p += 8;
          }
        }
      }
      extra += 4 + length;
    }
    entries.set(entry.name.replace(/\\/g, '/').replace(/^\/+/, '').toLowerCase(), entry);
    at = extraEnd + commentLength;
  }

  async function* raw(entry: ZipEntry): AsyncGenerator<Buffer> {
    const local = Buffer.alloc(30);
    await readFully(handle, local, entry.localOffset);
    if (local.readUInt32LE(0) !== ZIP_LOCAL_FILE) throw new ZipDamage(`its part ${entry.name} is not where its zip directory says`);
    let position = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    const end = position + entry.compressedSize;
    if (end > size) throw new ZipDamage(`its part ${entry.name} is cut short`);
    while (position < end) {
      const length = Math.min(READ_CHUNK, end - position);
      const buffer = Buffer.allocUnsafe(length);
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      if (bytesRead === 0) throw new ZipDamage(`its part ${entry.name} is cut short`);
      position += bytesRead;
      yield bytesRead === length ? buffer : buffer.subarray(0, bytesRead);
    }
  }

  return {
    entry: (path) => entries.get(path.toLowerCase()),
    async *read(entry) {
      if (entry.flags & 0x1) throw new ZipDamage(`its part ${entry.name} is encrypted`);
      if (entry.method !== 0 && entry.method !== 8) throw new ZipDamage(`its part ${entry.name} is compressed with method ${entry.method}, which only deflate (8) and none (0) are for a workbook`);
      const source: AsyncIterable<Buffer> = entry.method === 8 ? pipeline(raw(entry), zlib.createInflateRaw(), () => {}) : raw(entry);
      let total = 0;
      let crc = 0;
      for await (const chunk of source) {
        total += chunk.length;
        if (total > entry.size) throw new ZipDamage(`its part ${entry.name} holds more than its zip directory says`);
        if (crc32) crc = crc32(chunk, crc);
        yield chunk;
      }
      if (total !== entry.size) throw new ZipDamage(`its part ${entry.name} is cut short`);
      if (crc32 && crc >>> 0 !== entry.crc) throw new ZipDamage(`its part ${entry.name} fails its checksum`);
    },
  };
}

async function readFully(handle: FileHandle, buffer: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buffer.length) {
    const { bytesRead } = await handle.read(buffer, done, buffer.length - done, position + done);
    if (bytesRead === 0) throw new ZipDamage('the file is cut short');
    done += bytesRead;
  }
}

// ---------------------------------------------------------------------------------------------
// The file

const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const EMPTY_ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const OLE2_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** Refuses, saying what it is instead, a file that cannot be an .xlsx workbook. */
function checkSignature(file: string, head: Buffer, size: number): void {
  const refuse = (what: string, todo = 'Open it in a spreadsheet and save it again as .xlsx, or export it as CSV.'): FileError =>
    new FileError(file, `cannot read ${file} as an .xlsx workbook: ${what}. ${todo}`);
  if (size === 0) throw refuse('the file is empty (0 bytes)');
  if (head.subarray(0, 4).equals(ZIP_SIGNATURE)) return;
  if (head.subarray(0, 4).equals(EMPTY_ZIP_SIGNATURE)) throw refuse('it is an empty zip archive');
  if (head.subarray(0, 8).equals(OLE2_SIGNATURE)) {
    throw refuse(
      'it is either protected with a password (Excel then encrypts the whole file) or an old-style .xls workbook',
      'Remove the password (File > Info > Protect Workbook > Encrypt with Password, clear it) or save it as .xlsx, then try again.',
    );
  }
  if (looksLikeText(head)) throw refuse('it is a text file, not a workbook', 'If it holds CSV, rename it to .csv; otherwise open it in a spreadsheet and save it as .xlsx.');
  throw refuse('it is not a zip archive, as every .xlsx workbook is');
}

function looksLikeText(head: Buffer): boolean {
  if (head.includes(0)) {
    // UTF-16 text has a zero in every other byte; its BOM says so.
    return (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff);
  }
  for (const b of head) if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c) return false;
  return true;
}
