import type { CellRange, HeaderCandidate } from './types.ts';

/**
 * The names of a header row's columns (docs/reading-rules.md "Repeated and two-row headers"), from its
 * cells and the row directly above it:
 *  - a row of group names above the header row names each column under a group `GROUP NAME`
 *    (`Budget` over `Original` and `Revised`: `Budget Original`, `Budget Revised`); the lower name
 *    alone (`Original`) is the column's `alias` where no other column's lower name is the same.
 *    A group row is, in an .xlsx, a range merged over part of the header's columns (each range a
 *    group of its columns), or a row of at least two non-empty cells none of which is in the first
 *    column, each naming the columns from its own to the one before the next (the last: to the end
 *    of the header row). A row of one cell is a title line, never a group row;
 *  - a header cell that a range merged down from the row above covers (Excel writes the value in
 *    the range's first cell only) is named by that value;
 *  - a name that appears again (compared as headers are: case, spaces, `_`, `-` and `.` aside) is
 *    named, from its second appearance on, `NAME (2)`, `NAME (3)`, left to right.
 */
export interface HeaderNames {
  names: string[];
  /** Per column: the lower name of a grouped column, when it alone names one column; else undefined. */
  aliases: (string | undefined)[];
}

/**
 * The comparable form of a header (docs/reading-rules.md): lower case, without spaces, `_`, `-` and
 * `.`. The one rule: the mapping matches headers by it (`normalizeHeader` in src/mapping/header.ts).
 */
export function comparableName(name: string): string {
  return name.toLowerCase().replace(/[\s_.-]+/g, '');
}

/**
 * The names of the header row `cells` at `line`. `above`: the rows above it that are not blank,
 * the nearest last (only the one directly above it counts); `merged`: the sheet's merged ranges
 * (.xlsx), none for a CSV.
 */
export function headerNames(cells: readonly string[], line: number, above: readonly HeaderCandidate[], merged: readonly CellRange[] = []): HeaderNames {
  const prev = above.at(-1);
  const adjacent = prev !== undefined && prev.line === line - 1 ? prev : undefined;
  const lower = [...cells];
  if (adjacent !== undefined) {
    for (const m of merged) {
      if (m.top !== adjacent.line || m.bottom < line) continue;
      const value = adjacent.cells[m.left - 1] ?? '';
      for (let c = m.left; c <= m.right; c++) if ((lower[c - 1] ?? '').trim() === '') lower[c - 1] = value;
    }
  }
  const groups = adjacent === undefined ? undefined : groupsOf(adjacent, line, lower.length, merged);
  const names: string[] = [];
  const aliases: (string | undefined)[] = new Array(lower.length).fill(undefined);
  for (let i = 0; i < lower.length; i++) {
    const cell = lower[i] ?? '';
    const group = groups?.[i];
    names.push(group === undefined ? cell : cell.trim() === '' ? group : `${group} ${cell.trim()}`);
  }
  if (groups !== undefined) {
    const count = new Map<string, number>();
    for (const c of lower) {
      const key = comparableName(c ?? '');
      count.set(key, (count.get(key) ?? 0) + 1);
    }
    for (let i = 0; i < lower.length; i++) {
      const cell = (lower[i] ?? '').trim();
      if (groups[i] !== undefined && cell !== '' && count.get(comparableName(cell)) === 1) aliases[i] = cell;
    }
  }
  return { names: numberRepeats(names), aliases };
}

/** `NAME (2)`, `NAME (3)` for the second and later appearances of a name (empty names left alone). */
export function numberRepeats(names: readonly string[]): string[] {
  const seen = new Map<string, number>();
  const keys = names.map(comparableName);
  const taken = new Set(keys);
  return names.map((name, i) => {
    const key = keys[i]!;
    if (key === '') return name;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (n === 1) return name;
    let k = n;
    // A header literally written `NAME (2)` keeps its name; the repeat takes the next number.
    while (taken.has(comparableName(`${name} (${k})`))) k++;
    const named = `${name} (${k})`;
    taken.add(comparableName(named));
    return named;
  });
}

/** The group name over each column of a header row `width` wide, when the row `above` is a group row; else undefined. */
function groupsOf(above: HeaderCandidate, line: number, width: number, merged: readonly CellRange[]): (string | undefined)[] | undefined {
  const groups: (string | undefined)[] = new Array(width).fill(undefined);
  // .xlsx: a range merged along the row above, over part of the header's columns.
  const spans = merged.filter((m) => m.top === above.line && m.bottom === above.line && m.right > m.left && m.left <= width && !(m.left === 1 && m.right >= width));
  if (spans.length > 0) {
    for (const m of spans) {
      const name = (above.cells[m.left - 1] ?? '').trim();
      if (name === '') continue;
      for (let c = m.left; c <= Math.min(m.right, width); c++) groups[c - 1] = name;
    }
    return groups;
  }
  // A range merged down into the header row is a name of the header row, not a group.
  const downInto = (col: number): boolean => merged.some((m) => m.top === above.line && m.bottom >= line && m.left <= col && col <= m.right);
  const filled: number[] = [];
  above.cells.forEach((c, i) => {
    if (c.trim() !== '' && !downInto(i + 1)) filled.push(i);
  });
  if (filled.length < 2 || filled[0] === 0 || (above.cells[0] ?? '').trim() !== '') return undefined;
  if (filled.at(-1)! >= width) return undefined;
  for (let k = 0; k < filled.length; k++) {
    const end = k + 1 < filled.length ? filled[k + 1]! : width;
    for (let i = filled[k]!; i < end; i++) groups[i] = above.cells[filled[k]!]!.trim();
  }
  return groups;
}
