import type { CellRange, SheetFacts } from '../types.ts';
import { MAX_SHEET_COLUMN, parseCellRef } from '../xlsx-cell.ts';
import { LimitCounter, type PartOf } from './limits.ts';
import { XmlText, local, parseXml, type SaxTag } from './xml.ts';

/*
 * What a sheet shows besides its cells: merged ranges, hidden rows and columns, the autofilter.
 *
 * Why a pass of its own, before the rows are read: Excel writes `<cols>` before `<sheetData>`
 * but `<autoFilter>` and `<mergeCells>` after it, so a reader that streams the rows knows
 * neither when it hands them out, and the mapping needs both for the first row (a merged
 * category, a row a filter hides). Holding the rows until the end would hold the sheet.
 * So this pass reads the part once, cheaply: inflated and decoded as the row pass does, but the
 * inside of `<sheetData>` never reaches the XML parser (the costly part of reading a sheet). It
 * is scanned with `indexOf` for the word `hidden` only, and only a `<row>` tag around such a
 * word is looked at; the XML outside `<sheetData>` (a few kilobytes) is parsed as usual.
 * A hidden row is numbered by its `r`, which every writer we know writes; a hidden row without
 * one (the format allows it: it follows the row before) makes the pass read the sheet again
 * with the XML parser, counting rows as the row reader does.
 */

/** A tag cut by the end of a chunk is kept for the next; a longer one is damage, left to the row reader. */
const MAX_TAG = 64 * 1024;
const SHEET_DATA_OPEN = /<([A-Za-z_][\w.-]*:)?sheetData(?=[\s/>])[^>]*?(\/?)>/;
/** `hidden="1"` / `hidden='true'` at `lastIndex` (`hidden="false"`, which LibreOffice writes on every row, is not). */
const HIDDEN_TRUE = /hidden\s*=\s*(["'])(?:1|true)\1/y;
const ATTRIBUTE = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** Reads the facts of one sheet part; `read` gives its bytes (called a second time in the rare case above). */
export async function readSheetFacts(read: () => AsyncIterable<Buffer>, where: PartOf): Promise<SheetFacts> {
  const outside = new OutsideFacts(where);
  const rows = new HiddenRowScanner(where);
  for await (const events of parseXml(withoutSheetData(new XmlText().decode(read()), rows), where)) {
    for (const e of events) {
      if (e.eventType === 'opentag') outside.open(e.value);
      else if (e.eventType === 'closetag') outside.close();
    }
  }
  const hiddenRows = rows.unnumbered ? await countedHiddenRows(read, where) : rows.hidden;
  return outside.facts(hiddenRows);
}

/**
 * What the XML outside `<sheetData>` says: `<cols>`, `<autoFilter>`, `<mergeCells>` (children of
 * the worksheet only). Merged ranges and column definitions are counted within the workbook's
 * limits (`limits.ts`); a hidden `<col min max>` span costs two marks however wide it is (the
 * spans are added up once at the end), so overlapping spans never cost their width each.
 */
class OutsideFacts {
  private depth = 0;
  private readonly merged: CellRange[] = [];
  /** +1 where a hidden span starts, -1 after it ends, per column (1 = A). */
  private readonly hiddenSpans = new Int32Array(MAX_SHEET_COLUMN + 2);
  private autoFilter: CellRange | undefined;
  private readonly merges: LimitCounter;
  private readonly cols: LimitCounter;

  constructor(where: PartOf) {
    this.merges = new LimitCounter(where, 'mergedRanges');
    this.cols = new LimitCounter(where, 'columnDefinitions');
  }

  open(tag: SaxTag): void {
    this.depth += 1;
    const name = local(tag.name);
    const a = tag.attributes;
    if (this.depth === 2 && name === 'autoFilter') this.autoFilter = parseRange(a.ref) ?? this.autoFilter;
    else if (this.depth === 3 && name === 'mergeCell') {
      this.merges.add();
      const range = parseRange(a.ref);
      if (range) this.merged.push(range);
    } else if (this.depth === 3 && name === 'col') {
      this.cols.add();
      if (!isTrue(a.hidden)) return;
      const min = Number(a.min);
      const max = Math.min(Number(a.max ?? a.min), MAX_SHEET_COLUMN);
      if (Number.isInteger(min) && min >= 1 && min <= max) {
        this.hiddenSpans[min]! += 1;
        this.hiddenSpans[max + 1]! -= 1;
      }
    }
  }

  private hiddenColumns(): number[] {
    const out: number[] = [];
    let inside = 0;
    for (let c = 1; c <= MAX_SHEET_COLUMN; c++) if ((inside += this.hiddenSpans[c]!) > 0) out.push(c);
    return out;
  }

  close(): void {
    this.depth -= 1;
  }

  facts(hidden: number[]): SheetFacts {
    const hiddenRows = [...new Set(hidden)].sort((x, y) => x - y);
    const filter = this.autoFilter;
    return {
      merged: this.merged,
      hiddenRows,
      // The filter's first row holds its buttons: a filter never hides it.
      filterHiddenRows: filter ? hiddenRows.filter((r) => r > filter.top && r <= filter.bottom) : [],
      hiddenColumns: this.hiddenColumns(),
      autoFilter: filter,
    };
  }
}

/**
 * The sheet's text with the inside of `<sheetData>` taken out (handed to `rows` instead), so that
 * the XML parser sees an empty `<sheetData></sheetData>`.
 */
async function* withoutSheetData(text: AsyncIterable<string>, rows: HiddenRowScanner): AsyncGenerator<string> {
  let state: 'head' | 'body' | 'tail' = 'head';
  let close = '';
  let pending = '';
  for await (const chunk of text) {
    let data = pending + chunk;
    pending = '';
    if (state === 'head') {
      const open = SHEET_DATA_OPEN.exec(data);
      if (open === null) {
        const cut = unfinishedTag(data);
        pending = data.slice(cut);
        yield data.slice(0, cut);
        continue;
      }
      const after = open.index + open[0].length;
      close = `</${open[1] ?? ''}sheetData>`;
      yield data.slice(0, after);
      data = data.slice(after);
      if (open[2] === '/') state = 'tail';
      else {
        yield close;
        state = 'body';
      }
    }
    if (state === 'body') {
      const end = data.indexOf(close);
      if (end < 0) {
        pending = rows.scan(data);
        continue;
      }
      rows.scan(data.slice(0, end));
      data = data.slice(end + close.length);
      state = 'tail';
    }
    yield data;
  }
  if (state === 'head' && pending) yield pending;
}

/** Where a tag cut by the end of `data` starts (`data.length` when none is). */
function unfinishedTag(data: string): number {
  const lt = data.lastIndexOf('<');
  if (lt < 0 || data.indexOf('>', lt) >= 0 || data.length - lt > MAX_TAG) return data.length;
  return lt;
}

/** The rows of `<sheetData>` written with `hidden="1"`, found without parsing the XML. */
class HiddenRowScanner {
  readonly hidden: number[] = [];
  /** A hidden row had no `r`: its number is known only by counting the rows before it. */
  unnumbered = false;
  /** No sheet has more rows than this, hidden or not. */
  private readonly count: LimitCounter;

  constructor(where: PartOf) {
    this.count = new LimitCounter(where, 'rows');
  }

  /** Scans `data` up to a tag its end cuts, which it returns, to come first in the next chunk. */
  scan(data: string): string {
    const limit = unfinishedTag(data);
    for (let at = data.indexOf('hidden'); at >= 0 && at < limit; at = data.indexOf('hidden', at + 6)) {
      HIDDEN_TRUE.lastIndex = at;
      if (!HIDDEN_TRUE.test(data)) continue;
      // An attribute of a tag (not text): the last `<` before it comes after the last `>`, and a space precedes it.
      const lt = data.lastIndexOf('<', at);
      if (lt < 0 || data.lastIndexOf('>', at) > lt || !/\s/.test(data[at - 1]!)) continue;
      const gt = data.indexOf('>', at);
      const tag = data.slice(lt, gt + 1);
      const name = /^<([^\s/>]+)/.exec(tag)?.[1];
      if (name === undefined || local(name) !== 'row') continue;
      const r = attributesOf(tag).r;
      this.count.add();
      if (r !== undefined && /^\d+$/.test(r.trim())) this.hidden.push(Number(r));
      else this.unnumbered = true;
    }
    return data.slice(limit);
  }
}

/** The hidden rows, numbered as the row reader numbers them (a `<row>` without `r` follows the one before). */
async function countedHiddenRows(read: () => AsyncIterable<Buffer>, where: PartOf): Promise<number[]> {
  const hidden: number[] = [];
  let row = 0;
  for await (const events of parseXml(new XmlText().decode(read()), where)) {
    for (const e of events) {
      if (e.eventType !== 'opentag' || local(e.value.name) !== 'row') continue;
      const r = e.value.attributes.r;
      row = r === undefined ? row + 1 : Number(r);
      if (isTrue(e.value.attributes.hidden) && Number.isInteger(row)) hidden.push(row);
    }
  }
  return hidden;
}

function attributesOf(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(ATTRIBUTE)) out[m[1]!] = m[2] ?? m[3] ?? '';
  return out;
}

/** xsd:boolean as Excel and LibreOffice write it. */
function isTrue(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}

/** `A2:C4` or `B7` (a range of one cell); undefined when it is not a range of cells. */
function parseRange(ref: string | undefined): CellRange | undefined {
  if (ref === undefined) return undefined;
  const [from, to = from, extra] = ref.trim().split(':');
  if (extra !== undefined) return undefined;
  const a = parseCellRef(from!);
  const b = parseCellRef(to!);
  if (a === undefined || b === undefined) return undefined;
  return { ref: ref.trim(), top: Math.min(a.row, b.row), left: Math.min(a.col, b.col), bottom: Math.max(a.row, b.row), right: Math.max(a.col, b.col) };
}
