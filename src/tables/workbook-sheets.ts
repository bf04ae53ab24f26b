import { FileError, MAX_LISTED, listAtMost } from '../errors/index.ts';
import { flatten } from './flatten.ts';
import { ALL_SHEETS, SHEET_STRIDE, type IgnoredLine, type OpenedTable, type OpenTableOptions, type SourceRow, type WorkbookFacts } from './types.ts';
import { columnLetter, sheetRefName } from './xlsx-cell.ts';
import type { SheetTableOptions } from './xlsx/sheet.ts';
import type { SheetSummary } from './xlsx/read-xlsx.ts';

/*
 * Which sheets of a workbook are read (docs/reading-rules.md, ".xlsx sheets"). A workbook often keeps
 * an old revision, a lists tab or notes beside the table people look at; reading its first tab
 * silently read the superseded one. So, for an import (a `header` rule says what a table is):
 *  - `--sheet NAME`: that sheet, hidden or not;
 *  - no `--sheet`: the visible worksheets in which a header row is found are the candidates; one
 *    is read, several stop the import, naming each with its rows and the active tab;
 *  - `--sheet all`: every candidate, in tab order, as one table (`combineSheets`).
 * Finding the candidates reads each sheet only as far as the header search looks.
 * Without a `header` rule (a preview, a vendors file) the first visible sheet is read, as before.
 */

/** Opens the sheet(s) of an .xlsx that `opts.sheet` and `opts.header` ask for (see above). */
export async function openWorkbook(
  file: string,
  opts: OpenTableOptions,
  openSheet: (sheet: string | undefined) => Promise<OpenedTable>,
  probe: (table: SheetTableOptions) => Promise<{ workbook: WorkbookFacts; withHeader: string[] }>,
  summarize: (table: SheetTableOptions, max: number) => Promise<SheetSummary[]>,
): Promise<OpenedTable> {
  const all = opts.sheet?.toLowerCase() === ALL_SHEETS;
  if (opts.sheet !== undefined && !all) return openSheet(opts.sheet);
  if (!all && opts.header === undefined) return openSheet(undefined);
  const table = { header: opts.header, headerRow: opts.headerRow };
  const { workbook, withHeader } = await probe(table);
  if (withHeader.length === 0) {
    const visible = workbook.sheets.filter((s) => s.worksheet && s.state === 'visible');
    // One visible sheet, and nothing else to choose: its read says what its closest row lacks.
    if (visible.length === 1 && workbook.sheets.length === 1) return openSheet(undefined);
    throw noSheetWithTable(file, workbook, await summarize(table, MAX_LISTED));
  }
  if (!all) {
    if (withHeader.length === 1) return openSheet(withHeader[0]);
    throw await severalSheets(file, workbook, withHeader, openSheet);
  }
  const parts: OpenedTable[] = [];
  for (const name of withHeader) parts.push(await openSheet(name));
  return combineSheets(file, parts, workbook.sheets.map((s) => s.name).filter((n) => !withHeader.includes(n)));
}

/**
 * The stop when no visible sheet holds a table: every sheet (at most 10, then how many more), with
 * its rows and whether it has a header row, hidden ones said hidden, a sheet of a pivot table or a
 * chart said to be one; `--sheet NAME` proposed for the first sheet with a header row.
 */
export function noSheetWithTable(file: string, workbook: WorkbookFacts, sheets: readonly SheetSummary[]): FileError {
  const listed = listAtMost(sheets.map(describeSheet), workbook.sheets.length);
  const proposed = sheets.find((s) => s.header) ?? sheets.find((s) => s.worksheet && s.rows > 0 && !s.pivot) ?? sheets.find((s) => s.worksheet);
  return new FileError(file, [
    `${file}: no visible sheet holds a table (a header row with every required column). Its sheets: ${listed}. `,
    { kind: 'name-sheet', sheet: proposed?.name ?? workbook.sheets[0]?.name ?? '' },
  ]);
}

function describeSheet(s: SheetSummary): string {
  const rows = `${s.rows} ${s.rows === 1 ? 'row' : 'rows'}`;
  const what = !s.worksheet
    ? 'a chart sheet'
    : s.rows === 0
      ? s.chart ? 'a chart' : s.pivot ? 'a pivot table' : 'empty'
      : s.pivot && !s.header
        ? `a pivot table, ${rows}`
        : s.chart && !s.header
          ? `a chart, ${rows}`
          : `${rows}, ${s.header ? 'with a header row' : 'no header row'}`;
  return `"${s.name}" (${s.state === 'visible' ? '' : 'hidden, '}${what})`;
}

/** The stop when several sheets hold a table: each listed (at most `MAX_LISTED`) with its rows, and the tab shown when the workbook was saved. */
async function severalSheets(file: string, workbook: WorkbookFacts, names: string[], openSheet: (sheet: string) => Promise<OpenedTable>): Promise<FileError> {
  const listed: string[] = [];
  for (const name of names.slice(0, MAX_LISTED)) {
    let rows = 0;
    for await (const batch of (await openSheet(name)).batches()) rows += batch.length;
    listed.push(`"${name}" (${rows} ${rows === 1 ? 'row' : 'rows'})`);
  }
  const active = workbook.sheets[workbook.activeTab]?.name;
  return new FileError(file, [
    `${file} has ${names.length} sheets with a table: ${listAtMost(listed, names.length)}. ` + (active === undefined ? '' : `"${active}" was the active sheet when the workbook was saved. `),
    { kind: 'choose-sheet', sheet: active !== undefined && names.includes(active) ? active : names[0]! },
  ]);
}

/**
 * The sheets `parts` (in tab order) as one table, for `--sheet all`: read with one mapping, so
 * their header rows must name the same columns in the same order. A row of the `k`th sheet is
 * numbered `k × SHEET_STRIDE + row`: every pass numbers it alike without first reading the sheets
 * before it, and `lineName` turns the number back into `Sheet!row` for the report.
 */
export function combineSheets(file: string, parts: OpenedTable[], sheetsNotRead: string[]): OpenedTable {
  const first = parts[0]!;
  const nameOf = (t: OpenedTable): string => t.workbook?.sheet ?? '';
  for (const t of parts.slice(1)) sameHeaders(file, first, t, nameOf);
  const shift = (lines: IgnoredLine[] | undefined, k: number): IgnoredLine[] => (lines ?? []).map((l) => ({ ...l, line: l.line + k * SHEET_STRIDE }));
  const all = (pick: (t: OpenedTable) => IgnoredLine[] | undefined): IgnoredLine[] => parts.flatMap((t, k) => shift(pick(t), k));
  async function* batches(): AsyncGenerator<SourceRow[]> {
    for (let k = 0; k < parts.length; k++) {
      const offset = k * SHEET_STRIDE;
      for await (const batch of parts[k]!.batches()) {
        if (offset > 0) for (let i = 0; i < batch.length; i++) batch[i]!.line += offset;
        yield batch;
      }
    }
  }
  return {
    file,
    headers: first.headers,
    ...(first.headerAliases === undefined ? {} : { headerAliases: first.headerAliases }),
    headerLine: first.headerLine,
    kind: 'xlsx',
    date1904: first.date1904,
    workbook: first.workbook,
    parts,
    sheetsNotRead,
    lineName: sheetLineName(parts.map(nameOf)),
    cellName: (line, index) => {
      const k = Math.floor((line - 1) / SHEET_STRIDE);
      return parts[k]?.cellName?.(line - k * SHEET_STRIDE, index) ?? String(line);
    },
    titles: all((t) => t.titles),
    get footers() {
      return all((t) => t.footers);
    },
    set footers(_lines: IgnoredLine[]) {
      // Each sheet keeps its own.
    },
    get hiddenLines() {
      return all((t) => t.hiddenLines);
    },
    get repeatedHeaders() {
      return all((t) => t.repeatedHeaders);
    },
    batches,
    rows: () => flatten(batches()),
  };
}

/** How the report names a line of `--sheet all` that read `sheets` (in order): `'Rev B'!7`. */
export function sheetLineName(sheets: readonly string[]): (line: number) => string {
  return (line) => {
    const k = Math.floor((line - 1) / SHEET_STRIDE);
    const name = sheets[k];
    return name === undefined ? String(line) : `${sheetRefName(name)}!${line - k * SHEET_STRIDE}`;
  };
}

/**
 * A message with the lines it names (`book.xlsx:N`, `line N`, `lines N, M and K`) named as
 * `sheetLineName` names them (`March!3`), so that with every sheet read a message points at the
 * row the report's `line` column names, never at the reader's internal line number.
 */
export function sheetLinesIn(sheets: readonly string[]): (text: string) => string {
  const name = sheetLineName(sheets);
  return (text) => linesNamedIn(text, name);
}

/** `text` with the lines it names (`book.xlsx:N`, `line N`, `lines N, M and K`) named by `name`. */
export function linesNamedIn(text: string, name: (line: number) => number | string): string {
  const one = (n: string) => String(name(Number(n)));
  return text
    .replace(/(\.xls[xm]:)(\d+)\b/gi, (_m, pre: string, n: string) => `${pre}${one(n)}`)
    .replace(/\b(lines?) (\d+(?:(?:, | and )\d+\b(?! more\b))*)\b(?![.,]\d)/g, (_m, word: string, list: string) => `${word} ${list.replace(/\d+/g, one)}`);
}

/** Headers are compared as the mapping compares them: case, spaces, `_`, `-` and `.` ignored. */
function sameHeaders(file: string, first: OpenedTable, other: OpenedTable, nameOf: (t: OpenedTable) => string): void {
  const norm = (h: string | undefined): string => (h ?? '').toLowerCase().replace(/[\s_.-]/g, '');
  const width = Math.max(first.headers.length, other.headers.length);
  for (let i = 0; i < width; i++) {
    if (norm(first.headers[i]) === norm(other.headers[i])) continue;
    const shown = (h: string | undefined): string => (h === undefined || h.trim() === '' ? 'empty' : `"${h}"`);
    throw new FileError(file, [
      { kind: 'option', option: 'sheet', value: 'all' },
      ` reads every sheet with one mapping, but the header row of "${nameOf(other)}" (row ${other.headerLine}) differs from that of "${nameOf(first)}" (row ${first.headerLine}): ` +
        `column ${columnLetter(i + 1)} is ${shown(first.headers[i])} in "${nameOf(first)}" and ${shown(other.headers[i])} in "${nameOf(other)}". ` +
        'Make their header rows name the same columns in the same order, ',
      { kind: 'one-sheet-at-a-time' },
    ]);
  }
}
