import { FileError } from '../errors/index.ts';
import { DELIMITERS, delimiterOption, delimiterShown, detectDelimiter, headerLineEnd, type Delimiter } from './delimiter.ts';
import { closestSearch, HeaderSearch } from './header-search.ts';
import type { HeaderCandidate, HeaderRule, IgnoredLine } from './types.ts';
import { columnLetter } from './xlsx-cell.ts';

/**
 * docs/reading-rules.md: the most columns a row may have. The header search splits a row only up
 * to one cell past it (`headRecords`), so a 100,000-column line costs no per-column work: every
 * step after the split (names, repeated names, the mapping's check) is bounded by this.
 */
export const MAX_COLUMNS = 1000;

/** A row wider than `MAX_COLUMNS` under `delimiter`: the stop names its line and the first column past the limit. */
export function tooManyColumns(file: string, line: number, delimiter: Delimiter): FileError {
  const past = MAX_COLUMNS + 1;
  return new FileError(file, `${file}:${line}: the row has more than ${MAX_COLUMNS.toLocaleString('en-US')} columns (read with the delimiter ${delimiterShown(delimiter)}, column ${past.toLocaleString('en-US')}, ${columnLetter(past)}, is past the ${MAX_COLUMNS.toLocaleString('en-US')} an import reads). Is the delimiter right, and is this the file you meant? Delete the unused columns and save it again.`);
}

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
  /** The rows above the header row that are not blank, with their cells, the nearest last (group names, the title block). */
  above: readonly HeaderCandidate[];
}

/** Excel's delimiter hint, a first line `sep=;` (docs/reading-rules.md): it sets the delimiter and is no part of the table. */
const SEP_LINE = /^sep=([,;\t|])$/i;

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
 * `forced` (`--delimiter`, mapping key `"delimiter"`) wins over both; a `sep=` line is then still
 * no part of the table.
 *
 * When the delimiter was given (by `forced` or a `sep=` line) and no row is the header row under
 * it, but one is under another delimiter, the stop says so (`delimiterFits`): the header's names
 * are never to be mapped as one unsplit column. A QuickBooks IIF file stops at once (`iifFile`).
 */
export function findCsvTableStart(
  text: string,
  /** No more text will come: the file ends here, or (`cut`) the search stops here. */
  complete: boolean,
  file: string,
  rule: HeaderRule | undefined,
  headerRow: number | undefined,
  cut = false,
  forced?: Delimiter,
): CsvTableStart | undefined {
  const firstEnd = lineEnd(text, 0);
  if (firstEnd === -1 && !complete) return undefined;
  const firstLine = text.slice(0, firstEnd === -1 ? text.length : firstEnd);
  if (IIF_LINE.test(firstLine)) throw iifFile(file, firstLine);
  const sep = SEP_LINE.exec(firstLine);
  const from = sep ? { offset: nextLine(text, firstEnd), line: 2 } : { offset: 0, line: 1 };
  const run = (d: Delimiter): Attempt => searchWith(d, text, from, complete, cut, new HeaderSearch(file, rule, headerRow, 'line'));
  const decided = (attempt: Attempt): CsvTableStart | undefined => {
    if (attempt.found !== undefined) return attempt.found;
    if (attempt.wide !== undefined) throw tooManyColumns(file, attempt.wide, attempt.delimiter);
    if (attempt.needMore) return undefined;
    if (attempt.unfinished) return unreadable(attempt.delimiter, text, from);
    const failure = attempt.search.failure();
    if (failure !== undefined) throw failure;
    return undefined; // no row at all: the reader says the file is empty
  };
  const given = forced ?? (sep ? (sep[1] as Delimiter) : undefined);
  if (given !== undefined) {
    const attempt = run(given);
    if (attempt.wide === undefined && attempt.found === undefined && !attempt.needMore && !attempt.unfinished && attempt.search.failure() !== undefined) {
      const fits = DELIMITERS.filter((d) => d !== given).map(run).find((a) => a.found !== undefined);
      if (fits !== undefined) throw delimiterFits(file, given, fits.found!, forced !== undefined);
    }
    return decided(attempt);
  }
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
  // The delimiter the header line shows splits a row past the limit: that is the stop.
  if (quick.wide !== undefined) return decided(quick);
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
  const wide = attempts.find((a) => a.wide !== undefined);
  if (wide !== undefined) return decided(wide);
  // No delimiter finds the header row: the error names the row that came closest under any of them.
  const closest = closestSearch(attempts.map((a) => a.search));
  return decided(attempts.find((a) => a.search === closest)!);
}

/** A first line of a QuickBooks IIF file: `!TRNS`, `!SPL`, `!ACCNT`, … then a tab. */
const IIF_LINE = /^!(?:HDR|TRNS|SPL|ENDTRNS|ACCNT|VEND|CUST|EMP|OTHERNAME|INVITEM|CLASS|TERMS|BUD|TIMEACT|CTYPE|PAYMETH|SHIPMETH|VTYPE|INVMEMO|TODO)\t/;

/** A QuickBooks IIF file is QuickBooks' import format, no table of bills: the stop says what to export instead (docs/reading-rules.md). */
function iifFile(file: string, firstLine: string): FileError {
  const keyword = firstLine.slice(0, firstLine.indexOf('\t'));
  return new FileError(file, [
    `${file} is a QuickBooks IIF file (its first line starts ${keyword}; lines !TRNS and !SPL describe transactions and their splits): an import format of QuickBooks Desktop, not a table with a header row. `,
    { kind: 'iif-export' },
  ]);
}

/** No row is the header row under the delimiter given, but one is under `fits.delimiter`: say which, never advise mapping the unsplit names. */
function delimiterFits(file: string, given: Delimiter, fits: CsvTableStart, byOption: boolean): FileError {
  const how = byOption ? 'with the delimiter given' : `with the delimiter its first line names (sep=${given === '\t' ? 'tab' : given})`;
  return new FileError(file, [
    `${file}: read ${how}, ${delimiterShown(given)}, no row is the header row; the file is delimited by ${delimiterShown(fits.delimiter)} (line ${fits.headerLine} is then the header row): use `,
    { kind: 'option', option: 'delimiter', value: delimiterOption(fits.delimiter) },
    '.',
  ]);
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
  /** The line of a row wider than `MAX_COLUMNS` under this delimiter: the search stopped there. */
  wide?: number;
}

function searchWith(delimiter: Delimiter, text: string, from: { offset: number; line: number }, complete: boolean, cut: boolean, search: HeaderSearch): Attempt {
  let unfinished = false;
  const records: HeadRecord[] = [];
  const settled = (): Attempt => {
    const head = search.settled!;
    const r = records.find((x) => x.line === head.line)!;
    const first = records.find((x) => x.cells.some((c) => c.trim() !== ''))?.line === r.line;
    return { delimiter, search, found: { delimiter, headerLine: r.line, cells: r.cells, plain: !r.raw.includes('"'), titles: search.titles(r.line), above: search.rowsAbove(r.line), first, raw: r.raw } };
  };
  for (const r of headRecords(text, from, delimiter, complete)) {
    if (r === NEED_MORE) return { delimiter, search, needMore: true };
    if (cut && r.atEnd) {
      // The rest of it is not read: the rows read so far decide, or there is no header row.
      search.end();
      return search.settled !== undefined ? settled() : { delimiter, search, unfinished: true };
    }
    if (r.wide) return { delimiter, search, wide: r.line };
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
  return { delimiter, headerLine: line, cells: [], plain: false, titles: [], above: [] };
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
  /** It has more than `MAX_COLUMNS` cells: `cells` holds the first `MAX_COLUMNS + 1`, and the records end with it. */
  wide?: boolean;
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
    // A cell is `cell` (its text before the last `""` or closing quote) then text[seg, i): slices
    // of the text, never one string per character (a 1 MiB cell would be a million string pieces,
    // for each delimiter tried and each time more of the file is read).
    let cell = '';
    let seg = i;
    let atFieldStart = true;
    let quoted = false;
    let ended = false;
    while (i < n) {
      const ch = text[i]!;
      if (quoted) {
        if (ch === '"') {
          if (text[i + 1] === '"') {
            cell += text.slice(seg, i + 1);
            i += 2;
            seg = i;
            continue;
          }
          cell += text.slice(seg, i);
          quoted = false;
          i++;
          seg = i;
          continue;
        }
        if (ch === '\r' || ch === '\n') {
          i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
          line++;
          continue;
        }
        i++;
        continue;
      }
      if (ch === '"' && atFieldStart) {
        quoted = true;
        atFieldStart = false;
        i++;
        seg = i;
        continue;
      }
      if (ch === delimiter) {
        cells.push(cell + text.slice(seg, i));
        if (cells.length > MAX_COLUMNS) {
          // Past the limit: no more of it is split, and nothing after it is read.
          yield { line: startLine, cells, raw: text.slice(start, i), open: false, atEnd: false, wide: true };
          return;
        }
        cell = '';
        atFieldStart = true;
        i++;
        seg = i;
        continue;
      }
      if (ch === '\r' || ch === '\n') {
        ended = true;
        break;
      }
      atFieldStart = false;
      i++;
    }
    if (!ended && !complete) {
      yield NEED_MORE;
      return;
    }
    cells.push(cell + text.slice(seg, i));
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

