/**
 * Where the table of an upload starts, as the import page reads it (README, The import page; the
 * CLI's rule, README "Where the table is"): the header row named in `Header row`, else the first
 * row of the first 30 with every required column, under the page's own choices, the layout's
 * preset, or (layout Detect) any preset; else the first row that reads as a header (two cells or
 * more naming a known column or one close to it: a QuickBooks report whose header lacks a
 * required column is still shown by its real header, below its title block); else the first row,
 * for the user to match. In a workbook, the sheet chosen in `Sheet`, all sheets, or else the
 * visible sheet with a table (the active one of several). What the page says of it is in its words.
 *
 * A sheet shown is not a sheet chosen. The page's state carries only what the user chose in `Sheet`
 * (a name, `all`, or nothing); Check and Send read that, and with nothing chosen what the CLI reads
 * without `--sheet` (src/tables/workbook-sheets.ts): the one visible sheet with a table, while
 * several (or none) stop the check, tied to `Sheet`. So the active sheet of several is shown here as
 * a preview only, and the `Sheet` control's empty entry says so (`unchosen`).
 */
import { FileError, MAX_LISTED, UsageError, advise, listAtMost, messageFor } from '../errors/index.ts';
import { importHeaderRule } from '../import/index.ts';
import { normalizeHeader, presetMapping, suggestColumn, type MappingFile } from '../mapping/index.ts';
import { ALL_SHEETS, combineSheets, openTable, probeWorkbookSheets, tableKindOf, type DelimiterOption, type EncodingOption, type HeaderRule, type OpenedTable } from '../tables/index.ts';
import { knownColumns, layoutPreset, type PageLayout } from './page-state.ts';
import type { ImportKind } from './run-import.ts';

export interface PageHead {
  /** The table from its header row (a combined table for all sheets). */
  table: OpenedTable;
  /** The header row was named or found by a rule (false: the first row, for the user to match). */
  headerFound: boolean;
  /** Found as the first row that reads as a header, no row having every required column (`notFound` says so). */
  loose?: { notFound: string };
  /** The workbook's worksheets ([] for CSV). */
  sheets: string[];
  /** The sheet read and shown (`all` for all sheets), null for CSV. */
  sheet: string | null;
  /** The sheet chosen in `Sheet` (a name or `all`), the one Check and Send read; null when none is (and for CSV). */
  chosen: string | null;
  /**
   * A workbook's `Sheet` with no choice, in the page's words (the control's empty entry): the sheet
   * Check and Send then read as the CLI does without `--sheet` (the only sheet with a table), or
   * "None chosen" and the sheet only shown (several sheets hold a table, or none does: the check
   * stops until one is chosen). Null for CSV or when a sheet is chosen.
   */
  unchosen: string | null;
  messages: string[];
}

export interface PageHeadOptions {
  layout: PageLayout;
  /** `Sheet`: a name or `all`; undefined for the default. */
  sheet?: string;
  headerRow?: number;
  encoding?: EncodingOption;
  /** CSV: `auto` or the delimiter the page's state forces (as `--delimiter`). */
  delimiter?: DelimiterOption;
  /** Mappings whose columns make a header row before the layout's (the page's choices, a saved mapping). */
  mappings?: readonly MappingFile[];
}

/** The reader met no header row under a rule: `found` is what the rule says of the row that came closest. */
class HeaderNotFound extends FileError {
  constructor(file: string, readonly found: Error) {
    super(file, found.message);
  }
}

/** `rule`, its failure made a `HeaderNotFound` (a file error, so that the readers pass it on as it is). */
function caught(rule: HeaderRule, name: string): HeaderRule {
  return { check: (cells, aliases) => rule.check(cells, aliases), notFound: (closest, searched) => new HeaderNotFound(name, rule.notFound(closest, searched)) };
}

/**
 * A row that reads as a header: two cells or more that name a known column, a preset's header,
 * or one close to a known column (`suggestColumn`); title lines have one cell, or none of these.
 */
function looseRule(kind: ImportKind, name: string): HeaderRule {
  const known = knownColumns(kind);
  const presets = kind === 'bills' ? [presetMapping('quickbooks')!, presetMapping('xero')!] : [];
  const names = new Set([...known, ...presets.flatMap((p) => [...Object.keys(p.columns), ...p.ignore, p.kinds?.column ?? '', p.status?.column ?? ''])].map(normalizeHeader));
  names.delete('');
  const check = (cells: readonly string[]) => {
    const filled = cells.filter((c) => c.trim() !== '');
    const named = filled.filter((c) => names.has(normalizeHeader(c)) || suggestColumn(c, known) !== undefined).length;
    return { missing: filled.length >= 2 && named >= 2 ? [] : ['two headers naming a column'], named };
  };
  return { check, notFound: () => new HeaderNotFound(name, new Error('no row reads as a header')) };
}

/** The rules tried in order: the mappings given, the layout's (Detect: plain, then each preset), then any row that reads as a header. */
function headerRules(kind: ImportKind, name: string, o: PageHeadOptions): { strict: HeaderRule[]; loose: HeaderRule } {
  const layouts: Array<MappingFile | undefined> = o.layout === 'detect'
    ? [undefined, ...(kind === 'bills' ? [presetMapping('quickbooks'), presetMapping('xero')] : [])]
    : [o.layout === 'quickbooks' || o.layout === 'xero' ? layoutPreset(o.layout) : undefined];
  const sections = o.layout === 'sections' ? 'sections' : undefined;
  const strict = [...(o.mappings ?? []), ...layouts].map((m) => caught(importHeaderRule(name, kind, m, sections), name));
  return { strict, loose: looseRule(kind, name) };
}

/** The upload's header row and sheet as the page reads them (see above). `name`: the file as uploaded, for messages. */
export async function openPageHead(file: string, name: string, kind: ImportKind, o: PageHeadOptions): Promise<PageHead> {
  const messages: string[] = [];
  const workbook = (await tableKindOf(file)) === 'xlsx' ? await workbookSheets(file) : undefined;
  // A workbook's text is always Unicode: an encoding kept from a saved mapping is the CSV's.
  const encoding = workbook === undefined ? o.encoding : undefined;
  const delimiter = workbook === undefined ? o.delimiter : undefined;
  const sheet = workbook === undefined || o.sheet === undefined || o.sheet === '' ? undefined : o.sheet;
  const unit = workbook === undefined ? 'line' : 'row';
  /** Several sheets were found with a table (none chosen): the one read is only shown. */
  const seen = { several: false };
  let closest: Error | undefined;
  const at = (rule: HeaderRule | undefined, headerRow?: number) => openAt(file, { workbook: workbook !== undefined, sheet, headerRow, rule, encoding, delimiter, messages, seen });
  const done = (table: OpenedTable, headerFound: boolean, loose?: PageHead['loose']): PageHead => {
    const read = workbook === undefined ? null : table.parts !== undefined ? ALL_SHEETS : table.workbook?.sheet ?? null;
    return { table, headerFound, loose, messages, sheets: workbook ?? [], sheet: read, chosen: sheet ?? null, unchosen: workbook === undefined || sheet !== undefined ? null : unchosenWords(read ?? '', seen.several, closest, headerFound) };
  };
  const { strict, loose } = headerRules(kind, name, o);
  if (o.headerRow !== undefined) {
    try {
      const table = await at(strict[0], o.headerRow);
      if (table !== undefined) return done(table, true);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      messages.push(`${unit === 'line' ? 'Line' : 'Row'} ${o.headerRow} of ${name} holds no row (it is blank or past the end): choose another in "Header row" above. The header row is found as if none were chosen.`);
    }
  }
  for (const rule of strict) {
    try {
      const table = await at(rule);
      if (table !== undefined) return done(table, true);
    } catch (err) {
      if (!(err instanceof HeaderNotFound)) throw err;
      closest ??= err.found;
    }
  }
  if (closest === undefined && sheet === undefined && workbook !== undefined) {
    // No visible sheet has a table: the workbook's sheets, or what the one sheet's closest row lacks.
    closest = await openTable(file, { header: strict[0] }).then(() => undefined, (err: unknown) => (err instanceof HeaderNotFound ? err.found : listsSheets(err) ? err : undefined));
  }
  try {
    const table = await at(loose);
    if (table !== undefined) {
      return done(table, true, { notFound: `No row of the first 30 has every required column; ${unit} ${table.headerLine} reads as the header row and is shown. ${advise({ kind: 'header-row' }, 'page')}` });
    }
  } catch (err) {
    if (!(err instanceof HeaderNotFound)) throw err;
  }
  if (closest !== undefined) messages.push(messageFor(closest, 'page'));
  const first = await openTable(file, { sheet: sheet?.toLowerCase() === ALL_SHEETS ? undefined : sheet, encoding, delimiter }).catch((err: unknown) => {
    // The first visible sheet cannot be shown either (it is empty): the listing of the sheets is what to say.
    throw closest !== undefined && listsSheets(closest) ? closest : err;
  });
  return done(first, false);
}

/**
 * The empty entry of `Sheet` (no sheet chosen): `shown` is what the CLI's rule reads, or only a
 * preview when several sheets hold a table or none does (the workbook's sheets listed by `closest`).
 */
function unchosenWords(shown: string, several: boolean, closest: Error | undefined, headerFound: boolean): string {
  if (several || (closest !== undefined && listsSheets(closest))) return `None chosen ("${shown}" is shown)`;
  return `"${shown}" (the only sheet${headerFound && closest === undefined ? ' with a table' : ''})`;
}

/** The stop that lists a workbook's sheets, none of them visible with a table. */
function listsSheets(err: unknown): err is Error {
  const wording = (err as { wording?: unknown }).wording;
  return err instanceof FileError && Array.isArray(wording) && wording.some((p) => typeof p === 'object' && p !== null && (p as { kind?: string }).kind === 'name-sheet');
}

/** A workbook's worksheets (hidden ones too: a sheet named in `Sheet` is read, hidden or not). */
async function workbookSheets(file: string): Promise<string[]> {
  const { workbook } = await probeWorkbookSheets(file, {});
  return workbook.sheets.filter((s) => s.worksheet && s.state !== 'veryHidden').map((s) => s.name);
}

interface OpenAt {
  workbook: boolean;
  sheet: string | undefined;
  headerRow: number | undefined;
  rule: HeaderRule | undefined;
  encoding: EncodingOption | undefined;
  delimiter: DelimiterOption | undefined;
  messages: string[];
  /** Set when several sheets hold a table and none is chosen (the one returned is only shown). */
  seen: { several: boolean };
}

/**
 * The table at the header row `o.rule` finds (or `o.headerRow`): a CSV, or the sheet named; all
 * sheets with a table (one header row for all of them); or, none named, the visible sheet with a
 * table, the active one of several (shown only: `o.seen.several`, and a message that none is
 * chosen). Undefined when no sheet of a workbook has one.
 */
async function openAt(file: string, o: OpenAt): Promise<OpenedTable | undefined> {
  const all = o.sheet?.toLowerCase() === ALL_SHEETS;
  o.seen.several = false;
  if (o.sheet !== undefined && !all) return openTable(file, { sheet: o.sheet, header: o.rule, headerRow: o.headerRow, encoding: o.encoding, delimiter: o.delimiter });
  if (!o.workbook) return openTable(file, { header: o.rule, headerRow: o.headerRow, encoding: o.encoding, delimiter: o.delimiter });
  const { workbook, withHeader } = await probeWorkbookSheets(file, { header: o.rule, headerRow: o.headerRow });
  if (withHeader.length === 0) return undefined;
  const open = (sheet: string) => openTable(file, { sheet, header: o.rule, headerRow: o.headerRow });
  const active = workbook.sheets[workbook.activeTab]?.name;
  const shown = active !== undefined && withHeader.includes(active) ? active : withHeader[0]!;
  const names = listAtMost(withHeader.slice(0, MAX_LISTED).map((s) => `"${s}"`), withHeader.length);
  if (!all) {
    if (withHeader.length > 1) {
      o.seen.several = true;
      o.messages.push(
        `${withHeader.length} sheets hold a table: ${names}. "${shown}" is shown${shown === active ? ' (the active sheet when the workbook was saved)' : ''}, but none is chosen: ` +
          'Check and Send read the sheet chosen in "Sheet" above, or All sheets.',
      );
    }
    return open(shown);
  }
  const parts: OpenedTable[] = [];
  for (const s of withHeader) parts.push(await open(s));
  const differ = parts.find((p) => p.headers.map(normalizeHeader).join('\u0000') !== parts[0]!.headers.map(normalizeHeader).join('\u0000'));
  if (differ !== undefined) {
    o.messages.push(`All sheets reads every sheet with one set of columns, but the header rows of "${withHeader[0]}" and "${differ.workbook?.sheet ?? ''}" differ. "${withHeader[0]}" is shown; choose one sheet in "Sheet" above, or make their header rows name the same columns in the same order.`);
    return parts[0];
  }
  return combineSheets(file, parts, workbook.sheets.map((s) => s.name).filter((n) => !withHeader.includes(n)));
}
