import type { Worded } from '../../errors/index.ts';
import type { CellProblem } from '../report-line.ts';

/**
 * How a grouper makes an open record invalid for a row it never grouped (a total that does not
 * check, a split line, an empty section heading: `RecordStopper`): the row joins the record's
 * lines as one of its invalid rows, in line order, and the record is not sent.
 */
export interface StoppableGroup {
  lines: number[];
  badLines: number[] | undefined;
  badMessages: Worded[] | undefined;
  badColumns: Array<string | undefined> | undefined;
  /** The bad rows with several errors: each error with its cell (`rowErrorCells`), by line. */
  badCells?: Map<number, CellProblem[]>;
}

/** The open group among `groups` whose lines hold `line` (lines are in ascending order). */
export function groupHolding<G extends StoppableGroup>(groups: readonly G[], line: number): G | undefined {
  for (let i = groups.length - 1; i >= 0; i--) {
    const lines = groups[i]!.lines;
    if (lines.length === 0 || lines[0]! > line || lines[lines.length - 1]! < line) continue;
    if (insertionPoint(lines, line) < lines.length && lines[insertionPoint(lines, line)] === line) return groups[i];
  }
  return undefined;
}

/**
 * Adds `line` to `g` as an invalid row with `message` (about the cell under header `column`, if
 * one); a row already invalid in `g` (an empty section heading stops both the record above it and
 * the one under it, which may be one) keeps its first message.
 */
export function stopGroup(g: StoppableGroup, line: number, message: Worded, column?: string): void {
  const at = insertionPoint(g.lines, line);
  if (g.lines[at] !== line) g.lines.splice(at, 0, line);
  const bad = (g.badLines ??= []);
  const b = insertionPoint(bad, line);
  if (bad[b] === line) return;
  const messages = (g.badMessages ??= []);
  const columns = (g.badColumns ??= new Array<string | undefined>(bad.length));
  bad.splice(b, 0, line);
  messages.splice(b, 0, message);
  columns.splice(b, 0, column);
}

function insertionPoint(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
