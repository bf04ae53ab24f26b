import { DELIMITERS, detectDelimiter, headerLineEnd, type Delimiter } from './delimiter.ts';
import { closestSearch, HeaderSearch } from './header-search.ts';
import type { HeaderRule, IgnoredLine } from './types.ts';

/** Where the table of a CSV file starts, known from its first lines. */
export interface CsvTableStart {
  delimiter: Delimiter;
  /** The physical line of the header row. */
  headerLine: number;
  /** The header row's cells, split as csv-parse splits them when `plain`. */
  cells: string[];
  /** The header row holds no quote: `cells` are exactly what csv-parse would read (no engine needed for it). */
  plain: boolean;
  titles: IgnoredLine[];
}

/** Excel's delimiter hint, a first line `sep=;` (docs/reading-rules.md): it sets the delimiter and is no part of the table. */
const SEP_LINE = /^sep=([,;\t])$/i;

/**
 * Finds the header row and the delimiter in `text`, the start of a CSV file (decoded), before
 * the file is parsed: the delimiter must be known to parse it. Undefined when `text` is not
 * enough to tell yet (pass the text again with more of the file; `complete`: there is no more)
 * and when the file holds no row at all. Throws when no row is the header row.
 *
 * A `sep=` first line names the delimiter; with `--header-row N`, line N shows it as a first
 * line always did. Otherwise each delimiter is tried and the one under which the header row
 * comes first wins (a tie: the one `detectDelimiter` picks on that row): a title block above the
 * header has as few delimiters as it likes, so the first line alone cannot say. A file whose
 * first row qualifies under the delimiter its first line shows is settled from that line alone.
 */
export function findCsvTableStart(
  text: string,
  /** No more text will come: the file ends here, or (`cut`) the search stops here. */
  complete: boolean,
  file: string,
  rule: HeaderRule | undefined,
  headerRow: number | undefined,
  cut = false,
): CsvTableStart | undefined {
  const firstEnd = lineEnd(text, 0);
  if (firstEnd === -1 && !complete) return undefined;
  const sep = SEP_LINE.exec(text.slice(0, firstEnd === -1 ? text.length : firstEnd));
  const from = sep ? { offset: nextLine(text, firstEnd), line: 2 } : { offset: 0, line: 1 };
  const run = (d: Delimiter): Attempt => searchWith(d, text, from, complete, cut, new HeaderSearch(file, rule, headerRow, 'line'));
  const decided = (attempt: Attempt): CsvTableStart | undefined => {
    if (attempt.found !== undefined) return attempt.found;
    if (attempt.needMore) return undefined;
    if (attempt.unfinished) return unreadable(attempt.delimiter, text, from);
    const failure = attempt.search.failure();
    if (failure !== undefined) throw failure;
    return undefined; // no row at all: the reader says the file is empty
  };
  if (sep) return decided(run(sep[1] as Delimiter));
  if (headerRow !== undefined) {
    const at = physicalLine(text, headerRow);
    const end = at === undefined ? -1 : lineEnd(text, at);
    if (end === -1 && !complete) return undefined;
    return decided(run(at === undefined ? ',' : detectDelimiter(text.slice(at, end === -1 ? text.length : end))));
  }
  const body = text.replace(/^[\r\n]+/, '');
  const headEnd = headerLineEnd(body);
  const preferred = detectDelimiter(headEnd === -1 ? body : body.slice(0, headEnd));
  const quick = run(preferred);
  if (quick.found?.first) return quick.found;
  // Read as it always was, the start of the file does not end: say so, rather than guess another delimiter.
  if (quick.unfinished) return unreadable(preferred, text, from);
  const attempts = DELIMITERS.map((d) => (d === preferred ? quick : run(d)));
  if (attempts.some((a) => a.needMore)) return undefined;
  let best: Found | undefined;
  for (const { found } of attempts) {
    if (found === undefined) continue;
    if (best === undefined || found.headerLine < best.headerLine || (found.headerLine === best.headerLine && found.delimiter === detectDelimiter(found.raw))) best = found;
  }
  if (best !== undefined) return best;
  // No delimiter finds the header row: the error names the row that came closest under any of them.
  const closest = closestSearch(attempts.map((a) => a.search));
  return decided(attempts.find((a) => a.search === closest)!);
}

interface Found extends CsvTableStart {
  /** The header row is the first row that is not blank. */
  first: boolean;
  raw: string;
}

/**
 * The header search under one delimiter: the header row, or the text ends before the search does,
 * or neither (the search has failed; `unfinished`: a row it met does not end, an open quote or a
 * line longer than the search reads).
 */
interface Attempt {
  delimiter: Delimiter;
  search: HeaderSearch;
  found?: Found;
  needMore?: boolean;
  unfinished?: boolean;
}

function searchWith(delimiter: Delimiter, text: string, from: { offset: number; line: number }, complete: boolean, cut: boolean, search: HeaderSearch): Attempt {
  let unfinished = false;
  const records: HeadRecord[] = [];
  const settled = (): Attempt => {
    const head = search.settled!;
    const r = records.find((x) => x.line === head.line)!;
    const first = records.find((x) => x.cells.some((c) => c.trim() !== ''))?.line === r.line;
    return { delimiter, search, found: { delimiter, headerLine: r.line, cells: r.cells, plain: !r.raw.includes('"'), titles: search.titles(r.line), first, raw: r.raw } };
  };
  for (const r of headRecords(text, from, delimiter, complete)) {
    if (r === NEED_MORE) return { delimiter, search, needMore: true };
    if (cut && r.atEnd) {
      // The rest of it is not read: the rows read so far decide, or there is no header row.
      search.end();
      return search.settled !== undefined ? settled() : { delimiter, search, unfinished: true };
    }
    if (r.open) unfinished = true;
    records.push(r);
    search.offer(r.cells, r.line);
    if (search.settled !== undefined) return settled();
    if (search.exhausted) break;
  }
  if (!search.exhausted) search.end();
  if (search.settled !== undefined) return settled();
  return { delimiter, search, unfinished };
}

/**
 * A file whose first rows cannot be read (a quote left open, a line longer than the search
 * reads): its first row is taken as the header row, as it always was, so that reading it
 * reports what is wrong where it is (csv-parse's unclosed quote, the limits on a row).
 */
function unreadable(delimiter: Delimiter, text: string, from: { offset: number; line: number }): CsvTableStart {
  let line = from.line;
  for (let i = from.offset; i < text.length && (text[i] === '\r' || text[i] === '\n'); i++) {
    if (text[i] === '\n' || text[i + 1] !== '\n') line++;
  }
  return { delimiter, headerLine: line, cells: [], plain: false, titles: [] };
}

const NEED_MORE = Symbol('need more text');

interface HeadRecord {
  line: number;
  cells: string[];
  raw: string;
  /** It ends inside a quoted field (the text ends first). */
  open: boolean;
  /** It ends where the text ends, with no line break. */
  atEnd: boolean;
}

/**
 * The records of `text` as csv-parse reads them with `relax_quotes` (a quote opens a quoted field
 * only at the start of the field; `""` inside is one quote), each with the physical line it starts
 * on. Empty lines are skipped, as csv-parse's `skip_empty_lines` does. A record the text cuts off
 * ends the records with `NEED_MORE` unless `complete`.
 */
function* headRecords(text: string, from: { offset: number; line: number }, delimiter: Delimiter, complete: boolean): Generator<HeadRecord | typeof NEED_MORE> {
  let i = from.offset;
  let line = from.line;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x0d || c === 0x0a) {
      i = c === 0x0d && text.charCodeAt(i + 1) === 0x0a ? i + 2 : i + 1;
      line++;
      continue;
    }
    const start = i;
    const startLine = line;
    const cells: string[] = [];
    let cell = '';
    let atFieldStart = true;
    let quoted = false;
    let ended = false;
    while (i < n) {
      const ch = text[i]!;
      if (quoted) {
        if (ch === '"') {
          if (text[i + 1] === '"') {
            cell += '"';
            i += 2;
            continue;
          }
          quoted = false;
          i++;
          continue;
        }
        if (ch === '\r' || ch === '\n') {
          if (ch === '\r' && text[i + 1] === '\n') {
            cell += '\r\n';
            i += 2;
          } else {
            cell += ch;
            i++;
          }
          line++;
          continue;
        }
        cell += ch;
        i++;
        continue;
      }
      if (ch === '"' && atFieldStart) {
        quoted = true;
        atFieldStart = false;
        i++;
        continue;
      }
      if (ch === delimiter) {
        cells.push(cell);
        cell = '';
        atFieldStart = true;
        i++;
        continue;
      }
      if (ch === '\r' || ch === '\n') {
        ended = true;
        break;
      }
      cell += ch;
      atFieldStart = false;
      i++;
    }
    if (!ended && !complete) {
      yield NEED_MORE;
      return;
    }
    cells.push(cell);
    yield { line: startLine, cells, raw: text.slice(start, i), open: quoted, atEnd: !ended };
  }
  if (!complete) yield NEED_MORE;
}

/** The index of the first CR or LF at or after `from`, or -1. */
function lineEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || c === 0x0d) return i;
  }
  return -1;
}

function nextLine(text: string, end: number): number {
  if (end === -1) return text.length;
  return text.charCodeAt(end) === 0x0d && text.charCodeAt(end + 1) === 0x0a ? end + 2 : end + 1;
}

/** Where physical line `n` (1-based) starts in `text`, or undefined when the text ends before it. */
function physicalLine(text: string, n: number): number | undefined {
  let at = 0;
  for (let line = 1; line < n; line++) {
    const end = lineEnd(text, at);
    if (end === -1) return undefined;
    at = nextLine(text, end);
  }
  return at <= text.length ? at : undefined;
}

