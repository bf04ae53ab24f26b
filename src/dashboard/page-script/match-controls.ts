/**
 * The import page's controls of how the file is read beyond its columns (README, The import
 * page): `Same for every row: …` for each required field no column gives (written as the
 * mapping's constants), `File encoding`, `Delimiter`, `Summary rows`, `Amounts already in the
 * account's currency`; and the tie of a stop about the whole file to the control that settles it
 * (its accessible description, and a link that moves focus to it). No rule of its own: the
 * dashboard says which fields are missing, which control settles a stop, and what each means.
 */
import type { PageOptions, Projects, SameField } from './answers.ts';
import { $, AnswerError, answer, input, make, messageOf, option, say, select } from './dom.ts';

/** The constants each `Same for every row` field may be written as (a saved mapping's are replaced by the control's). */
const SAME_KEYS: Record<SameField['field'], readonly string[]> = {
  project: ['project_id', 'project_number', 'project_name'],
  estimate_name: ['estimate_name'],
  category: ['category'],
  vendor: ['vendor', 'vendor_id'],
};

/** The account's projects, asked once per account (one listing request of its budget). */
const projectLists = new Map<string, Promise<Projects['projects']>>();

function projectsOf(account: string): Promise<Projects['projects']> {
  let list = projectLists.get(account);
  if (!list) {
    list = fetch('/import/projects.json?account=' + encodeURIComponent(account)).then((res) => answer<Projects>(res)).then((j) => j.projects);
    list.catch(() => projectLists.delete(account));
    projectLists.set(account, list);
  }
  return list;
}

/** `Same for every row: project`: the account's projects by number and name, the one chosen kept. */
async function fillProjects(sel: HTMLSelectElement, value: string, onChange: () => void): Promise<void> {
  try {
    const projects = await projectsOf(select('account').value);
    for (const p of projects) option(sel, String(p.id), (p.number ? p.number + ' \u2014 ' : '') + (p.name || 'project ' + p.id));
    if (value !== '' && !projects.some((p) => String(p.id) === value)) option(sel, value, 'project ' + value);
    sel.value = value;
  } catch (e) {
    say('map-msg', messageOf(e));
  }
  sel.addEventListener('change', onChange);
}

/** Draws a `Same for every row` control for each field the reading says no column gives. */
export function renderSame(list: SameField[] | undefined, onChange: () => void): void {
  const box = $('same-fields');
  box.textContent = '';
  $('same').hidden = !list || !list.length;
  (list || []).forEach((f) => {
    const id = 'same-' + f.field;
    const span = make('span', { class: 'field' });
    span.appendChild(make('label', { for: id }, 'Same for every row: ' + f.label));
    span.appendChild(document.createTextNode(' '));
    if (f.field === 'project') {
      const sel = make('select', { id, 'data-field': f.field });
      option(sel, '', 'Choose a project');
      span.appendChild(sel);
      void fillProjects(sel, f.value, onChange);
    } else {
      const x = make('input', { id, type: 'text', autocomplete: 'off', 'data-field': f.field });
      x.value = f.value;
      x.addEventListener('change', onChange);
      span.appendChild(x);
    }
    box.appendChild(span);
  });
}

/** The constants of the page: a saved mapping's, those of each field shown replaced by its control's value. */
export function pageConstants(saved: Record<string, string | number | boolean> | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = { ...saved };
  document.querySelectorAll<HTMLInputElement | HTMLSelectElement>('#same-fields [data-field]').forEach((x) => {
    const field = x.dataset.field as SameField['field'];
    for (const k of SAME_KEYS[field]) delete out[k];
    const v = x.value.trim();
    if (v === '') return;
    if (field === 'project') out.project_id = Number(v);
    else if (field === 'vendor') out[/^\d+$/.test(v) ? 'vendor_id' : 'vendor'] = v;
    else out[field] = v;
  });
  return out;
}

/** Sets a combobox to `value`, adding it when it is none of its options (a saved mapping's encoding). */
function choose(sel: HTMLSelectElement, value: string, text = value): void {
  if (!Array.prototype.some.call(sel.options, (o: HTMLOptionElement) => o.value === value)) option(sel, value, text);
  sel.value = value;
}

/** `Summary rows`: Stop when found, None in this file, and each column of the file. */
const COLUMN = 'column:';

/** The reading's options of these controls, shown; `headers`: the file's columns, each a choice of `Summary rows`. */
export function showMatchOptions(o: PageOptions, headers: readonly string[]): void {
  choose(select('encoding'), o.encoding || 'auto');
  choose(select('delimiter'), o.delimiter || 'auto');
  const summary = select('summaryRows');
  while (summary.options.length > 2) summary.remove(2);
  headers.filter((h) => h.trim() !== '').forEach((h) => option(summary, COLUMN + h, h));
  const s = o.summaryRows;
  choose(summary, typeof s === 'object' && s ? COLUMN + s.column : s || 'stop', typeof s === 'object' && s ? s.column : undefined);
  input('amountCurrency').checked = !!o.amountCurrency;
}

/** These controls as the page state has them. */
export function matchState(): Record<string, unknown> {
  const summary = select('summaryRows').value;
  return {
    encoding: select('encoding').value,
    delimiter: select('delimiter').value,
    summaryRows: summary.startsWith(COLUMN) ? { column: summary.slice(COLUMN.length) } : summary,
    amountCurrency: input('amountCurrency').checked,
  };
}

/** The page control whose label is `name` (the interface names of the markup). */
function controlNamed(name: string): HTMLElement | null {
  for (const l of Array.from(document.querySelectorAll<HTMLLabelElement>('label[for]'))) {
    if ((l.textContent || '').trim() === name) return document.getElementById(l.htmlFor);
  }
  return null;
}

/**
 * Shows an error in the message `id`; a stop about the whole file is tied to the control that
 * settles it: the message becomes the control's accessible description, and a link after it
 * moves focus to the control.
 */
export function sayTied(id: string, e: unknown): void {
  say(id);
  say(id, messageOf(e));
  const name = e instanceof AnswerError ? e.control : undefined;
  const control = name ? controlNamed(name) : null;
  if (!name || !control) return;
  const ids = (control.getAttribute('aria-describedby') || '').split(' ').filter((x) => x !== '' && x !== id);
  control.setAttribute('aria-describedby', [...ids, id].join(' '));
  const link = make('a', { href: '#' + control.id, class: 'tie' }, 'Go to "' + name + '"');
  link.addEventListener('click', (ev) => {
    ev.preventDefault();
    const field = control.closest<HTMLElement>('.field');
    if (field) field.hidden = false;
    control.focus();
  });
  const msg = $(id);
  msg.appendChild(document.createTextNode(' '));
  msg.appendChild(link);
}
