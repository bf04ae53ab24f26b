/** The import page's Check and its result: the summary, records, budget, rows and ignored rows. */
import type { BudgetWindow, CheckAnswer, Ignored } from './answers.ts';
import { $, button, count, input, make, post, say } from './dom.ts';
import { keepEdits, kind, readHeaders, S, state } from './import-state.ts';
import { showRows, type FirstProblem } from './rows-table.ts';
import { table } from './table.ts';
import { sayTied } from './match-controls.ts';
import { renderVendors } from './vendors.ts';

function showRecords(j: CheckAnswer, noun: string): void {
  const box = $('records');
  box.textContent = '';
  const all = j.recordCount + (j.alreadyCreated || 0);
  if (!j.records.length) {
    say('records-note', 'Nothing: no row of the file makes ' + (noun === 'bill' ? 'a bill' : 'an estimate') + '.');
    return;
  }
  const bills = noun === 'bill';
  const t = table(bills ? 'Bills' : 'Estimates', bills ? ['Bill', 'Project', 'Vendor', 'Lines', 'Total', 'Status'] : ['Project', 'Estimate', 'Categories', 'Items', 'Total', 'Status']);
  j.records.forEach((r) => {
    const tr = make('tr');
    const b = r.bill || {};
    const e = r.estimate || {};
    const cells = bills ? [b.ref || r.label, b.project, b.vendor, b.lines, b.total] : [e.project, e.name || r.label, e.categories, e.items, e.total];
    cells.forEach((v, i) => tr.appendChild(make(i === 0 ? 'th' : 'td', i === 0 ? { scope: 'row' } : { class: i >= 3 || (!bills && i >= 2) ? 'num' : '' }, v == null ? '' : v)));
    tr.appendChild(make('td', {}, r.status === 'created' ? 'already created' : 'to create'));
    t.appendChild(tr);
  });
  box.appendChild(t);
  say('records-note', j.records.length < all ? 'The first ' + j.records.length + ' of ' + all + ' are listed.' : '');
}

function showBudget(b: { text: string; windows: BudgetWindow[] }): void {
  say('budget', b.text);
  const wb = $('windows');
  wb.textContent = '';
  wb.hidden = !b.windows.length;
  if (!b.windows.length) return;
  const t = table("Every window of the account's budget", ['window', 'limit', 'requests needed', 'left now', 'ETA under this window alone']);
  b.windows.forEach((w) => {
    const tr = make('tr');
    [w.window, w.limit, w.needed, w.remaining, w.eta].forEach((v, k) => tr.appendChild(make(k === 0 ? 'th' : 'td', k === 0 ? { scope: 'row' } : {}, v)));
    t.appendChild(tr);
  });
  wb.appendChild(t);
}

/** The messages say what each row is; a kind or status of row says why it is not imported. */
const REASONS: Record<string, string> = { kind: 'a kind of row that is not imported', status: 'a status that is not imported' };

function showIgnored(ig: Ignored | null | undefined, noun: string): void {
  const box = $('ignored');
  const list = $('ignored-list');
  list.textContent = '';
  box.hidden = !ig || ig.count === 0;
  if (!ig || box.hidden) return;
  say('ignored-text', ig.text + '. These rows are no part of any ' + noun + ': nothing is sent for them, and there is nothing to fix.' + (ig.count > ig.lines.length ? ' The first ' + ig.lines.length + ' are listed.' : ''));
  ig.lines.forEach((l) => list.appendChild(make('li', {}, 'Line ' + l.line + ': ' + (REASONS[l.reason] ? REASONS[l.reason] + ' \u2014 ' : '') + l.message)));
}

/**
 * Nothing left to create (every record already created, or none in the file) and no row to fix
 * (sending with Skip invalid rows still writes the rows to fix): Send stays disabled and says why beside it.
 */
function sendState(): void {
  const why =
    S.checked && S.left === 0 && S.invalid === 0
      ? S.already
        ? count(S.already, S.noun) + ' of this file ' + (S.already === 1 ? 'is' : 'are') + ' already created: nothing is left to send.'
        : 'No row of the file makes ' + (S.noun === 'bill' ? 'a bill' : 'an estimate') + ': nothing to send.'
      : '';
  say('send-why', why);
  button('send').disabled = !S.upload || !S.checked || !!S.refused || why !== '' || (S.invalid > 0 && !input('skip').checked);
}

/** The first problem of the rows table, where the link `First problem` moves focus. */
let firstProblem: FirstProblem | null = null;

/** The link `First problem`, just below the summary: a few Tab presses from the `Check result` region, even on a phone. */
function showFirstProblem(p: FirstProblem | null): void {
  firstProblem = p;
  $('first-problem').hidden = !p;
  say('first-problem-where', p ? p.where : '');
}

function showCheck(j: CheckAnswer, read: ReadonlySet<string>): void {
  const noun = kind() === 'bills' ? 'bill' : 'estimate';
  const rows = new Set(j.invalid.map((x) => String(x.line)));
  S.invalid = rows.size;
  S.left = j.recordCount;
  S.already = j.alreadyCreated || 0;
  S.noun = noun;
  say('summary', count(j.rows, 'row') + ': ' + count(j.recordCount, noun) + ' to create, ' + count(S.invalid, 'invalid row') + '.');
  const already = j.alreadyCreated || 0;
  const them = already === 1 ? 'it' : 'them';
  $('already').hidden = !already;
  say('already', already ? count(already, noun) + " already created: this account's ledger has " + them + ', and Send does not create ' + them + ' again.' : '');
  showRecords(j, noun);
  showBudget(j.budget);
  showFirstProblem(showRows(j, read));
  showIgnored(j.ignored, noun);
  renderVendors(j.vendors);
  // What would stop Send (Redis would not keep the ledger safely) is said now, beside Send, not only when it is pressed.
  const d = j.durability || {};
  S.refused = d.refused || null;
  say('send-msg', d.refused ? 'Send is not possible: ' + d.refused : d.warning ? 'warning: ' + d.warning : '');
  S.checked = true;
  $('checked').hidden = false;
  sendState();
  $('checked').focus();
  const first = document.querySelector<HTMLElement>('#rows [aria-invalid="true"]');
  if (first) $('rows').scrollLeft = Math.max(0, first.offsetLeft - $('rows').clientWidth / 4);
}

export function wireCheck(): void {
  $('check').addEventListener('click', async () => {
    say('check-msg');
    say('send-msg');
    // A reading still on its way (a sheet, header row or layout just chosen) is the one checked.
    while (S.reading) {
      try {
        await S.reading;
      } catch {
        // the reading's own message says what went wrong
      }
    }
    try {
      keepEdits();
      const read = readHeaders();
      showCheck(await post<CheckAnswer>('/import/check', state()), read);
    } catch (e) {
      sayTied('check-msg', e);
    }
  });
  input('skip').addEventListener('change', sendState);
  $('to-first').addEventListener('click', (e) => {
    e.preventDefault();
    if (firstProblem) {
      if (firstProblem.target.tagName !== 'INPUT') firstProblem.target.tabIndex = -1;
      firstProblem.target.focus();
    }
  });
}
