/**
 * Which row of a spreadsheet is its header row (docs/reading-rules.md), as the mapping layer sees it:
 * the first of the first 30 rows in which every required column is found, after the mapping
 * (renames, ignores, constants, presets) and the options. The reader (`src/tables/`) does the
 * looking; this says what a header row is and what to tell the user when no row is one.
 */
import { FileError, type Advice, type Wording } from '../errors/index.ts';
import type { HeaderCandidate, HeaderRule } from '../tables/index.ts';
import { candidateColumns, type ColumnMap } from './header.ts';
import { listHeaders, unknownColumnsMessage } from './header-messages.ts';
import { missingList } from './required-columns.ts';
import type { MappingFile } from './mapping-file.ts';
import { suggestColumn } from './suggest.ts';

/**
 * The header rule of one import: `known` its columns, `missingOf` the required ones a row
 * lacks (`required-columns.ts`).
 */
export function headerRule(file: string, known: readonly string[], mapping: MappingFile | undefined, missingOf: (columns: ColumnMap) => string[]): HeaderRule {
  return {
    check(cells, aliases) {
      const { columns, named } = candidateColumns(cells, known, mapping, file, aliases);
      return { missing: missingOf(columns), named };
    },
    notFound(closest, rowsSearched) {
      return new FileError(file, noHeaderMessage(file, known, mapping, closest, rowsSearched));
    },
  };
}

/**
 * `est.csv:5: missing column: estimate_name. No row of the first 30 has every required column;
 * line 5 comes closest. Line 5 has "Job", "Qty"; rename a header, …`. When that row looks like a
 * header (two values or more) and has headers that name no column, it says what they may be, as
 * an unknown column's message does; a title line's text is never offered as a column.
 */
function noHeaderMessage(file: string, known: readonly string[], mapping: MappingFile | undefined, closest: HeaderCandidate, rowsSearched: number): Wording {
  const { line, cells, missing } = closest;
  if (missing.length === 0) {
    // The constants give every required column, yet no row names a column: title lines only.
    return [
      `${file}:${line}: no header row: no row of the first ${rowsSearched} names a column this import reads (the mapping's constants are not a header row); line ${line} comes closest. `,
      `Line ${line} has ${listHeaders(cells)}; `,
      { kind: 'map-header' },
      ' ',
      { kind: 'header-row' },
    ];
  }
  const head: Wording = [`${file}:${line}: missing column${missing.length > 1 ? 's' : ''}: `, ...missingList(missing), `. No row of the first ${rowsSearched} has every required column; line ${line} comes closest. `];
  const hint: Advice = { kind: 'header-row' };
  const { columns, unknown } = candidateColumns(cells, known, mapping, file);
  const filled = cells.filter((c) => c.trim() !== '').length;
  // Advice on unknown headers only for a row that reads as a header (it names a known column, or
  // one close to it): title text or data values are never proposed as columns to ignore.
  const readsAsHeader = columns.columns().length > 0 || unknown.some((u) => suggestColumn(u, known) !== undefined);
  if (filled >= 2 && unknown.length > 0 && readsAsHeader) {
    return [...head, ...unknownColumnsMessage(unknown, known, new Set(columns.columns()), `Line ${line} has `), ' ', hint];
  }
  return [...head, `Line ${line} has ${listHeaders(cells)}; `, { kind: 'map-header' }, ' ', hint];
}

/**
 * A header row that lacks required columns (named by --header-row, or lacking the option a
 * column needs, e.g. --vendors): `bills.csv:1: missing column: rate. The header row has …`.
 */
export function missingColumnsError(file: string, headerLine: number, headers: readonly string[], missing: readonly string[]): FileError {
  const shown = headers.slice(0, 30).map((h) => JSON.stringify(h.length > 40 ? `${h.slice(0, 37)}...` : h)).join(', ');
  return new FileError(file, [
    `${file}:${headerLine}: missing column${missing.length > 1 ? 's' : ''}: `,
    ...missingList(missing),
    `. The header row has ${shown}${headers.length > 30 ? `, and ${headers.length - 30} more` : ''}; `,
    { kind: 'map-header' },
  ]);
}
