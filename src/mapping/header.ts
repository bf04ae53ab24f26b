import type { CellValue, SourceRow } from '../csv/index.ts';
import { ConfigError, FileError } from '../errors/index.ts';
import type { MappingFile } from './mapping-file.ts';

/**
 * The comparable form of a header or column name (CONTRACT.md §3): lower case, without spaces,
 * `_`, `-` and `.`, so `Unit Cost`, `unit_cost` and `UNITCOST` are one column.
 */
export function normalizeHeader(name: string): string {
  return name.toLowerCase().replace(/[\s_.-]+/g, '');
}

/** Where one canonical column's values come from. */
export interface ColumnSource {
  /** The canonical column name, as in the importer's list. */
  column: string;
  /** The header as written in the file, or the column name for a constant; use it in messages. */
  header: string;
  /** Index into `SourceRow.values`, or -1 for a constant. */
  index: number;
  /** The mapping file's constant for this column, when it has one. */
  constant?: CellValue;
}

/** The canonical columns of one file, resolved once so each row is read by index. */
export class ColumnMap {
  private readonly sources: Map<string, ColumnSource>;
  constructor(readonly file: string, sources: Iterable<ColumnSource>) {
    this.sources = new Map([...sources].map((s) => [s.column, s]));
  }

  /** True when the file (or a constant) provides the column. */
  has(column: string): boolean {
    return this.sources.has(column);
  }

  source(column: string): ColumnSource | undefined {
    return this.sources.get(column);
  }

  /** The columns provided, in file order with constants last. */
  columns(): string[] {
    return [...this.sources.keys()];
  }

  /** The column's cell in `row` (the constant when mapped to one); `null` when the column is absent. */
  value(row: SourceRow, column: string): CellValue {
    const s = this.sources.get(column);
    if (s === undefined) return null;
    return s.index === -1 ? (s.constant ?? null) : (row.values[s.index] ?? null);
  }

  /** The name to show for the column in a message: its header as written in the file. */
  header(column: string): string {
    return this.sources.get(column)?.header ?? column;
  }
}

/**
 * Matches a file's headers to the importer's canonical columns (`known`), applying the mapping
 * file's renames, ignores and constants.
 *
 * Errors (`FileError`, all found at once): an unknown header (naming every one and how to ignore
 * or rename it in the mapping file), two headers that are the same column once normalised, two
 * headers mapped to one column. A mapping that renames to, or sets a constant for, a column the
 * importer does not know is a `ConfigError`. Headers that are empty are skipped: spreadsheets
 * leave trailing empty columns behind.
 */
export function resolveColumns(
  headers: readonly string[],
  known: readonly string[],
  mapping: MappingFile | undefined,
  file: string,
  headerLine = 1,
): ColumnMap {
  const knownByName = new Map(known.map((k) => [normalizeHeader(k), k]));
  const canonical = (name: string, what: string): string => {
    const column = knownByName.get(normalizeHeader(name));
    if (column === undefined) {
      throw new ConfigError(`the mapping file ${what} "${name}", which is not a column this import knows. Known columns: ${known.join(', ')}.`);
    }
    return column;
  };
  const renames = new Map<string, string>();
  for (const [header, column] of Object.entries(mapping?.columns ?? {})) {
    renames.set(normalizeHeader(header), canonical(column, `maps "${header}" to`));
  }
  const ignored = new Set((mapping?.ignore ?? []).map(normalizeHeader));

  const sources: ColumnSource[] = [];
  const byColumn = new Map<string, ColumnSource>();
  const firstByName = new Map<string, string>();
  const unknown: string[] = [];
  const clashes: string[] = [];
  headers.forEach((header, index) => {
    const name = normalizeHeader(header);
    if (name === '') return;
    const earlier = firstByName.get(name);
    if (earlier !== undefined) {
      clashes.push(`"${earlier}" and "${header}" are the same column`);
      return;
    }
    firstByName.set(name, header);
    if (ignored.has(name)) return;
    const column = renames.get(name) ?? knownByName.get(name);
    if (column === undefined) {
      unknown.push(header);
      return;
    }
    const taken = byColumn.get(column);
    if (taken !== undefined) {
      clashes.push(`"${taken.header}" and "${header}" both give column ${column}`);
      return;
    }
    const source = { column, header, index };
    byColumn.set(column, source);
    sources.push(source);
  });

  const where = `${file}:${headerLine}`;
  if (clashes.length > 0) {
    throw new FileError(file, `${where}: duplicate columns: ${clashes.join('; ')}. Keep one of each, or skip the others with "ignore": [...] in the mapping file (--mapping MAP.json).`);
  }
  if (unknown.length > 0) {
    const list = unknown.map((h) => JSON.stringify(h));
    throw new FileError(
      file,
      `${where}: unknown column${unknown.length > 1 ? 's' : ''} ${list.join(', ')}. Known columns: ${known.join(', ')} (case, spaces, _, - and . do not matter). ` +
        `To skip ${unknown.length > 1 ? 'them' : 'it'}, pass a mapping file with --mapping MAP.json containing {"ignore": [${list.join(', ')}]}; ` +
        `to read one as a known column, add "columns": {${list[0]}: "<column>"}.`,
    );
  }

  for (const [name, value] of Object.entries(mapping?.constants ?? {})) {
    const column = canonical(name, 'sets a constant for');
    const inFile = byColumn.get(column);
    if (inFile !== undefined) {
      throw new ConfigError(`the mapping file sets a constant for ${column}, but ${file} has that column too ("${inFile.header}"). Remove the constant, or add "${inFile.header}" to "ignore".`);
    }
    const source = { column, header: column, index: -1, constant: value };
    byColumn.set(column, source);
    sources.push(source);
  }
  return new ColumnMap(file, sources);
}
