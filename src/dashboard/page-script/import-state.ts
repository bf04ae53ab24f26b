/**
 * The import page's state and the page state it sends: what the page has chosen, as the
 * dashboard reads it (src/import-service/ turns it into the CLI's mapping and options). The page
 * holds no rule of its own: reading, matching, checking and the words of every message come from
 * the dashboard's answers, so the page and the CLI cannot disagree.
 */
import type { Constants, Line, ReadColumn } from './answers.ts';
import { $, button, input, messageOf, post, say, select } from './dom.ts';
import { matchState, pageConstants } from './match-controls.ts';

interface Edit {
  line: Line;
  header: string;
  value: string;
}

/** What the page remembers between answers. */
export const S = {
  upload: null as string | null,
  table: null as string | null,
  columns: [] as ReadColumn[],
  invalid: 0,
  left: 0,
  already: 0,
  noun: 'estimate',
  refused: null as string | null,
  saved: {} as { constants?: Constants; encoding?: string; rules?: unknown },
  /** Every cell edited in place since the file was read (line and header -> value), sent with every state: a check never forgets one. */
  edits: {} as Record<string, Edit>,
  headerRowChosen: false,
  checked: false,
  mapSeq: 0,
  mapDone: 0,
  mapReady: null as Promise<void> | null,
  readSeq: 0,
  reading: null as Promise<unknown> | null,
};

export function kind(): string | null {
  const r = document.querySelector<HTMLInputElement>('input[name=kind]:checked');
  return r ? r.value : null;
}

function choices(): Record<string, string> {
  const o: Record<string, string> = {};
  S.columns.forEach((c, i) => {
    o[c.header] = select('col' + i).value;
  });
  return o;
}

function fillDown(): string[] {
  const o: string[] = [];
  document.querySelectorAll<HTMLInputElement>('#filldown-boxes input:checked').forEach((x) => o.push(x.value));
  return o;
}

/** The headers the check reads: those matched to a field, and those the file layout reads (each row's kind or status). */
export function readHeaders(): Set<string> {
  const o = new Set<string>();
  S.columns.forEach((c, i) => {
    if (c.role || select('col' + i).value !== 'ignore') o.add(c.header);
  });
  return o;
}

/** Every ID typed or loaded that the account's vendor list does not hold (data-orig: the list's), at every check until Send saves them. */
function vendorIds(): Record<string, string> {
  const o: Record<string, string> = {};
  document.querySelectorAll<HTMLInputElement>('#vendor-table input[data-vendor]').forEach((x) => {
    if (x.value.trim() !== '' && x.value.trim() !== x.dataset.orig) o[x.dataset.vendor as string] = x.value.trim();
  });
  return o;
}

/** Keeps the cells edited in the rows table (S.edits) before the table is drawn again. */
export function keepEdits(): void {
  document.querySelectorAll<HTMLInputElement>('#rows input[data-line]').forEach((x) => {
    if (x.value !== x.dataset.orig) {
      const at = x.dataset.line as string;
      const line = /^\d+$/.test(at) ? Number(at) : at;
      S.edits[at + '\u0000' + x.dataset.header] = { line, header: x.dataset.header as string, value: x.value };
    }
  });
}

/** What the page has chosen, as the dashboard reads it (the CLI's mapping and options). */
export function state(): Record<string, unknown> {
  const s: Record<string, unknown> = {
    upload: S.upload,
    kind: kind(),
    account: select('account').value,
    layout: select('layout').value,
    sheet: S.table === 'xlsx' ? select('sheet').value : '',
    hidden: select('hidden').value,
    dateFormat: select('dateFormat').value,
    decimalSeparator: select('decimal').value,
    credits: select('credits').value,
    discounts: input('discounts').checked,
    ignoreTax: input('ignoreTax').checked,
    fillDown: fillDown(),
    vendorIds: vendorIds(),
    edits: Object.keys(S.edits).map((k) => S.edits[k]),
    ...matchState(),
  };
  if (S.headerRowChosen && input('headerRow').value !== '') s.headerRow = Number(input('headerRow').value);
  if (S.columns.length) s.columns = choices();
  // A saved mapping's constants, those of the fields shown under Same for every row as chosen there.
  const constants = pageConstants(S.saved.constants);
  if (Object.keys(constants).length) s.constants = constants;
  if (S.saved.rules) s.rules = S.saved.rules;
  return s;
}

/** Download mapping: the CLI's mapping file of these choices, as the dashboard writes it. */
export function refreshMap(): void {
  const n = ++S.mapSeq;
  S.mapReady = (async () => {
    if (!S.upload) return;
    try {
      const m = await post<unknown>('/import/mapping.json', state());
      if (n !== S.mapSeq) return;
      const a = $<HTMLAnchorElement>('dlmap');
      if (a.dataset.url) URL.revokeObjectURL(a.dataset.url);
      a.dataset.url = URL.createObjectURL(new Blob([JSON.stringify(m, null, 2) + '\n'], { type: 'application/json' }));
      a.href = a.dataset.url;
    } catch (e) {
      say('map-msg', messageOf(e));
    } finally {
      if (n === S.mapSeq) S.mapDone = n;
    }
  })();
}

/** A click before the latest choices are written waits for them: the file saved is always the one of the choices shown. */
export function holdMappingDownload(): void {
  $('dlmap').addEventListener('click', (e) => {
    if (S.mapDone !== S.mapSeq || !S.upload) {
      e.preventDefault();
      if (S.upload)
        void S.mapReady?.then(() => {
          if (S.mapDone === S.mapSeq) $('dlmap').click();
        });
    }
  });
}

/** A choice changed after a check: the result shown no longer says what Send would do. */
export function stale(): void {
  if (S.checked) {
    S.checked = false;
    button('send').disabled = true;
    say('send-why');
    say('send-msg', 'A choice changed since the check: press Check again before sending.');
  }
  refreshMap();
}
