/**
 * The import page's `Rows of the file` table after a check: each problem sits in its bad cell
 * (or, naming no cell, in the row's line cell), seen where the cell is even on a narrow screen;
 * a bad cell is a textbox to fix in place when the file can be edited. The columns the check
 * reads (matched, or read by the file layout) and those with a problem are shown; the others, in
 * their place in the file's order, only with `All columns`.
 */
import type { CheckAnswer, Problem } from './answers.ts';
import { $, count, input, make, say } from './dom.ts';
import { stale } from './import-state.ts';
import { table } from './table.ts';

/** Marks cell `c` invalid and puts the message in it. */
function note(c: HTMLElement, msg: string, id: string): void {
  c.appendChild(make('span', { class: 'msg', id }, msg));
  c.setAttribute('aria-invalid', 'true');
  c.title = msg;
}

const messages = (ps: Problem[]): string => ps.map((q) => q.message).join(' ');

/** Where the first problem of the table is: the element to focus (the bad cell's textbox, else the cell) and the words naming it. */
export interface FirstProblem {
  target: HTMLElement;
  where: string;
}

/**
 * Which columns (by index into `headers`) are shown only with `All columns`: those neither
 * `read` nor with a problem. None read (no column matched): none.
 */
function restColumns(headers: string[], read: ReadonlySet<string>, problems: Problem[]): Set<number> {
  const bad = new Set(problems.map((p) => p.column));
  const rest = new Set(headers.map((_, i) => i).filter((i) => !read.has(headers[i] as string) && !bad.has(headers[i])));
  return rest.size === headers.length ? new Set() : rest;
}

/** Draws the table of the check `j`, `read` the headers the check reads; returns its first problem. */
export function showRows(j: CheckAnswer, read: ReadonlySet<string>): FirstProblem | null {
  const bad: Record<string, Problem[]> = {};
  j.invalid.forEach((x) => {
    (bad[String(x.line)] = bad[String(x.line)] || []).push(x);
  });
  const others = restColumns(j.headers, read, j.invalid);
  const rest = (i: number, c: HTMLElement): void => {
    if (others.has(i)) c.dataset.rest = '1';
  };
  const t = table('Rows of the file', ['line'].concat(j.headers));
  j.headers.forEach((_, i) => rest(i, (t.rows[0] as HTMLTableRowElement).cells[i + 1] as HTMLElement));
  let firstProblem: FirstProblem | null = null;
  j.shown.forEach((r) => {
    const tr = make('tr');
    const probs = bad[String(r.line)] || [];
    const th = make('th', { scope: 'row' }, r.line);
    tr.appendChild(th);
    const placed = new Set<Problem>();
    j.headers.forEach((h, i) => {
      const c = make('td');
      rest(i, c);
      const v = r.cells[i] == null ? '' : String(r.cells[i]);
      const p = probs.filter((x) => x.column === h);
      let target: HTMLElement = c;
      if (p.length && j.editable) {
        const id = 'msg-' + r.line + '-' + i;
        const x = make('input', { type: 'text', 'aria-label': h + ' line ' + r.line, 'aria-invalid': 'true', 'aria-describedby': id, size: String(Math.max(6, v.length + 2)) });
        x.value = v;
        x.dataset.line = String(r.line);
        x.dataset.header = h;
        x.dataset.orig = v;
        x.addEventListener('change', stale);
        c.appendChild(x);
        note(c, messages(p), id);
        target = x;
      } else {
        c.textContent = v;
        if (p.length) note(c, messages(p), 'msg-' + r.line + '-' + i);
      }
      if (p.length && !firstProblem) firstProblem = { target, where: 'line ' + r.line + ', column ' + h };
      p.forEach((q) => placed.add(q));
      tr.appendChild(c);
    });
    const unplaced = probs.filter((q) => !placed.has(q));
    if (unplaced.length) {
      note(th, messages(unplaced), 'msg-' + r.line);
      if (!firstProblem) firstProblem = { target: th, where: 'line ' + r.line };
    }
    if (probs.length) tr.dataset.bad = '1';
    t.appendChild(tr);
  });
  const rows = $('rows');
  rows.textContent = '';
  rows.appendChild(t);
  say('allcols-note', others.size ? count(others.size, 'more column') + ' that the import does not read' : '');
  onlyBad();
  allColumns();
  return firstProblem;
}

/** Only rows with problems: hides the rows without one. */
function onlyBad(): void {
  const on = input('onlybad').checked;
  document.querySelectorAll<HTMLTableRowElement>('#rows tr').forEach((tr, i) => {
    if (i > 0 && tr.querySelector('td')) tr.hidden = on && !tr.dataset.bad;
  });
}

/** All columns: shows the columns that the import does not read and that have no problem. */
function allColumns(): void {
  const on = input('allcols').checked;
  document.querySelectorAll<HTMLElement>('#rows [data-rest]').forEach((c) => {
    c.hidden = !on;
  });
}

export function wireRowsTable(): void {
  input('onlybad').addEventListener('change', onlyBad);
  input('allcols').addEventListener('change', allColumns);
}
