/**
 * Matching a file's columns, for the import page: the CLI's header rules, then close spellings and
 * synonyms (`suggestColumn`); a saved mapping checked as `--mapping` is; the page's choices turned
 * back into the CLI's mapping file; and the rows the check shows.
 */
import { BILL_COLUMNS, ERROR_COLUMN, ESTIMATE_COLUMNS, errorsFileColumnOf, normalizeHeader, parseMappingFile, resolveColumns, SOURCE_LINE_COLUMN, suggestColumn, type MappingFile } from '../mapping/index.ts';
import { importHeaderRule } from '../import/index.ts';
import { openTable, type EncodingOption, type HeaderRule } from '../tables/index.ts';
import type { ImportKind } from './run-import.ts';

export { ERROR_COLUMN, errorsFileColumnOf, normalizeHeader, SOURCE_LINE_COLUMN, type MappingFile };

const SAMPLE_ROWS = 3;
/** Rows and records the check shows (every invalid row besides). */
export const SHOWN_ROWS = 200;

/** The columns an import of `kind` knows. */
export function knownColumns(kind: ImportKind): readonly string[] {
  return kind === 'estimates' ? ESTIMATE_COLUMNS : BILL_COLUMNS;
}

/** A cell as the page shows and edits it: a date as YYYY-MM-DD. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return String(v);
}

/** The page's choices as the CLI's mapping file: `columns` for renamed headers, `ignore` for the rest. */
export function mappingFromChoices(
  columns: Record<string, string>,
  dateFormat?: string,
  decimalSeparator?: string,
  saved: { constants?: Record<string, string | number | boolean>; encoding?: string } = {},
): MappingFile {
  const out: { columns: Record<string, string>; ignore: string[]; constants: Record<string, string | number | boolean>; dateFormat?: string; decimalSeparator?: string; encoding?: string } = {
    columns: {},
    ignore: [],
    constants: { ...(saved.constants ?? {}) },
  };
  if (saved.encoding && saved.encoding !== 'auto') out.encoding = saved.encoding;
  for (const [header, column] of Object.entries(columns)) {
    if (errorsFileColumnOf(header) !== undefined) continue;
    if (column === '' || column === 'ignore') out.ignore.push(header);
    else if (normalizeHeader(header) !== normalizeHeader(column)) out.columns[header] = column;
  }
  if (dateFormat && dateFormat !== 'auto') out.dateFormat = dateFormat;
  if (decimalSeparator && decimalSeparator !== 'auto') out.decimalSeparator = decimalSeparator;
  return parseMappingFile(out, 'the page\'s column choices');
}

/** The page's choice for a header before any saved mapping: the CLI's header rules, then close spellings and synonyms. */
function defaultChoice(header: string, known: readonly string[]): string {
  const exact = known.find((k) => normalizeHeader(k) === normalizeHeader(header));
  return exact ?? (header.trim() === '' ? undefined : suggestColumn(header, known)) ?? 'ignore';
}

/**
 * The upload as the page first shows it: its header row found as the CLI finds it (a title block
 * above and a footer below are no part of the table), or, when no row has every required column
 * under the CLI's names, its first row, for the user to match.
 */
async function openUpload(file: string, kind: ImportKind, sheet: string | undefined) {
  try {
    return await openTable(file, { sheet, header: importHeaderRule(file, kind, undefined) });
  } catch {
    return openTable(file, { sheet });
  }
}

/** Headers, the CLI's matching plus `suggestColumn` for each, and a few sample values. */
export async function describeTable(file: string, name: string, kind: ImportKind, sheet?: string) {
  const table = await openUpload(file, kind, sheet);
  const known = knownColumns(kind);
  const columns = table.headers.map((h, index) => ({
    index,
    header: h,
    column: defaultChoice(h, known),
    samples: [] as string[],
  }));
  const shown = () => columns.filter((c) => errorsFileColumnOf(c.header) === undefined);
  let rows = 0;
  outer: for await (const batch of table.batches()) {
    for (const row of batch) {
      row.values.forEach((v, i) => columns[i]?.samples.push(cellText(v)));
      if (++rows >= SAMPLE_ROWS) break outer;
    }
  }
  return { kind: table.kind, columns: shown(), known: [...known], file: name, sheets: table.kind === 'xlsx' ? await sheetNames(file) : [] };
}

/** A workbook's sheet names, as the reader lists them when asked for a sheet it does not have. */
async function sheetNames(file: string): Promise<string[]> {
  try {
    await openTable(file, { sheet: '\u0000no such sheet' });
  } catch (err) {
    const m = /Its sheets are (.*); pass one/.exec((err as Error).message);
    if (m) return [...m[1]!.matchAll(/"([^"]*)"/g)].map((x) => x[1]!);
  }
  return [];
}

/**
 * A saved mapping (the CLI's mapping JSON, as `Download mapping` gives it) applied to the file's
 * columns: checked as the CLI checks `--mapping` (an entry naming a header the file does not have
 * is an error naming the closest one); a header it does not mention keeps the page's own choice.
 * `uploadName` is the file as the user named it; `edited`: the file is the page's UTF-8 copy.
 */
export async function savedMappingChoices(file: string, uploadName: string, kind: ImportKind, json: unknown, name: string, opts: { sheet?: string; edited?: boolean }) {
  const mapping = parseMappingFile(json, name);
  const table = await openTable(file, { sheet: opts.sheet, encoding: opts.edited ? undefined : mapping.encoding });
  const known = knownColumns(kind);
  // The CLI's strict check of the mapping's entries; headers the mapping leaves out are the page's to choose, not unknown.
  const mentioned = new Set([...Object.keys(mapping.columns), ...mapping.ignore].map(normalizeHeader));
  const knownNames = new Set(known.map(normalizeHeader));
  const unmentioned = table.headers.filter((h) => !mentioned.has(normalizeHeader(h)) && !knownNames.has(normalizeHeader(h)));
  const resolved = resolveColumns(table.headers, known, { ...mapping, ignore: [...mapping.ignore, ...unmentioned] }, uploadName, table.headerLine, { lenientMapping: false });
  const byIndex = new Map(resolved.columns().map((c) => [resolved.source(c)!.index, c]));
  const ignored = new Set(mapping.ignore.map(normalizeHeader));
  const columns = table.headers
    .map((header, index) => ({ header, index }))
    .filter((c) => errorsFileColumnOf(c.header) === undefined)
    .map(({ header, index }) => ({
      header,
      column: byIndex.get(index) ?? (ignored.has(normalizeHeader(header)) ? 'ignore' : defaultChoice(header, known)),
      fromMapping: byIndex.has(index) ? mentioned.has(normalizeHeader(header)) : ignored.has(normalizeHeader(header)),
    }));
  return {
    name,
    columns,
    dateFormat: mapping.dateFormat ?? 'auto',
    decimalSeparator: mapping.decimalSeparator ?? 'auto',
    encoding: mapping.encoding,
    constants: mapping.constants,
  };
}

/**
 * The first rows of the file (and every invalid one), by the line the report uses: an edited
 * file's `source_line`, else the row's own line (`Sheet!row` when every sheet of a workbook is
 * read). The errors file's own columns are not shown.
 * `at`: the header row the check found and the rule it was found by (no title or footer is shown as a row).
 */
export async function rowsOf(file: string, sheet: string | undefined, encoding: EncodingOption | undefined, invalidLines: Set<number>, at: { header?: HeaderRule; headerRow?: number } = {}) {
  const table = await openTable(file, { sheet, encoding, ...at });
  const sourceLine = table.headers.findIndex((h) => errorsFileColumnOf(h) === SOURCE_LINE_COLUMN);
  const keep = table.headers.map((_, i) => i).filter((i) => errorsFileColumnOf(table.headers[i]!) === undefined);
  const shown: Array<{ line: number | string; cells: string[] }> = [];
  for await (const batch of table.batches()) {
    for (const row of batch) {
      const line = sourceLine >= 0 && /^\d+$/.test(cellText(row.values[sourceLine])) ? Number(cellText(row.values[sourceLine])) : row.line;
      if (shown.length >= SHOWN_ROWS && !invalidLines.has(line)) continue;
      shown.push({ line: table.lineName?.(line) ?? line, cells: keep.map((i) => cellText(row.values[i])) });
    }
  }
  return { headers: keep.map((i) => table.headers[i]!), shown };
}
