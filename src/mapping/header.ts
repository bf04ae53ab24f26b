import { columnLetter, comparableName, type CellValue, type SourceRow } from '../tables/index.ts';
import { ConfigError, FileError, MAX_LISTED, andMore, type Advice } from '../errors/index.ts';
import type { MappingFile } from './mapping-file.ts';
import { isBuiltInPreset, presetPrefers, ruleColumnHeaders } from './presets.ts';
import { suggestHeader } from './suggest.ts';
import { Quoter, unknownColumnsMessage } from './header-messages.ts';

/**
 * The comparable form of a header or column name (docs/reading-rules.md): lower case, without spaces,
 * `_`, `-` and `.`, so `Unit Cost`, `unit_cost` and `UNITCOST` are one column. One rule with the
 * reader's (`comparableName`, which numbers a header row's repeated names by it).
 */
export const normalizeHeader: (name: string) => string = comparableName;

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

/**
 * The two columns an errors file (README, Reports, re-runs and `unknown`) adds after the input's own: `source_line`
 * (the row's line in the original file) and `error`. Matched like any header. The errors file
 * (import/errors-file.ts) writes them, the import (`resolveColumns`) and the dashboard's import
 * page recognise them.
 */
export const SOURCE_LINE_COLUMN = 'source_line';
export const ERROR_COLUMN = 'error';
export const ERRORS_FILE_COLUMNS = [SOURCE_LINE_COLUMN, ERROR_COLUMN] as const;
const SOURCE_LINE = normalizeHeader(SOURCE_LINE_COLUMN);
const ERROR = normalizeHeader(ERROR_COLUMN);

/** Which of the errors file's own columns `header` is (matched like any header), or undefined. */
export function errorsFileColumnOf(header: string): (typeof ERRORS_FILE_COLUMNS)[number] | undefined {
  const name = normalizeHeader(header);
  return name === SOURCE_LINE ? SOURCE_LINE_COLUMN : name === ERROR ? ERROR_COLUMN : undefined;
}

/** The canonical columns of one file, resolved once so each row is read by index. */
export class ColumnMap {
  private readonly sources: Map<string, ColumnSource>;
  /** Index of the errors file's `source_line` column (README, Reports, re-runs and `unknown`), -1 when the file has none. */
  readonly sourceLineIndex: number;
  /** Index of the errors file's `error` column (README, Reports, re-runs and `unknown`), -1 when the file has none. */
  readonly errorIndex: number;

  constructor(readonly file: string, sources: Iterable<ColumnSource>, errorsFile: { sourceLineIndex?: number; errorIndex?: number } = {}) {
    this.sources = new Map([...sources].map((s) => [s.column, s]));
    this.sourceLineIndex = errorsFile.sourceLineIndex ?? -1;
    this.errorIndex = errorsFile.errorIndex ?? -1;
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

  /**
   * .xlsx: how Excel names the cell at `line` (the report's line) under index `index` of the
   * header row (`Sheet1!D2`); set by the import for a workbook (`cellName`).
   */
  cellNamer: ((line: number, index: number) => string) | undefined;

  /** The cell of the file's column headed `header` at `line`, as Excel names it (`Sheet1!D2`); undefined for a CSV or a constant. */
  cellName(line: number, header: string): string | undefined {
    if (this.cellNamer === undefined) return undefined;
    for (const s of this.sources.values()) if (s.header === header && s.index >= 0) return this.cellNamer(line, s.index);
    return undefined;
  }
}

export interface ResolveColumnsOptions {
  /**
   * Allow `columns` keys and `ignore` entries that name a header the file does not have. Built-in
   * presets (`--mapping quickbooks|xero`) name alternatives (`Vendor` or `Supplier`) and are
   * always lenient; a user's mapping file is strict unless this is set, so that a misspelt entry
   * is never silently unused.
   * @defaultValue `true` for the built-in presets, `false` otherwise
   */
  lenientMapping?: boolean;
  /** Per header, the lower name of a grouped column that may name it alone (`OpenedTable.headerAliases`). */
  aliases?: readonly (string | undefined)[];
  /** .xlsx: how Excel names a cell (`OpenedTable.cellName`), for row errors (`ColumnMap.cellName`). */
  cellName?: (line: number, index: number) => string;
}

/**
 * Matches a file's headers to the importer's canonical columns (`known`), applying the mapping
 * file's renames, ignores and constants.
 *
 * Errors (`FileError`, each kind found all at once, in this order): two headers that are the same
 * column once normalised, or two headers mapped to one column; a mapping entry (`columns` key or
 * `ignore` entry) naming a header the file does not have (unless lenient, see
 * `ResolveColumnsOptions`), with the closest header; an unknown header, with the known column it
 * most likely is (`suggestColumn`) and the mapping that would read or skip it. A mapping that
 * renames to, or sets a constant for, a column the importer does not know is a `ConfigError`.
 *
 * Headers that are empty are skipped: spreadsheets leave trailing empty columns behind.
 * `source_line` and `error`, the errors file's own columns (README, Reports, re-runs and `unknown`), are not unknown:
 * their indexes are `ColumnMap.sourceLineIndex` and `errorIndex`.
 *
 * Messages quote at most 200 characters of the input (docs/reading-rules.md): long lists end in
 * "and N more", long names are cut.
 */
export function resolveColumns(
  headers: readonly string[],
  known: readonly string[],
  mapping: MappingFile | undefined,
  file: string,
  headerLine = 1,
  options: ResolveColumnsOptions = {},
): ColumnMap {
  const lenient = options.lenientMapping ?? isBuiltInPreset(mapping);
  const { knownByName, canonical, sources, byColumn, firstByName, unknown, clashes, sourceLineIndex, errorIndex, ambiguous } = matchHeaders(headers, known, mapping, options.aliases);

  const where = `${file}:${headerLine}`;
  if (ambiguous.length > 0) throw ambiguousError(file, where, headers, ambiguous);
  if (clashes.length > 0) {
    const q = new Quoter();
    const shown: string[] = [];
    for (const [a, b, column] of clashes.slice(0, MAX_LISTED)) {
      const qa = q.quote(a);
      const qb = q.quote(b);
      if (qa === undefined || qb === undefined) break;
      shown.push(column === undefined ? `${qa} and ${qb} are the same column` : `${qa} and ${qb} both give column ${column}`);
    }
    throw new FileError(
      file,
      [`${where}: duplicate columns: ${shown.join('; ')}${andMore(clashes.length - shown.length)}. `, { kind: 'duplicate-columns' }],
    );
  }
  if (!lenient && mapping !== undefined) checkMappingEntries(headers, firstByName, known, mapping, file, where);
  if (unknown.length > 0) {
    const taken = new Set(byColumn.keys());
    for (const name of Object.keys(mapping?.constants ?? {})) {
      const column = knownByName.get(normalizeHeader(name));
      if (column !== undefined) taken.add(column);
    }
    throw new FileError(file, unknownColumnsMessage(unknown, known, taken, `${where}: `));
  }

  for (const [name, value] of Object.entries(mapping?.constants ?? {})) {
    const column = canonical(name, 'sets a constant for');
    const inFile = byColumn.get(column);
    if (inFile !== undefined) {
      const header = new Quoter().quote(inFile.header)!;
      throw new ConfigError([MAPPING_FILE, ` sets a constant for ${column}, but ${file} has that column too (${header}). `, { kind: 'constant-and-column', header }]);
    }
    const source = { column, header: column, index: -1, constant: value };
    byColumn.set(column, source);
    sources.push(source);
  }
  const map = new ColumnMap(file, sources, { sourceLineIndex, errorIndex });
  map.cellNamer = options.cellName;
  return map;
}

/** What matching a row of headers to the columns found, before anything about it is refused. */
interface HeaderMatch {
  knownByName: Map<string, string>;
  /** The canonical column a mapping entry names; a `ConfigError` when it names none. */
  canonical: (name: string, what: string) => string;
  sources: ColumnSource[];
  byColumn: Map<string, ColumnSource>;
  /** Each normalised header's first spelling in the row. */
  firstByName: Map<string, string>;
  unknown: string[];
  /** Two headers that are one column: [first, second, the column when a mapping made them one]. */
  clashes: Array<[string, string, string | undefined]>;
  sourceLineIndex: number;
  errorIndex: number;
  /** How many different names of the row the mapping or the import's columns name (read or ignored): how well it reads as the header row. */
  named: number;
  /** Names that appear more than once in the row and name a column without saying which copy: [the name, the indexes of its copies]. */
  ambiguous: Array<[string, number[]]>;
}

/** `NAME (2)`: the name a repeated header is given (`src/tables/header-names.ts`), split into the name and its number. */
const REPEAT = /^(.*\S) \((\d+)\)$/;

/**
 * Matches one row of headers to the columns (the mapping's renames and ignores applied); refuses
 * nothing but a mapping to an unknown column. A header is matched by its name, else by its alias
 * (the lower name of a grouped column). A name written more than once (the copies named `NAME (2)`, …
 * by the reader): `"ignore": ["NAME"]` ignores every copy that the mapping does not name itself, and
 * a name that gives a column while another copy is neither named nor ignored is `ambiguous`.
 */
function matchHeaders(headers: readonly string[], known: readonly string[], mapping: MappingFile | undefined, aliases: readonly (string | undefined)[] = []): HeaderMatch {
  const { knownByName, canonical, renames, ignored, prefers } = namesOf(known, mapping);
  // Each header normalised once: the row is matched, its copies found and its clashes told from them.
  const normalized = headers.map(normalizeHeader);
  const names = new Set(normalized);
  const copies = copiesOf(headers, normalized, names);
  const isNamed = (name: string): boolean => ignored.has(name) || renames.has(name) || knownByName.has(name);
  /** A copy's own entry wins; else `ignore` of its name holds for every copy. */
  const isIgnored = (name: string): boolean => ignored.has(name) || (!renames.has(name) && copies.baseOf.has(name) && ignored.has(copies.baseOf.get(name)!));

  const sources: ColumnSource[] = [];
  const byColumn = new Map<string, ColumnSource>();
  const firstByName = new Map<string, string>();
  const unknown: string[] = [];
  const clashes: Array<[string, string, string | undefined]> = [];
  const ambiguous: Array<[string, number[]]> = [];
  let sourceLineIndex = -1;
  let errorIndex = -1;
  let named = 0;
  headers.forEach((header, index) => {
    const own = normalized[index]!;
    if (own === '') return;
    const earlier = firstByName.get(own);
    if (earlier !== undefined) {
      clashes.push([earlier, header, undefined]);
      return;
    }
    firstByName.set(own, header);
    const alias = aliases[index] === undefined ? undefined : normalizeHeader(aliases[index]);
    if (alias !== undefined && !firstByName.has(alias)) firstByName.set(alias, header);
    const name = isNamed(own) || isIgnored(own) || alias === undefined || !isNamed(alias) ? own : alias;
    if (isNamed(name) || isIgnored(name)) named++;
    if (isIgnored(name)) return;
    const column = renames.get(name) ?? knownByName.get(name);
    if (column === undefined) {
      if (name === SOURCE_LINE) sourceLineIndex = index;
      else if (name === ERROR) errorIndex = index;
      else unknown.push(header);
      return;
    }
    const others = copies.of.get(own)?.filter((i) => i !== index && !copyAccountedFor(normalized[i]!, renames, ignored));
    if (others !== undefined && others.length > 0) {
      ambiguous.push([header, [index, ...others].sort((x, y) => x - y)]);
      return;
    }
    const taken = byColumn.get(column);
    const source = { column, header, index };
    if (taken !== undefined) {
      if (prefers === undefined) clashes.push([taken.header, header, column]);
      // A preset's alternatives (`Line Amount` or `Amount`): the preferred one is read, the other left unread.
      else if (prefers(header, taken.header)) {
        byColumn.set(column, source);
        sources[sources.indexOf(taken)] = source;
      }
      return;
    }
    byColumn.set(column, source);
    sources.push(source);
  });
  return { knownByName, canonical, sources, byColumn, firstByName, unknown, clashes, sourceLineIndex, errorIndex, named, ambiguous };
}

/** What matching a row needs of the import's columns and the mapping, each name in its comparable form. */
interface KnownNames {
  knownByName: Map<string, string>;
  canonical: (name: string, what: string) => string;
  /** The mapping's renames: a header's comparable name -> its column. */
  renames: Map<string, string>;
  /** The comparable names the mapping ignores, or its bill rules read (`ruleColumns`). */
  ignored: Set<string>;
  prefers: ((a: string, b: string) => boolean) | undefined;
}

/**
 * The import's columns (`known`: ESTIMATE_COLUMNS, BILL_COLUMNS, constant lists) by comparable name, built once per list;
 * and with a mapping, its renames and ignores, once per mapping (a parsed mapping is never
 * changed). The header search matches some hundred rows against them in one dry run.
 */
const knownTables = new WeakMap<readonly string[], { byName: Map<string, string>; withMapping: WeakMap<MappingFile, KnownNames> }>();

function namesOf(known: readonly string[], mapping: MappingFile | undefined): KnownNames {
  let table = knownTables.get(known);
  if (table === undefined) {
    table = { byName: new Map(known.map((k) => [normalizeHeader(k), k])), withMapping: new WeakMap() };
    knownTables.set(known, table);
  }
  const knownByName = table.byName;
  const canonical = (name: string, what: string): string => {
    const column = knownByName.get(normalizeHeader(name));
    if (column === undefined) {
      throw new ConfigError([MAPPING_FILE, ` ${what} ${new Quoter().quote(name)}, which is not a column this import knows. Known columns: ${known.join(', ')}.`]);
    }
    return column;
  };
  if (mapping === undefined) return { knownByName, canonical, renames: new Map(), ignored: new Set(), prefers: undefined };
  const done = table.withMapping.get(mapping);
  if (done !== undefined) return done;
  const renames = new Map<string, string>();
  // A mapping to a column the import does not know throws here, each time: only a mapping that passes is kept.
  for (const [header, column] of Object.entries(mapping.columns ?? {})) {
    renames.set(normalizeHeader(header), canonical(column, `maps ${new Quoter().quote(header)} to`));
  }
  // The kind, status and summary columns of a bill mapping are read by its rules (`bill-kinds.ts`, `rows/summary-rows.ts`), not as fields.
  const ignored = new Set([...(mapping.ignore ?? []), ...ruleColumns(mapping).map(([, header]) => header)].map(normalizeHeader));
  const names: KnownNames = { knownByName, canonical, renames, ignored, prefers: presetPrefers(mapping, normalizeHeader) };
  table.withMapping.set(mapping, names);
  return names;
}

/**
 * The copies of each repeated name in a row of headers: `of` maps the first copy's name to every
 * copy's index; `baseOf` maps a copy's name (`name(2)`) to the first's. A `NAME (2)` whose `NAME`
 * is not in the row is a header of its own. `normalized`: the headers' comparable names, in order.
 */
function copiesOf(headers: readonly string[], normalized: readonly string[], names: ReadonlySet<string>): { of: Map<string, number[]>; baseOf: Map<string, string> } {
  const of = new Map<string, number[]>();
  const baseOf = new Map<string, string>();
  // `normalized`: each header's comparable name; the first column of each name found once: linear in the header.
  const firstOf = new Map<string, number>();
  normalized.forEach((name, index) => {
    if (!firstOf.has(name)) firstOf.set(name, index);
  });
  headers.forEach((header, index) => {
    const m = REPEAT.exec(header.trim());
    if (m === null || Number(m[2]) < 2) return;
    const base = normalizeHeader(m[1]!);
    if (!names.has(base)) return;
    baseOf.set(normalized[index]!, base);
    const columns = of.get(base);
    if (columns) columns.push(index);
    else of.set(base, [firstOf.get(base) ?? -1, index]);
  });
  return { of, baseOf };
}

/** A copy the mapping names itself (`"columns": {"Amount (2)": …}` or `"ignore": ["Amount (2)"]`). */
function copyAccountedFor(name: string, renames: ReadonlyMap<string, string>, ignored: ReadonlySet<string>): boolean {
  return renames.has(name) || ignored.has(name);
}

/**
 * `est.csv:1: "Amount" appears twice in the header row, in columns C and F (read as "Amount" and
 * "Amount (2)"), and which one is rate is not said. …`: a name that gives a column, with copies the
 * mapping does not tell apart.
 */
function ambiguousError(file: string, where: string, headers: readonly string[], ambiguous: ReadonlyArray<[string, number[]]>): FileError {
  const q = new Quoter();
  const said = ambiguous.slice(0, MAX_LISTED).map(([name, indexes]) => {
    const times = indexes.length === 2 ? 'twice' : `${indexes.length} times`;
    const read = indexes.map((i) => q.quote(headers[i]!) ?? '').join(' and ');
    return `${q.quote(name)} appears ${times} in the header row, in columns ${indexes.map((i) => columnLetter(i + 1)).join(' and ')} (read as ${read})`;
  });
  return new FileError(file, [`${where}: ${said.join('; ')}${andMore(ambiguous.length - said.length)}, and which one is meant is not said. `, { kind: 'duplicate-columns' }]);
}

/**
 * The columns a row would give as the header row, refusing nothing about the row (unknown or
 * duplicate headers, mapping entries it lacks): to tell the header row from a title block above
 * it (`headerRule`), which `resolveColumns` then checks as it checks any header row. The
 * mapping's constants count as columns. `unknown`: its headers that name no column; `named`: how
 * many of its names the mapping or the known columns name (constants never count: a title line is
 * no header row because the constants give every required column).
 */
export function candidateColumns(
  headers: readonly string[],
  known: readonly string[],
  mapping: MappingFile | undefined,
  file: string,
  aliases?: readonly (string | undefined)[],
): { columns: ColumnMap; unknown: string[]; named: number } {
  const { knownByName, sources, byColumn, unknown, sourceLineIndex, errorIndex, named } = matchHeaders(headers, known, mapping, aliases);
  const all = [...sources];
  for (const [name, value] of Object.entries(mapping?.constants ?? {})) {
    const column = knownByName.get(normalizeHeader(name));
    if (column !== undefined && !byColumn.has(column)) all.push({ column, header: column, index: -1, constant: value });
  }
  return { columns: new ColumnMap(file, all, { sourceLineIndex, errorIndex }), unknown, named };
}

/** The headers a bill mapping's `kinds`, `status` and `summaryRows` rules read. */
function ruleColumns(mapping: MappingFile | undefined): Array<['kinds' | 'status' | 'summaryRows', string]> {
  const out: Array<['kinds' | 'status' | 'summaryRows', string]> = [];
  for (const header of ruleColumnHeaders(mapping, 'kinds')) out.push(['kinds', header]);
  for (const header of ruleColumnHeaders(mapping, 'status')) out.push(['status', header]);
  const summary = mapping?.summaryRows;
  if (summary !== undefined && summary !== 'none') out.push(['summaryRows', summary.column]);
  return out;
}

/** "the mapping file", as each front names it (on the page: the saved mapping). */
const MAPPING_FILE: Advice = { kind: 'mapping-file' };

/** A mapping entry naming a header the file does not have: an error, naming the closest header. */
function checkMappingEntries(
  headers: readonly string[],
  present: ReadonlyMap<string, string>,
  known: readonly string[],
  mapping: MappingFile,
  file: string,
  where: string,
): void {
  const stale: Array<{ kind: 'columns' | 'ignore' | 'kinds' | 'status' | 'summaryRows'; entry: string; column?: string }> = [];
  for (const [entry, column] of Object.entries(mapping.columns)) {
    if (!present.has(normalizeHeader(entry))) stale.push({ kind: 'columns', entry, column });
  }
  for (const entry of mapping.ignore) {
    if (!present.has(normalizeHeader(entry))) stale.push({ kind: 'ignore', entry });
  }
  for (const [kind, entry] of ruleColumns(mapping)) {
    if (!present.has(normalizeHeader(entry))) stale.push({ kind, entry });
  }
  if (stale.length === 0) return;

  const q = new Quoter();
  const named: string[] = [];
  for (const s of stale.slice(0, MAX_LISTED)) {
    const entry = q.quote(s.entry);
    if (entry === undefined) break;
    const guess = suggestHeader(s.entry, headers, known, s.column);
    const quotedGuess = guess === undefined ? undefined : q.quote(guess);
    const target = s.kind === 'columns' ? ` → ${s.column}` : '';
    named.push(`"${s.kind}" ${s.kind === 'columns' || s.kind === 'ignore' ? 'entry' : 'column'} ${entry}${target}${quotedGuess === undefined ? '' : ` (did you mean ${quotedGuess}?)`}`);
  }
  const nonEmpty = headers.filter((h) => h.trim() !== '');
  const listed = q.list(nonEmpty, MAX_LISTED);
  throw new FileError(file, [
    `${where}: `,
    MAPPING_FILE,
    ` names ${stale.length > 1 ? 'headers' : 'a header'} that ${file} does not have: ${named.join(', ')}${andMore(stale.length - named.length)}. ` +
      `The header row has ${listed}. Correct ${stale.length > 1 ? 'these entries' : 'the entry'} to the header as written (case, spaces, _, - and . do not matter), or remove ${stale.length > 1 ? 'them' : 'it'}.`,
  ]);
}
