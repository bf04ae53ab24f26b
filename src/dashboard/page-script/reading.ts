/** The import page's reading of the file and the matching of its columns. */
import type { Reading, ReadColumn, SavedMapping } from './answers.ts';
import { $, button, count, input, make, messageOf, option, post, answer, say, select } from './dom.ts';
import { kind, refreshMap, S, stale, state } from './import-state.ts';
import { renderSame, sayTied, showMatchOptions } from './match-controls.ts';
import { renderVendors } from './vendors.ts';

const LAYOUT_NAMES: Record<string, string> = { plain: 'a plain table', quickbooks: 'a QuickBooks export', xero: 'a Xero export', sections: 'an estimate in sections' };

/** The notes under the table's choices: the header row, the hidden rows and the reading's messages. */
function headerNotes(j: Reading): string {
  const notes: string[] = [];
  if (j.headerRow != null)
    notes.push(
      j.headerFound
        ? 'The header row is line ' + j.headerRow + '.'
        : 'No row has every column this import needs: line ' + j.headerRow + ' is shown as the header. Choose the header row above, or match the columns below.',
    );
  if (j.hidden)
    notes.push(
      (j.sheet === 'all' ? 'The sheets have ' : 'The sheet has ') +
        count(j.hidden.rows, 'hidden row') +
        ' and ' +
        count(j.hidden.columns, 'hidden column') +
        ': choose in "Hidden rows" whether to stop, include them or skip them.',
    );
  (j.messages || []).forEach((m) => notes.push(m));
  return notes.join(' ');
}

/** One column's choice: its header as the label, Ignore or a known column, its role and samples. */
function columnChoice(j: Reading, c: ReadColumn, i: number): HTMLDivElement {
  const d = make('div', { class: 'col' });
  const l = make('label', { for: 'col' + i }, c.header || '(column ' + (c.index + 1) + ')');
  const s = make('select', { id: 'col' + i });
  option(s, 'ignore', 'Ignore');
  // Each field by its name in words, the mapping's name beside it: `Unit cost (unit_cost)`.
  (j.known || []).forEach((k) => option(s, k.name, k.words ? k.words + ' (' + k.name + ')' : k.name));
  s.value = c.column;
  s.addEventListener('change', stale);
  d.appendChild(l);
  d.appendChild(s);
  if (c.role)
    d.appendChild(
      make(
        'small',
        { class: 'role' },
        c.role === 'kind'
          ? 'The file layout reads it as the kind of each row (bill, credit, payment…).'
          : "The file layout reads it as each row's status (voided rows are ignored).",
      ),
    );
  d.appendChild(make('small', {}, (c.samples || []).join(' · ')));
  return d;
}

function showOptions(j: Reading): void {
  const o = j.options || {};
  select('dateFormat').value = o.dateFormat || 'auto';
  select('decimal').value = o.decimalSeparator || 'auto';
  select('credits').value = o.credits || 'ignore';
  input('discounts').checked = !!o.discounts;
  input('ignoreTax').checked = !!o.ignoreTax;
  showMatchOptions(o, j.columns.map((c) => c.header));
  renderSame(j.same, stale);
  const fb = $('filldown-boxes');
  fb.textContent = '';
  (j.fillDown || []).forEach((f) => {
    const l = make('label', { class: 'choice' });
    const x = make('input', { type: 'checkbox', value: f.column });
    x.checked = !!f.checked;
    x.addEventListener('change', stale);
    l.appendChild(x);
    l.appendChild(document.createTextNode(' Fill down ' + f.column));
    fb.appendChild(l);
  });
  $('filldown').hidden = !(j.fillDown || []).length;
}

/** Shows a reading of the file: its sheets, header row, notes, column choices and options. */
function applyReading(j: Reading): void {
  S.upload = j.upload;
  S.table = j.table;
  S.columns = j.columns;
  S.checked = false;
  if (j.rules) S.saved.rules = j.rules;
  if (j.kept) {
    S.saved.constants = j.kept.constants;
    if (j.kept.encoding) S.saved.encoding = j.kept.encoding;
  }
  // Sheet holds what was chosen, never the sheet only shown: with none chosen its empty entry says
  // what Check reads (the only sheet with a table), or that none is chosen of several (Check stops).
  const sh = select('sheet');
  sh.textContent = '';
  if (j.table === 'xlsx') {
    if (j.noSheetChosen) option(sh, '', j.noSheetChosen);
    (j.sheets || []).forEach((n) => option(sh, n, n));
    option(sh, 'all', 'All sheets');
    sh.value = j.chosenSheet || '';
  }
  $('sheet-field').hidden = j.table !== 'xlsx';
  input('headerRow').value = j.headerRow == null ? '' : String(j.headerRow);
  $('hidden-field').hidden = !j.hidden && select('hidden').value === 'stop';
  say('header-note', headerNotes(j));
  $('table-choices').hidden = false;
  say('layout-note', j.layout && j.layout.chosen === 'detect' ? 'Detect: read as ' + (LAYOUT_NAMES[j.layout.applied] || j.layout.applied) + (j.layout.detected ? ' (its header matches).' : '.') : '');
  const box = $('cols');
  box.textContent = '';
  j.columns.forEach((c, i) => box.appendChild(columnChoice(j, c, i)));
  showOptions(j);
  $('last-note').hidden = !j.lastMapping;
  say('last-note', j.lastMapping ? j.lastMapping.note : '');
  renderVendors(j.vendors);
  $('match').hidden = false;
  $('checked').hidden = true;
  button('send').disabled = true;
  refreshMap();
}

/** Readings answer in any order: only the latest one counts, and Check waits for it (S.reading). */
async function reread(): Promise<void> {
  say('read-msg');
  const n = ++S.readSeq;
  const p = post<Reading>('/import/read', state());
  S.reading = p;
  try {
    const j = await p;
    if (n === S.readSeq) applyReading(j);
  } catch (e) {
    if (n === S.readSeq) sayTied('read-msg', e);
  } finally {
    if (n === S.readSeq) S.reading = null;
  }
}

/** Estimates or Bills: the bills-only controls and layouts follow, and the file is read again. */
export function kindChanged(): void {
  const k = kind();
  document.querySelectorAll<HTMLElement>('.bills-only').forEach((e) => {
    e.hidden = k !== 'bills';
  });
  const lay = select('layout');
  Array.prototype.forEach.call(lay.options, (o: HTMLOptionElement) => {
    const off = !!o.dataset.kind && o.dataset.kind !== k;
    o.hidden = off;
    o.disabled = off;
  });
  if (lay.selectedOptions[0] && lay.selectedOptions[0].disabled) lay.value = 'detect';
  if (S.upload) void reread();
}

async function readFile(): Promise<void> {
  say('read-msg');
  const f = input('file').files?.[0];
  const k = kind();
  if (!k) {
    say('read-msg', 'Choose Estimates or Bills first.');
    return;
  }
  if (!f) {
    say('read-msg', 'Choose a spreadsheet first.');
    return;
  }
  try {
    const q = 'kind=' + k + '&account=' + encodeURIComponent(select('account').value) + '&layout=' + encodeURIComponent(select('layout').value);
    const res = await fetch('/import/upload?' + q, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': encodeURIComponent(f.name) }, body: f });
    const j = await answer<Reading>(res);
    S.headerRowChosen = false;
    S.saved = {};
    S.edits = {};
    S.columns = [];
    say('map-msg');
    say('map-note');
    input('savedmap').value = '';
    select('hidden').value = 'stop';
    applyReading(j);
  } catch (e) {
    sayTied('read-msg', e);
  }
}

/** Saved mapping: applies a mapping file's choices to the controls, then reads the file again with them. */
async function applySavedMapping(): Promise<void> {
  say('map-msg');
  say('map-note');
  const f = input('savedmap').files?.[0];
  if (!f || !S.upload) return;
  try {
    const j = await post<SavedMapping>('/import/mapping', Object.assign(state(), { name: f.name, text: await f.text() }));
    S.saved = { constants: j.constants || {}, encoding: j.encoding, rules: j.rules };
    if (j.headerRow != null && String(j.headerRow) !== input('headerRow').value) {
      S.headerRowChosen = true;
      input('headerRow').value = String(j.headerRow);
    }
    if (j.hidden) select('hidden').value = j.hidden;
    if (j.layout && j.layout.chosen) select('layout').value = j.layout.chosen;
    const cols: Record<string, string> = {};
    j.columns.forEach((c) => {
      cols[c.header] = c.column;
    });
    const o = j.options || {};
    const base = state();
    base.columns = cols;
    base.dateFormat = o.dateFormat || j.dateFormat || 'auto';
    base.decimalSeparator = o.decimalSeparator || j.decimalSeparator || 'auto';
    if (o.credits) base.credits = o.credits;
    base.discounts = !!o.discounts;
    base.ignoreTax = !!o.ignoreTax;
    // The saved mapping's reading of the file and its constants, as its own (the controls show them once read).
    Object.assign(base, { encoding: o.encoding || j.encoding || 'auto', delimiter: o.delimiter || 'auto', summaryRows: o.summaryRows || 'stop', amountCurrency: !!o.amountCurrency, constants: j.constants || {} });
    if (j.fillDown) base.fillDown = j.fillDown.filter((d) => d.checked).map((d) => d.column);
    applyReading(await post<Reading>('/import/read', base));
    const n = j.columns.filter((c) => c.fromMapping).length;
    const constants = S.saved.constants || {};
    const consts = Object.keys(constants);
    say(
      'map-note',
      'Applied ' +
        j.name +
        ': ' +
        count(n, 'column') +
        ' from the mapping' +
        (consts.length ? '; constants ' + consts.map((k) => k + ' = ' + constants[k]).join(', ') : '') +
        (S.saved.encoding ? '; encoding ' + S.saved.encoding : '') +
        (j.rulesText ? '; ' + j.rulesText : '') +
        '.',
    );
  } catch (e) {
    say('map-msg', messageOf(e));
  }
}

/** The controls of What to import, Upload and Match columns. */
export function wireReading(): void {
  document.querySelectorAll('input[name=kind]').forEach((r) => r.addEventListener('change', kindChanged));
  $('read').addEventListener('click', () => void readFile());
  select('layout').addEventListener('change', () => {
    if (S.upload) void reread();
  });
  select('sheet').addEventListener('change', () => {
    S.headerRowChosen = false;
    void reread();
  });
  input('headerRow').addEventListener('change', () => {
    if (input('headerRow').value === '') return;
    S.headerRowChosen = true;
    void reread();
  });
  select('hidden').addEventListener('change', () => void reread());
  // The encoding and delimiter change what the file's cells are: it is read again.
  ['encoding', 'delimiter'].forEach((id) => select(id).addEventListener('change', () => void reread()));
  ['dateFormat', 'decimal', 'credits', 'discounts', 'ignoreTax', 'summaryRows', 'amountCurrency', 'account'].forEach((id) => $(id).addEventListener('change', stale));
  input('savedmap').addEventListener('change', () => void applySavedMapping());
}
