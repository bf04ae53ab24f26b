/**
 * The import page's state (the controls the page sends on read, `mapping.json` and check: README,
 * The import page) turned into what the CLI's `import` reads: its mapping file and the options
 * its flags set. One function (`pageImportOptions`) does it, so that the page's check, the mapping
 * it downloads and the CLI given that mapping read a file the same way; the flags become plan
 * options through the CLI's own builder (`importPlanOptions`, import-options.ts).
 *
 * `File layout`: `quickbooks` / `xero` are the built-in preset's rules (kinds, status, fill-down,
 * its column names) with the page's column choices; `detect` is a preset when the header row is
 * one's export (`detectPreset`), else `plain`; `sections` is `layout: "sections"` (estimates: headings
 * give the category; bills: a vendor's name alone in the first cell gives the vendor, as the
 * CLI's `--layout sections` reads either).
 * A column left at Ignore is in the mapping's `ignore`, but it decides nothing about discounts and
 * tax: `Apply discounts` and `Ignore tax` do, written outright (`"discounts": false`, `"ignoreTax":
 * false` when unchecked, see amount-rules.ts); for estimates `Ignore tax` is `"ignoreTax": true`
 * (tax lines left out) when checked, as `--ignore-tax` is.
 *
 * `Summary rows` (bills) is the mapping's `summaryRows`: `stop` (left out: the file stops at rows
 * that repeat a bill's total), `none`, or a column of the file (every row with a value in it is a
 * summary row; a saved mapping's `values` kept). `Amounts already in the account's currency` is
 * `"amountCurrency": "account"`; a saved mapping's `notCurrency` is carried as it is.
 *
 * `rules`: a saved mapping's own rules of rows (`kinds`, `status`, `totalLabels`), kept by the page
 * from `POST /import/mapping` (or from the last mapping preselected) and sent back with every
 * state, so the check, Send and `Download mapping` read the file with them. Its `kinds` and
 * `status` (bills) win over a preset layout's; a preset's rule applies only where the state
 * carries none. Their columns are read as the kind and status of each row, never as a field.
 */
import * as z from 'zod';
import { UsageError } from '../errors/index.ts';
import type { PlanOptions } from '../import/index.ts';
import { DELIMITER_OPTIONS } from '../tables/index.ts';
import {
  BILL_COLUMNS, candidateColumns, detectPreset, errorsFileColumnOf, ESTIMATE_COLUMNS, MappingRulesSchema, normalizeHeader, parseMappingFile, presetMapping, presetOfRules, ruleColumnHeaders,
  type MappingFile, type MappingRules,
} from '../mapping/index.ts';
import type { ImportKind } from './run-import.ts';
import { importPlanOptions, type AccountReading, type ImportChoices } from './import-options.ts';

export type PageLayout = 'detect' | 'plain' | 'quickbooks' | 'xero' | 'sections';
export type AppliedLayout = Exclude<PageLayout, 'detect'>;

const LAYOUTS = ['detect', 'plain', 'quickbooks', 'xero', 'sections'] as const;

/** A value the page may leave out or send as null: read as left out. */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === null ? undefined : v), schema.optional());

const PageStateSchema = z.object({
  upload: optional(z.string()),
  kind: z.enum(['estimates', 'bills'], { error: 'choose Estimates or Bills' }),
  account: optional(z.string()),
  layout: optional(z.enum(LAYOUTS, { error: '"File layout" must be Detect, Plain, QuickBooks, Xero or Sections' })),
  headerRow: optional(z.number({ error: '"Header row" must be a line number (1 or more)' }).int('"Header row" must be a whole line number').min(1, '"Header row" must be a line number (1 or more)')),
  /** The sheet chosen in `Sheet` (a name, `all`); '' or left out: none chosen, read as the CLI reads without `--sheet` (never the sheet a reading only showed). */
  sheet: optional(z.string({ error: '"Sheet" must be a sheet name' })),
  hidden: optional(z.enum(['stop', 'include', 'skip'], { error: '"Hidden rows" must be Stop, Include or Skip' })),
  columns: optional(z.record(z.string(), z.string({ error: 'each column\'s choice must be a known column or Ignore' }), { error: 'the column choices must be an object of header to column' })),
  dateFormat: optional(z.enum(['auto', 'YMD', 'MDY', 'DMY'], { error: '"Date format" must be auto, YMD, MDY or DMY' })),
  decimalSeparator: optional(z.enum(['auto', '.', ','], { error: '"Decimal separator" must be auto, "." or ","' })),
  credits: optional(z.enum(['ignore', 'negative'], { error: '"Credits" must be ignore or negative' })),
  discounts: optional(z.boolean({ error: '"Apply discounts" must be checked or not' })),
  ignoreTax: optional(z.boolean({ error: '"Ignore tax" must be checked or not' })),
  summaryRows: optional(z.union([
    z.enum(['stop', 'none']),
    z.object({ column: z.string().min(1), values: z.array(z.string().min(1)).min(1).optional() }).strict(),
  ], { error: '"Summary rows" must be Stop when found, None in this file, or a column of the file' })),
  amountCurrency: optional(z.boolean({ error: '"Amounts already in the account\'s currency" must be checked or not' })),
  notCurrency: optional(z.array(z.string().min(1), { error: 'notCurrency must be a list of headers' })),
  fillDown: optional(z.array(z.string(), { error: 'the "Fill down" boxes must be a list of columns' })),
  vendorIds: optional(z.record(z.string(), z.string())),
  constants: optional(z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]))),
  encoding: optional(z.string()),
  delimiter: optional(z.enum(DELIMITER_OPTIONS, { error: '"Delimiter" must be auto, ",", ";", tab or pipe' })),
  rules: optional(MappingRulesSchema),
  edits: optional(z.array(z.object({ line: z.union([z.number(), z.string()]), header: z.string(), value: z.string() }))),
});

/** The page's state (the agreed shape between the page and its server). */
export type PageState = z.infer<typeof PageStateSchema>;

/** The state the page sent, checked; a value the page's controls cannot have is a `UsageError` (400) saying which. */
export function parsePageState(body: unknown): PageState {
  const result = PageStateSchema.safeParse(body);
  if (result.success) return result.data;
  const first = result.error.issues[0]!;
  throw new UsageError(first.path[0] === 'kind' || first.path.length === 0 ? first.message : `${first.message} (${first.path.join('.')})`);
}

/** The key columns a `Fill down COLUMN` box is offered for, when the file has them. */
export const FILL_DOWN_COLUMNS: Record<ImportKind, readonly string[]> = {
  bills: ['bill_ref', 'vendor', 'vendor_id', 'project_id', 'project_number', 'project_name', 'invoice_date', 'due_date', 'notes'],
  estimates: ['project_id', 'project_number', 'project_name', 'estimate_name', 'category', 'subcategory'],
};

/** The columns an import of `kind` knows. */
export function knownColumns(kind: ImportKind): readonly string[] {
  return kind === 'estimates' ? ESTIMATE_COLUMNS : BILL_COLUMNS;
}

/** The layout `chosen` reads a file of `headers` with: `detect` settled, and a layout the kind has not refused. */
export function appliedLayout(chosen: PageLayout, kind: ImportKind, headers: readonly string[]): AppliedLayout {
  if ((chosen === 'quickbooks' || chosen === 'xero') && kind === 'estimates') throw new UsageError('QuickBooks and Xero layouts read bill exports. For estimates choose Plain or Sections in "File layout".');
  if (chosen !== 'detect') return chosen;
  return (kind === 'bills' ? detectPreset(headers) : undefined) ?? 'plain';
}

/** The preset of an applied layout, if it is one. */
export function layoutPreset(layout: AppliedLayout): MappingFile | undefined {
  return layout === 'quickbooks' || layout === 'xero' ? presetMapping(layout) : undefined;
}

/**
 * The headers of `headers` the kind and status rules read: the state's own `rules` where they
 * carry one, else the preset's (the first of its spellings the file has).
 */
export function ruleColumnsIn(preset: MappingFile | undefined, headers: readonly string[], rules?: MappingRules): { kinds?: string; status?: string } {
  const find = (which: 'kinds' | 'status') => {
    const own = rules?.[which]?.column;
    for (const h of own !== undefined ? [own] : ruleColumnHeaders(preset, which)) {
      const found = headers.find((x) => normalizeHeader(x) === normalizeHeader(h));
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return { kinds: find('kinds'), status: find('status') };
}

/** What a preset (or the state's rules) makes of each header (by index): a column, `ignore`, a role (the kind or status column), or nothing. */
export interface PresetChoice {
  column?: string;
  role?: 'kind' | 'status';
}

/**
 * Each header as the preset of `layout` reads it, as the CLI's `--mapping quickbooks|xero` does
 * (of two spellings of one column the preferred one is read, the other left at Ignore). The
 * columns of the state's own `rules` (bills) are the kind and status of each row, whatever the layout.
 */
export function presetChoices(layout: AppliedLayout, kind: ImportKind, headers: readonly string[], rules?: MappingRules): PresetChoice[] {
  const preset = layoutPreset(layout);
  const out: PresetChoice[] = headers.map(() => ({}));
  const roles = ruleColumnsIn(preset, headers, kind === 'bills' ? rules : undefined);
  if (preset !== undefined) {
    const { columns } = candidateColumns(headers, knownColumns(kind), preset, 'preset');
    for (const c of columns.columns()) {
      const i = columns.source(c)?.index ?? -1;
      if (i >= 0) out[i] = { column: c };
    }
  }
  const mentioned = new Set(preset === undefined ? [] : [...Object.keys(preset.columns), ...preset.ignore].map(normalizeHeader));
  headers.forEach((h, i) => {
    if (h === roles.kinds) out[i] = { column: 'ignore', role: 'kind' };
    else if (h === roles.status) out[i] = { column: 'ignore', role: 'status' };
    else if (out[i]!.column === undefined && mentioned.has(normalizeHeader(h))) out[i] = { column: 'ignore' };
  });
  return out;
}

/** The rules of rows `mapping` carries (`kinds`, `status`, `totalLabels`), or undefined when it carries none. */
export function mappingRules(mapping: MappingRules | undefined): MappingRules | undefined {
  if (mapping === undefined) return undefined;
  const { kinds, status, totalLabels } = mapping;
  const rules: MappingRules = {
    ...(kinds !== undefined ? { kinds } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(totalLabels !== undefined && totalLabels.length > 0 ? { totalLabels } : {}),
  };
  return Object.keys(rules).length > 0 ? rules : undefined;
}

/**
 * The rules of rows as the page says them: `kinds of rows by Type (bills: "PI"; credits: "PC";
 * not imported: "PP"); statuses by Status (kept: "PAID"; not imported: "VOIDED"); total labels "Balance due"`.
 */
export function rulesText(rules: MappingRules | undefined): string {
  const quoted = (values: readonly string[]) => values.map((v) => JSON.stringify(v)).join(', ');
  const lists = (parts: Array<[string, readonly string[]]>) => parts.filter(([, v]) => v.length > 0).map(([name, v]) => `${name}: ${quoted(v)}`).join('; ');
  const out: string[] = [];
  const { kinds, status, totalLabels } = rules ?? {};
  if (kinds !== undefined) out.push(`kinds of rows by ${kinds.column} (${lists([['bills', kinds.bill], ['credits', kinds.credit], ['not imported', kinds.ignore]])})`);
  if (status !== undefined) out.push(`statuses by ${status.column} (${lists([['kept', status.keep], ['not imported', status.ignore]])})`);
  if (totalLabels !== undefined && totalLabels.length > 0) out.push(`total labels ${quoted(totalLabels)}`);
  return out.join('; ');
}

/** What the CLI reads a file with: its mapping file and the options its `import` flags set. */
export interface PageImportOptions {
  mapping: MappingFile;
  /** The CLI's flags that the page's choices are (`--mapping` the mapping above). */
  choices: ImportChoices;
  /** `choices` as the import reads them (`importPlanOptions`), with the account's reading when given. */
  planOptions: PlanOptions;
  layout: AppliedLayout;
}

/**
 * The page's state as the CLI's mapping file and `import` options (the flags say what the
 * mapping says, so either read alone reads the file the same way). `headers`: the file's header
 * row; by default the headers the page matched (`state.columns`). A header without a choice takes
 * the preset's reading (QuickBooks, Xero) or its own name. Blank headers are never named. The
 * state's own `rules` are the mapping's (its kinds and status over a preset's, where the file has
 * their column).
 */
export function pageImportOptions(state: PageState, kind: ImportKind, headers: readonly string[] = Object.keys(state.columns ?? {}), account?: AccountReading): PageImportOptions {
  const layout = appliedLayout(state.layout ?? 'detect', kind, headers);
  const preset = layoutPreset(layout);
  const bills = kind === 'bills';
  const own = bills ? state.rules : undefined;
  const rules = ruleColumnsIn(preset, headers, own);
  const byPreset = presetChoices(layout, kind, headers, own);
  const chosen = new Map(Object.entries(state.columns ?? {}).map(([h, c]) => [normalizeHeader(h), c]));
  const knownByName = new Map(knownColumns(kind).map((k) => [normalizeHeader(k), k]));
  const columns: Record<string, string> = {};
  const ignore: string[] = [];
  const given = new Set<string>();
  headers.forEach((header, i) => {
    if (header.trim() === '' || errorsFileColumnOf(header) !== undefined || byPreset[i]!.role !== undefined) return;
    const choice = chosen.get(normalizeHeader(header)) ?? byPreset[i]!.column;
    if (choice === undefined) {
      const own = knownByName.get(normalizeHeader(header));
      if (own !== undefined) given.add(own);
      return;
    }
    if (choice === '' || choice === 'ignore') {
      ignore.push(header);
      return;
    }
    const column = knownByName.get(normalizeHeader(choice));
    if (column === undefined) throw new UsageError(`"${header}": ${JSON.stringify(choice)} is not a column of ${kind === 'bills' ? 'a bill' : 'an estimate'} import; choose one in its list under "Match columns", or Ignore.`);
    given.add(column);
    if (normalizeHeader(header) !== normalizeHeader(column)) columns[header] = column;
  });
  const fillDown = (state.fillDown ?? preset?.fillDown ?? []).filter((c, i, all) => given.has(c) && all.indexOf(c) === i);
  const mapping = parseMappingFile({
    columns,
    ignore,
    constants: state.constants ?? {},
    ...(state.encoding !== undefined && state.encoding !== 'auto' ? { encoding: state.encoding } : {}),
    ...(state.delimiter !== undefined && state.delimiter !== 'auto' ? { delimiter: state.delimiter } : {}),
    // `auto` is left out: a mapping that says it would disagree with a flag that settles the file.
    ...(state.dateFormat !== undefined && state.dateFormat !== 'auto' ? { dateFormat: state.dateFormat } : {}),
    ...(state.decimalSeparator !== undefined && state.decimalSeparator !== 'auto' ? { decimalSeparator: state.decimalSeparator } : {}),
    ...(state.headerRow !== undefined ? { headerRow: state.headerRow } : {}),
    ...(state.hidden === 'include' || state.hidden === 'skip' ? { hidden: state.hidden } : {}),
    ...(rules.kinds !== undefined ? { kinds: { ...(own?.kinds ?? preset!.kinds!), column: rules.kinds } } : {}),
    ...(rules.status !== undefined ? { status: { ...(own?.status ?? preset!.status!), column: rules.status } } : {}),
    ...(bills && state.credits === 'negative' ? { credits: 'negative' } : {}),
    ...(bills ? { discounts: state.discounts === true ? 'apply' : false, ignoreTax: state.ignoreTax === true } : state.ignoreTax === true ? { ignoreTax: true } : {}),
    ...(bills && state.summaryRows !== undefined && state.summaryRows !== 'stop' ? { summaryRows: state.summaryRows } : {}),
    ...(state.amountCurrency === true ? { amountCurrency: 'account' } : {}),
    ...(state.notCurrency !== undefined && state.notCurrency.length > 0 ? { notCurrency: state.notCurrency } : {}),
    fillDown,
    ...(layout === 'sections' ? { layout: 'sections' } : {}),
    ...(state.rules?.totalLabels !== undefined && state.rules.totalLabels.length > 0 ? { totalLabels: state.rules.totalLabels } : {}),
  }, 'the page\'s choices');
  // The flags that say what the mapping says, so that either read alone reads the file the same way.
  const choices: ImportChoices = {
    mapping,
    // `--sheet` only when the user chose one: with none, several sheets with a table stop the check as they stop the CLI.
    sheet: state.sheet === undefined || state.sheet === '' ? undefined : state.sheet,
    hidden: mapping.hidden,
    headerRow: mapping.headerRow,
    fillDown: mapping.fillDown,
    layout: mapping.layout,
    encoding: mapping.encoding,
    delimiter: mapping.delimiter,
    dateFormat: mapping.dateFormat,
    decimalSeparator: mapping.decimalSeparator,
    ...(bills ? { credits: mapping.credits, discounts: mapping.discounts === 'apply' ? 'apply' : undefined } : {}),
    ignoreTax: mapping.ignoreTax === true ? true : undefined,
    // Cells edited in place: read over the upload at their own lines (src/import/cell-edits.ts).
    cellEdits: state.edits,
  };
  const planOptions = importPlanOptions(choices, account);
  return { mapping, choices, planOptions, layout };
}

/** The page's layout a saved mapping reads with: sections, the preset whose rules it carries, else plain. */
export function mappingLayout(mapping: MappingFile): AppliedLayout {
  return mapping.layout === 'sections' ? 'sections' : presetOfRules(mapping) ?? 'plain';
}

/** The page's options a saved mapping sets. */
export function mappingOptions(mapping: MappingFile) {
  return {
    dateFormat: mapping.dateFormat ?? 'auto',
    decimalSeparator: mapping.decimalSeparator ?? 'auto',
    encoding: mapping.encoding ?? 'auto',
    delimiter: mapping.delimiter ?? 'auto',
    credits: mapping.credits === 'negative' ? 'negative' as const : 'ignore' as const,
    discounts: mapping.discounts === 'apply',
    ignoreTax: mapping.ignoreTax === true,
    summaryRows: (mapping.summaryRows ?? 'stop') as NonNullable<PageState['summaryRows']>,
    amountCurrency: mapping.amountCurrency === 'account',
  };
}
