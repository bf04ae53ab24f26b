/**
 * The import page's reading of an upload (README, The import page; `POST /import/upload` and
 * `/import/read`): its sheets, the header row and how it was found, the hidden rows and columns,
 * the layout chosen, detected and applied, each column with its first values and the choice
 * preselected for it (page-choices.ts), the `Fill down` boxes, the options, the last mapping sent
 * for these headers, and what the page says of it, in its own words (never a flag).
 */
import { advise, BuildsyncError, messageFor, render, type Wording } from '../errors/index.ts';
import {
  candidateColumns, columnTypes, columnWords, detectPreset, missingBillColumns, PROJECT_REF_COLUMNS, missingEstimateColumns, missingList, normalizeHeader, presetOfRules, type MappingFile, type MappingRules,
  type PresetName,
} from '../mapping/index.ts';
import { isEncodingOption, viewTable, type CellValue, type OpenedTable } from '../tables/index.ts';
import { cellText } from './columns.ts';
import { columnChoices, type ColumnChoice } from './page-choices.ts';
import { openPageHead } from './page-head.ts';
import { READING_VENDOR_ROWS, readingVendorTable, type VendorRow } from './page-vendors.ts';
import {
  appliedLayout, FILL_DOWN_COLUMNS, knownColumns, layoutPreset, mappingOptions, mappingRules, pageImportOptions, rulesText, type AppliedLayout, type PageLayout, type PageState,
} from './page-state.ts';
import type { ImportKind } from './run-import.ts';
import type { VendorEntry } from '../vendors/vendor-store.ts';

/** Rows read for the samples and for judging guesses. */
const SAMPLE_SCAN_ROWS = 100;
/** First values shown under a column. */
const SHOWN_SAMPLES = 3;
/** Values a guess is judged by, per column. */
const JUDGED_VALUES = 50;

/** A mapping sent from the page before, for these headers (last-mapping.ts). */
export interface SavedPageMapping {
  mapping: MappingFile;
  layout: PageLayout;
  /** When its import was sent (ISO 8601). */
  sentAt: string;
}

export interface PageReading {
  name: string;
  table: 'csv' | 'xlsx';
  sheets: string[];
  /** The sheet shown (`all` for all sheets), null for CSV: a preview, unless it is the one chosen or the only one with a table. */
  sheet: string | null;
  /** The sheet chosen in `Sheet` (a name or `all`), the one Check and Send read; null when none is chosen (page-head.ts). */
  chosenSheet: string | null;
  /** What `Sheet` says with no sheet chosen (its empty entry): the only sheet with a table, or `None chosen` and the sheet shown. Null for CSV or a sheet chosen. */
  noSheetChosen: string | null;
  headerRow: number | null;
  headerFound: boolean;
  hidden: null | { rows: number; columns: number };
  layout: { chosen: PageLayout; detected: PresetName | null; applied: AppliedLayout };
  columns: Array<ColumnChoice & { samples: string[] }>;
  /** Each known column: its name, its name in words (`Unit cost`), the type of its values. */
  known: Array<{ name: string; words: string; type: string }>;
  /** The required fields no column gives (`Same for every row: …`): each with the constant it is written as, and its value so far. */
  same: SameForEveryRow[];
  fillDown: Array<{ column: string; checked: boolean }>;
  options: ReturnType<typeof mappingOptions>;
  lastMapping: null | { note: string };
  /** The rules of rows read with (page-state.ts): the state's, else the last mapping's own; the page keeps and sends them back. */
  rules: MappingRules | null;
  /** The last mapping's constants and encoding, when it is preselected and has them: the page keeps and sends them back. */
  kept: { constants: Record<string, string | number | boolean>; encoding?: string } | null;
  vendors: Array<{ name: string; vendorId: string }>;
  messages: string[];
}

/** A required field no column gives, offered as one value for every row (written to the mapping's constants). */
export interface SameForEveryRow {
  /** `project`, `estimate_name`, `category`, `vendor`. */
  field: 'project' | 'estimate_name' | 'category' | 'vendor';
  /** The control's name after `Same for every row: ` (`estimate name`). */
  label: string;
  /** The constant it is written as: project_id, estimate_name, category, vendor (a name) or vendor_id (digits). */
  value: string;
}

export interface ReadPageOptions {
  /** The last mapping sent for this account, kind and header row, if one was (looked up once the header row is known). */
  lastMapping?: (headers: readonly string[]) => Promise<SavedPageMapping | undefined>;
  /** A saved mapping uploaded to the page: it finds the header row first, is checked by `check`, and preselects its choices (no note). */
  saved?: { mapping: MappingFile; layout: PageLayout; check(headers: readonly string[], headerLine: number): void };
  /** The vendor list of the state's account (a configured one): the IDs of the vendor table. Without it every ID is unknown (''). */
  vendorList?: () => Promise<readonly VendorEntry[]>;
}

/** The upload `file` (named `name` as uploaded) read as the page state asks: its choices win for the headers still present. */
export async function readPage(file: string, name: string, state: PageState, opts: ReadPageOptions = {}): Promise<PageReading> {
  const { kind } = state;
  // A layout the kind refuses is said before anything is read.
  appliedLayout(state.layout ?? 'detect', kind, []);
  const head = await openPageHead(file, name, kind, {
    layout: state.layout ?? 'detect', sheet: state.sheet, headerRow: state.headerRow, encoding: encodingOf(state.encoding), delimiter: state.delimiter,
    mappings: [...(opts.saved === undefined ? [] : [opts.saved.mapping]), ...(state.columns === undefined ? [] : [choicesMapping(kind, state)])],
  });
  const { table } = head;
  const headers = table.headers;
  opts.saved?.check(headers, table.headerLine);
  const saved = opts.saved === undefined ? await opts.lastMapping?.(headers) : { ...opts.saved, sentAt: '' };
  const chosen = state.layout ?? saved?.layout ?? 'detect';
  const applied = appliedLayout(chosen, kind, headers);
  const { values, samples, failure } = await readSamples(table, state.hidden);
  const savedChoices = saved === undefined ? undefined : mappingChoices(saved.mapping);
  // The last mapping's own rules come with its choices, while the page has made none (a preset's rules come with its layout).
  const lastRules = opts.saved === undefined && state.columns === undefined && saved !== undefined
    ? mappingRules(presetOfRules(saved.mapping) === undefined ? saved.mapping : { totalLabels: saved.mapping.totalLabels })
    : undefined;
  const rules = state.rules ?? lastRules;
  // And its constants and encoding, which no control shows: kept as a saved mapping's are, and said.
  const lastKept = opts.saved === undefined && state.columns === undefined && saved !== undefined && (Object.keys(saved.mapping.constants).length > 0 || saved.mapping.encoding !== undefined)
    ? { constants: saved.mapping.constants, ...(saved.mapping.encoding === undefined ? {} : { encoding: saved.mapping.encoding }) }
    : undefined;
  const columns = columnChoices({ kind, headers, layout: applied, values, requested: state.columns, saved: savedChoices, rules });
  const savedOptions = saved === undefined ? undefined : mappingOptions(saved.mapping);
  const options: PageReading['options'] = {
    dateFormat: state.dateFormat ?? savedOptions?.dateFormat ?? 'auto',
    decimalSeparator: state.decimalSeparator ?? savedOptions?.decimalSeparator ?? 'auto',
    encoding: state.encoding ?? savedOptions?.encoding ?? 'auto',
    delimiter: state.delimiter ?? savedOptions?.delimiter ?? 'auto',
    credits: state.credits ?? savedOptions?.credits ?? 'ignore',
    discounts: state.discounts ?? savedOptions?.discounts ?? false,
    ignoreTax: state.ignoreTax ?? savedOptions?.ignoreTax ?? false,
    summaryRows: state.summaryRows ?? savedOptions?.summaryRows ?? 'stop',
    amountCurrency: state.amountCurrency ?? savedOptions?.amountCurrency ?? false,
  };
  const filled = new Set(state.fillDown ?? saved?.mapping.fillDown ?? layoutPreset(applied)?.fillDown ?? []);
  const given = new Set(columns.map((c) => c.column));
  const fillDown = FILL_DOWN_COLUMNS[kind].filter((c) => given.has(c)).map((column) => ({ column, checked: filled.has(column) }));
  const hidden = await hiddenCounts(table);
  const messages = [...head.messages, ...(failure === undefined ? [] : [messageFor(failure, 'page')])];
  if (hidden !== null && (state.hidden ?? saved?.mapping.hidden ?? 'stop') === 'stop') messages.push(`${describeHidden(table, hidden)} ${advise({ kind: 'hidden' }, 'page')}`);
  const layoutState = { ...state, rules, layout: chosen, columns: Object.fromEntries(columns.filter((c) => c.role === undefined).map((c) => [c.header, c.column])), fillDown: fillDown.filter((f) => f.checked).map((f) => f.column) };
  if (head.headerFound) {
    // A header row taken because it reads as one: said when the choices still lack a required column.
    const still = stillToMatch(kind, name, headers, layoutState, columns);
    if (head.loose !== undefined && still.length > 0) messages.push(head.loose.notFound);
    messages.push(...still);
  }
  // Bills naming their vendors: the vendor table, as the check would read the file with these choices (the sheet shown, when none is chosen of several).
  const shown = head.sheet === null ? {} : { sheet: head.sheet };
  const vendors = kind === 'bills' && columns.some((c) => c.column === 'vendor') ? await vendorTable(file, { ...layoutState, ...options, ...shown }, headers, opts.vendorList) : { vendors: [] };
  if (vendors.note !== undefined) messages.push(vendors.note);
  return {
    name,
    table: table.kind,
    sheets: head.sheets,
    sheet: head.sheet,
    chosenSheet: head.chosen,
    noSheetChosen: head.unchosen,
    headerRow: table.headerLine,
    headerFound: head.headerFound,
    hidden,
    layout: { chosen, detected: kind === 'bills' ? detectPreset(headers) ?? null : null, applied },
    columns: columns.map((c) => ({ ...c, samples: samples[c.index] ?? [] })),
    known: knownColumns(kind).map((k) => ({ name: k, words: columnWords(kind, k), type: columnTypes(kind).get(k) ?? 'text' })),
    same: sameForEveryRow(kind, applied, columns, state.constants ?? lastKept?.constants ?? {}),
    fillDown,
    options,
    lastMapping: saved === undefined || opts.saved !== undefined ? null : { note: `The mapping last used for ${state.account ?? 'this account'}, ${kind} and these headers is preselected (sent ${shownTime(saved.sentAt)})${lastRules === undefined ? '' : `, with its ${rulesText(lastRules)}`}${keptText(lastKept)}.` },
    rules: rules ?? null,
    kept: lastKept ?? null,
    vendors: vendors.vendors,
    // Messages name the file as uploaded, never where it is kept.
    messages: messages.map((m) => m.split(file).join(name)),
  };
}

/**
 * The Reading's vendor table: the vendor names of the file as the check with `state` reads it
 * (page-vendors.ts), none when it cannot be read so (what stops it is the check's to say, and the
 * Reading's messages say what is still to match). A note when only the head of the file was read.
 */
async function vendorTable(file: string, state: PageState, headers: readonly string[], list: ReadPageOptions['vendorList']): Promise<{ vendors: VendorRow[]; note?: string }> {
  let read: Awaited<ReturnType<typeof readingVendorTable>>;
  try {
    read = await readingVendorTable(file, pageImportOptions(state, 'bills', headers).planOptions, (await list?.()) ?? []);
  } catch (err) {
    if (!(err instanceof BuildsyncError)) throw err;
    return { vendors: [] };
  }
  if (read.complete || read.vendors.length === 0) return { vendors: read.vendors };
  return { vendors: read.vendors, note: `The vendor table lists the vendor names of the first ${READING_VENDOR_ROWS.toLocaleString('en-US')} rows; "Check" lists those of every row.` };
}

/** An encoding the page kept from a saved mapping, as the reader takes it. */
function encodingOf(encoding: string | undefined): string | undefined {
  return encoding !== undefined && isEncodingOption(encoding) ? encoding : undefined;
}

/** The page's choices as a mapping that finds a header row by them (blank headers and unknown columns left out). */
function choicesMapping(kind: ImportKind, state: PageState): MappingFile {
  const known = new Map(knownColumns(kind).map((k) => [normalizeHeader(k), k]));
  const columns: Record<string, string> = {};
  const ignore: string[] = [];
  for (const [header, choice] of Object.entries(state.columns ?? {})) {
    if (header.trim() === '') continue;
    if (choice === '' || choice === 'ignore') ignore.push(header);
    else if (known.has(normalizeHeader(choice))) columns[header] = known.get(normalizeHeader(choice))!;
  }
  return { columns, ignore, constants: state.constants ?? {} };
}

/** A saved mapping's choice for each header it names: its column, or `ignore`. */
export function mappingChoices(mapping: MappingFile): Record<string, string> {
  const out: Record<string, string> = {};
  for (const header of mapping.ignore) out[header] = 'ignore';
  for (const [header, column] of Object.entries(mapping.columns)) out[header] = column;
  return out;
}

/**
 * The first rows' values: per column (by header index), the first non-blank values shown under
 * it and those a guess is judged by. Hidden rows are read unless `Hidden rows` skips them. A row
 * the reader refuses (more cells than the header row chosen has) ends the samples: `failure`.
 */
async function readSamples(table: OpenedTable, hidden: PageState['hidden']) {
  const view = await viewTable(table, { hidden: hidden === 'skip' ? 'skip' : 'include', used: [], numeric: new Map() });
  const values: CellValue[][] = table.headers.map(() => []);
  const samples: string[][] = table.headers.map(() => []);
  let rows = 0;
  try {
    outer: for await (const batch of view.batches()) {
      for (const row of batch) {
        row.values.forEach((v, i) => {
          const text = cellText(v).trim();
          if (text === '' || values[i] === undefined) return;
          if (values[i]!.length < JUDGED_VALUES) values[i]!.push(v);
          if (samples[i]!.length < SHOWN_SAMPLES) samples[i]!.push(cellText(v));
        });
        if (++rows >= SAMPLE_SCAN_ROWS) break outer;
      }
    }
  } catch (err) {
    if (!(err instanceof BuildsyncError)) throw err;
    return { values, samples, failure: err };
  }
  return { values, samples, failure: undefined };
}

/** Hidden rows (below the header row) and hidden columns of the sheet(s) read; null when there are none. */
async function hiddenCounts(table: OpenedTable): Promise<PageReading['hidden']> {
  let rows = 0;
  let columns = 0;
  for (const part of table.parts ?? [table]) {
    const facts = await part.sheetFacts?.();
    if (facts === undefined) continue;
    rows += facts.hiddenRows.filter((r) => r > part.headerLine).length;
    columns += facts.hiddenColumns.length;
  }
  return rows === 0 && columns === 0 ? null : { rows, columns };
}

function describeHidden(table: OpenedTable, hidden: { rows: number; columns: number }): string {
  const parts = [hidden.rows > 0 ? `${hidden.rows} hidden ${hidden.rows === 1 ? 'row' : 'rows'}` : '', hidden.columns > 0 ? `${hidden.columns} hidden ${hidden.columns === 1 ? 'column' : 'columns'}` : ''].filter((p) => p !== '');
  const where = table.parts !== undefined ? 'The sheets read hold' : `Sheet "${table.workbook?.sheet ?? ''}" holds`;
  return `${where} what its reader does not see: ${parts.join(' and ')}.`;
}

/** What the choices leave unmatched: the required columns no header gives, and a column two headers give. */
function stillToMatch(kind: ImportKind, name: string, headers: readonly string[], state: PageState, columns: readonly ColumnChoice[]): string[] {
  const out: string[] = [];
  const twice = new Map<string, string[]>();
  for (const c of columns) if (c.column !== 'ignore') twice.set(c.column, [...(twice.get(c.column) ?? []), c.header]);
  for (const [column, hs] of twice) {
    if (hs.length > 1) out.push(`${hs.map((h) => `"${h}"`).join(' and ')} are both matched to ${column}. ${advise({ kind: 'duplicate-columns' }, 'page')}`);
  }
  let mapping: MappingFile;
  try {
    mapping = pageImportOptions(state, kind, headers).mapping;
  } catch (err) {
    return [...out, messageFor(err, 'page')];
  }
  const { columns: given } = candidateColumns(headers, knownColumns(kind), mapping, name);
  const missing = kind === 'bills' ? missingBillColumns(given, true, mapping.layout === 'sections') : missingEstimateColumns(given);
  if (missing.length > 0) {
    const wording: Wording = [`Still to match: `, ...missingList(missing), '; ', { kind: 'map-header' }];
    out.push(render(wording, 'page'));
  }
  return out;
}

/** The fields each kind needs on every row, as `Same for every row` offers them (a layout in sections gives the category, a bill's vendor). */
const SAME_FIELDS: Record<ImportKind, ReadonlyArray<{ field: SameForEveryRow['field']; label: string; columns: readonly string[]; sections?: 'given' }>> = {
  estimates: [
    { field: 'project', label: 'project', columns: PROJECT_REF_COLUMNS },
    { field: 'estimate_name', label: 'estimate name', columns: ['estimate_name'] },
    { field: 'category', label: 'category', columns: ['category'], sections: 'given' },
  ],
  bills: [
    { field: 'project', label: 'project', columns: PROJECT_REF_COLUMNS },
    { field: 'vendor', label: 'vendor', columns: ['vendor', 'vendor_id'], sections: 'given' },
  ],
};

/** The required fields no column of `columns` gives (`Same for every row`), each with the value `constants` give it. */
function sameForEveryRow(kind: ImportKind, layout: AppliedLayout, columns: readonly ColumnChoice[], constants: Readonly<Record<string, string | number | boolean>>): SameForEveryRow[] {
  const given = new Set(columns.map((c) => c.column));
  return SAME_FIELDS[kind]
    .filter((f) => !f.columns.some((c) => given.has(c)) && !(f.sections === 'given' && layout === 'sections'))
    .map((f) => {
      const constant = f.columns.map((c) => constants[c]).find((v) => v !== undefined && v !== '');
      return { field: f.field, label: f.label, value: constant === undefined ? '' : String(constant) };
    });
}

/** `2026-03-20 14:05 UTC`. */
function shownTime(iso: string): string {
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso;
}

/** The constants and encoding a preselected mapping brings, as its note says them. */
function keptText(kept: { constants: Record<string, string | number | boolean>; encoding?: string } | undefined): string {
  if (kept === undefined) return '';
  const constants = Object.entries(kept.constants).map(([k, v]) => `${k} = ${String(v)}`);
  return `${constants.length > 0 ? `; constants ${constants.join(', ')}` : ''}${kept.encoding === undefined ? '' : `; encoding ${kept.encoding}`}`;
}
