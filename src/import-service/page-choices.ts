/**
 * What the import page preselects for each column of a file (README, The import page): in order,
 * the choice the page sent for that header, the last mapping sent for these headers, the preset's
 * reading (QuickBooks, Xero: its kind and status columns are read as the kind of each row, never
 * as a field), the column of the header's own name; then, for the headers left, a guess: close
 * spellings and other names of a column (`suggestColumn`: `UOM` → unit, `Unit Price` → unit_cost),
 * the better match first (a header's own name in another spelling, then another name of a column,
 * then a near spelling, then a mere guess: `Amount` yields to `Unit Cost`, suggest.ts), never a
 * column another header already gives, and never one whose type the column's values do
 * not fit (a column of text that is no number, such as QuickBooks' `Account` = "Job Materials",
 * is never a rate or a quantity; a column of non-dates never a date). A header a preset reads as the kind of a row (`Type`) is
 * never guessed as bill_type. The kind and status columns of a saved mapping's own rules (`rules`,
 * page-state.ts) are read as a preset's are: the kind or status of each row, never a field.
 */
import {
  cellFits, columnTypes, detectPreset, errorsFileColumnOf, GUESS_STRENGTHS, guessColumn, normalizeHeader, presetMapping, ruleColumnHeaders, sameMeaning, type ColumnType, type MappingRules,
} from '../mapping/index.ts';
import type { CellValue } from '../tables/index.ts';
import { knownColumns, presetChoices, type AppliedLayout } from './page-state.ts';
import type { ImportKind } from './run-import.ts';

export interface ColumnChoice {
  /** Where the column is in the header row (blank headers are not listed). */
  index: number;
  header: string;
  /** A known column, or `ignore`. */
  column: string;
  /** The preset (or the saved mapping's rules) reads this column as the kind or status of each row; `column` is then `ignore`. */
  role?: 'kind' | 'status';
}

export interface ChoiceSources {
  kind: ImportKind;
  headers: readonly string[];
  layout: AppliedLayout;
  /** Values of each column (by header index) a guess is judged by: a blank one fits every type. */
  values: ReadonlyArray<readonly CellValue[] | undefined>;
  /** The page's choices, header → column or `ignore`. */
  requested?: Readonly<Record<string, string>>;
  /** The last mapping's choices for these headers. */
  saved?: Readonly<Record<string, string>>;
  /** A saved mapping's own rules of rows: their kind and status columns have that role. */
  rules?: MappingRules;
}

/** A choice as given (`''` is Ignore), the column by its canonical name; undefined when it names no column of the import. */
function validChoice(choice: string | undefined, knownByName: ReadonlyMap<string, string>): string | undefined {
  if (choice === undefined) return undefined;
  if (choice === '' || choice === 'ignore') return 'ignore';
  return knownByName.get(normalizeHeader(choice));
}

/** Header → choice, headers compared as the CLI compares them. */
function byHeader(choices: Readonly<Record<string, string>> | undefined): (header: string) => string | undefined {
  const map = new Map(Object.entries(choices ?? {}).map(([h, c]) => [normalizeHeader(h), c]));
  return (header) => map.get(normalizeHeader(header));
}

/**
 * True when the values are of `type`: most of them fit a field of it (a bad cell or two is the
 * check's to mark, not a reason to leave the column unmatched). No values: nothing to judge.
 */
function valuesFit(type: ColumnType | undefined, values: readonly CellValue[] | undefined): boolean {
  if (type === undefined || type === 'text' || values === undefined) return true;
  const fitting = values.filter((v) => cellFits(type, v)).length;
  return fitting * 2 >= values.length;
}

/** The page's choice for each column of `headers` (see above), blank headers and the errors file's own columns left out. */
export function columnChoices(src: ChoiceSources): ColumnChoice[] {
  const { kind, headers } = src;
  const known = knownColumns(kind);
  const types = columnTypes(kind);
  const knownByName = new Map(known.map((k) => [normalizeHeader(k), k]));
  const byPreset = presetChoices(src.layout, kind, headers, src.rules);
  const requested = byHeader(src.requested);
  const saved = byHeader(src.saved);
  // A header a preset reads as the kind of a row is no bill_type, whichever layout is chosen.
  const detected = kind === 'bills' ? detectPreset(headers) : undefined;
  const kindHeaders = new Set(detected === undefined ? [] : ruleColumnHeaders(presetMapping(detected), 'kinds').map(normalizeHeader));
  const out: ColumnChoice[] = [];
  const taken = new Set<string>();
  const toGuess: ColumnChoice[] = [];
  headers.forEach((header, index) => {
    if (header.trim() === '' || errorsFileColumnOf(header) !== undefined) return;
    const preset = byPreset[index]!;
    if (preset.role !== undefined) {
      out.push({ index, header, column: 'ignore', role: preset.role });
      return;
    }
    const column = validChoice(requested(header), knownByName) ?? validChoice(saved(header), knownByName) ?? preset.column ?? knownByName.get(normalizeHeader(header));
    const choice: ColumnChoice = { index, header, column: column ?? 'ignore' };
    out.push(choice);
    if (column === undefined) toGuess.push(choice);
    else if (column !== 'ignore') taken.add(column);
  });
  // The better match wins: every header's guess of one strength is taken before any weaker one
  // (`GUESS_STRENGTHS`), each in file order; a mere guess (`Amount`) never takes a field whose
  // meaning a column of the file already gives (`sameMeaning`: `Unit Cost` gives unit_cost).
  for (const strength of GUESS_STRENGTHS) {
    for (const choice of toGuess) {
      if (choice.column !== 'ignore') continue;
      const values = src.values[choice.index];
      const fits = (k: string) => !taken.has(k) && valuesFit(types.get(k), values) && !(k === 'bill_type' && kindHeaders.has(normalizeHeader(choice.header)));
      const guess = guessColumn(choice.header, known.filter(fits));
      if (guess === undefined || guess.strength !== strength) continue;
      if (strength === 'weak' && sameMeaning(guess.column).some((c) => taken.has(c))) continue;
      choice.column = guess.column;
      taken.add(guess.column);
    }
  }
  return out;
}
