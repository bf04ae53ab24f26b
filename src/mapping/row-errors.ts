/**
 * A row's errors as the groupers collect them: each a `RowError`, which names the header of the
 * cell it is about when it is about one. The report line of an invalid row says them all (joined
 * by `; `, as it always has); its `column` is the header of the first one that names a cell, so
 * that the import page marks that cell without reading the message (README, The import page).
 */
import { joinWorded, wordedLine, wordedOf, type RowError, type Worded } from '../errors/index.ts';
import type { CellProblem, StaticLine } from './report-line.ts';
import type { StoppableGroup } from './rows/stop-record.ts';

/** The errors of one row as the report says them (with their advice, worded per front end). */
export function rowErrorsText(errors: readonly RowError[]): Worded {
  return joinWorded(errors.map(wordedOf), '; ');
}

/** The header of the first cell the row's errors name, or undefined when none names a cell. */
export function rowErrorsColumn(errors: readonly RowError[]): string | undefined {
  for (const e of errors) if (e.column !== undefined && e.column !== '') return e.column;
  return undefined;
}

/** A row's errors one by one with their cells, when it has several (one: its line's `column` says it). */
export function rowErrorCells(errors: readonly RowError[]): CellProblem[] | undefined {
  if (errors.length < 2) return undefined;
  return errors.map((e) => ({ ...(e.column !== undefined && e.column !== '' ? { column: e.column } : {}), ...wordedLine(wordedOf(e)) }));
}

/** An invalid row's report line, with the header of its bad cell when its message names one, and each error's cell when it has several. */
export function invalidLine(line: number, record: string, message: Worded, column: string | undefined, cells?: readonly CellProblem[]): StaticLine {
  return { line, record, status: 'invalid', ...wordedLine(message), ...(column === undefined ? {} : { column }), ...(cells === undefined ? {} : { cells }) };
}

/** Row `line` of a record's group is invalid with `errors` (appended: rows come in line order). */
export function addBadLine(g: StoppableGroup, line: number, errors: readonly RowError[]): void {
  (g.badLines ??= []).push(line);
  (g.badMessages ??= []).push(rowErrorsText(errors));
  (g.badColumns ??= []).push(rowErrorsColumn(errors));
  const cells = rowErrorCells(errors);
  if (cells !== undefined) (g.badCells ??= new Map()).set(line, cells);
}
