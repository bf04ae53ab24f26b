/**
 * The import page's `Rows of the file` table after a check: each problem sits in its bad cell
 * (or, naming no cell, in the row's line cell), seen where the cell is even on a narrow screen;
 * a bad cell is a textbox to fix in place when the file can be edited.
 */
import type { CheckAnswer, Problem } from './answers.ts';
import { $, input, make } from './dom.ts';
import { stale } from './import-state.ts';
import { table } from './table.ts';

/** Marks cell `c` invalid and puts the message in it. */
function note(c: HTMLElement, msg: string, id: string): void {
  c.appendChild(make('span', { class: 'msg', id }, msg));
  c.setAttribute('aria-invalid', 'true');
  c.title = msg;
}

const messages = (ps: Problem[]): string => ps.map((q) => q.message).join(' ');

export function showRows(j: CheckAnswer): void {
  const bad: Record<string, Problem[]> = {};
  j.invalid.forEach((x) => {
    (bad[String(x.line)] = bad[String(x.line)] || []).push(x);
  });
  const t = table('Rows of the file', ['line'].concat(j.headers));
  j.shown.forEach((r) => {
    const tr = make('tr');
    const probs = bad[String(r.line)] || [];
    const th = make('th', { scope: 'row' }, r.line);
    tr.appendChild(th);
    const placed = new Set<Problem>();
    j.headers.forEach((h, i) => {
      const c = make('td');
      const v = r.cells[i] == null ? '' : String(r.cells[i]);
      const p = probs.filter((x) => x.column === h);
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
      } else {
        c.textContent = v;
        if (p.length) note(c, messages(p), 'msg-' + r.line + '-' + i);
      }
      p.forEach((q) => placed.add(q));
      tr.appendChild(c);
    });
    const rest = probs.filter((q) => !placed.has(q));
    if (rest.length) note(th, messages(rest), 'msg-' + r.line);
    if (probs.length) tr.dataset.bad = '1';
    t.appendChild(tr);
  });
  const rows = $('rows');
  rows.textContent = '';
  rows.appendChild(t);
  onlyBad();
}

/** Only rows with problems: hides the rows without one. */
function onlyBad(): void {
  const on = input('onlybad').checked;
  document.querySelectorAll<HTMLTableRowElement>('#rows tr').forEach((tr, i) => {
    if (i > 0 && tr.querySelector('td')) tr.hidden = on && !tr.dataset.bad;
  });
}

export function wireRowsTable(): void {
  input('onlybad').addEventListener('change', onlyBad);
}
