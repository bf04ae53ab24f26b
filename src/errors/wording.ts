/**
 * The advice of a message, worded once for each front end. An error that tells the user what to
 * do carries its message as parts: plain facts (text) and `Advice` (a kind and its facts). The
 * CLI renders the advice as flags (`--date-format DMY`), the import page as its own controls
 * ("choose a date format above"): both from this one table, so the two cannot drift apart, and
 * neither is derived from the other's text.
 *
 * The error's `message` is always the CLI's rendering (its tests, logs and reports read it);
 * `messageFor(err, 'page')` is the page's.
 */

export type Front = 'cli' | 'page';

/** A header as a message quotes it, with the known column it reads as, if any. */
export interface QuotedHeader {
  quoted: string;
  column?: string;
}

export type Advice =
  /** Dates that read either way and nothing settles the order. `variable`: the account's date format variable. */
  | { kind: 'date-order'; variable: string }
  /** Dates written in both orders. */
  | { kind: 'date-orders-mixed' }
  /** Numbers written with both decimal marks. */
  | { kind: 'decimal-marks-mixed' }
  /** The header row may be another line than the one found. */
  | { kind: 'header-row' }
  /** A required column is not found under any header: rename one, or map it. */
  | { kind: 'map-header' }
  /**
   * Headers that name no known column. `shown`: those listed (with a close known column when
   * there is one); `more`: some were left out of the list.
   */
  | { kind: 'unknown-columns'; shown: readonly QuotedHeader[]; more: boolean }
  /** Two headers give the same column. */
  | { kind: 'duplicate-columns' }
  /** A workbook sheet with hidden rows or used hidden columns. */
  | { kind: 'hidden' }
  /** A required-column name: vendor_id, or vendor names read through a vendor list. */
  | { kind: 'missing-vendor-id'; hasVendorColumn: boolean };

export type Wording = ReadonlyArray<string | Advice>;

type Table = { [K in Advice['kind']]: Record<Front, (a: Extract<Advice, { kind: K }>) => string> };


/**
 * One row per kind of advice: the CLI's words (flags and the mapping file) and the page's (the
 * controls it names in its README section, by their accessible names).
 */
const WORDING: Table = {
  'date-order': {
    cli: (a) => `Pass --date-format DMY (day/month/year) or --date-format MDY (month/day/year), set ${a.variable} to the order this account's files use, or write the dates as 2026-03-02.`,
    page: () => 'Choose the order in "Date format" above (DMY: day/month/year, MDY: month/day/year), or write the dates as 2026-03-02.',
  },
  'date-orders-mixed': {
    cli: () => 'Correct the dates that are wrong, or pass --date-format DMY or MDY to say how the file is written (the dates that do not fit are then reported).',
    page: () => 'Correct the dates that are wrong, or choose DMY or MDY in "Date format" above to say how the file is written (the dates that do not fit are then reported).',
  },
  'decimal-marks-mixed': {
    cli: () => 'Correct the numbers that are wrong, or pass --decimal-separator . or , to say how the file is written (the numbers that do not fit are then reported).',
    page: () => 'Correct the numbers that are wrong, or choose the mark in "Decimal separator" above to say how the file is written (the numbers that do not fit are then reported).',
  },
  'header-row': {
    cli: () => 'If the header row is another line, name it with --header-row N.',
    page: () => 'If the header row is another line, choose it in "Header row" above.',
  },
  'map-header': {
    cli: () => 'rename a header, or map it with --mapping MAP.json ({"columns": {"<header>": "<column>"}}).',
    page: () => 'choose the column each header holds in its list under "Match columns" above.',
  },
  'unknown-columns': {
    cli: (a) => unknownAdvice(a, {
      none: (all, them) => `To skip ${them}, pass --mapping MAP.json with {"ignore": [${all}]}; to read one as a known column, {"columns": {${a.shown[0]!.quoted}: "<column>"}}.`,
      all: (cols, all, it, them) => `To read ${it} so, pass --mapping MAP.json with {"columns": {${cols}}}; to skip ${them}, {"ignore": [${all}]}.`,
      some: (cols, those, others) => `To read ${those} so and skip the others, pass --mapping MAP.json with {"columns": {${cols}}, "ignore": [${others}]}.`,
    }),
    page: (a) => unknownAdvice(a, {
      none: (_all, them) => `To skip ${them}, choose Ignore in ${them === 'it' ? 'its list' : 'their lists'} under "Match columns" above; to read one as a known column, choose that column there.`,
      all: (_cols, _all, it, them) => `To read ${it} so, choose ${it === 'it' ? 'that column in its list' : 'those columns in their lists'} under "Match columns" above; to skip ${them}, choose Ignore.`,
      some: (_cols, those) => `To read ${those} so and skip the others, choose ${those === 'that one' ? 'that column' : 'those columns'} under "Match columns" above, and Ignore for the others.`,
    }),
  },
  'duplicate-columns': {
    cli: () => 'Keep one of each, or skip the others with "ignore": [...] in the mapping file (--mapping MAP.json).',
    page: () => 'Keep one of each: choose Ignore for the others under "Match columns" above.',
  },
  hidden: {
    cli: () => 'Show them and check them, or pass --hidden include to read them as any row, or --hidden skip to leave the hidden rows out (reported ignored) and read hidden columns as empty.',
    page: () => 'Show them in the workbook and check them, or choose Include in "Hidden rows" above to read them as any row, or Skip to leave the hidden rows out (listed as ignored) and read hidden columns as empty.',
  },
  'missing-vendor-id': {
    cli: (a) => (a.hasVendorColumn ? "vendor_id, or --vendors VENDORS.csv to read the vendor names of the vendor column (or the account's vendor list: buildsync vendors import VENDORS.csv)" : 'vendor_id (or vendor with --vendors VENDORS.csv)'),
    page: (a) => (a.hasVendorColumn ? 'vendor_id, or a vendor ID for each vendor name in the vendor table' : 'vendor_id (or vendor, with a vendor ID for each vendor name)'),
  },
};

/** The three shapes of the unknown-columns advice: no header has a close known column, all do, some do. */
function unknownAdvice(
  a: Extract<Advice, { kind: 'unknown-columns' }>,
  say: {
    none(all: string, them: string): string;
    all(columns: string, all: string, it: string, them: string): string;
    some(columns: string, those: string, others: string): string;
  },
): string {
  // As the CLI has always listed them: `"A", "B", …` (the ellipsis when some were left out).
  const list = (headers: readonly QuotedHeader[]) => `${headers.map((s) => s.quoted).join(', ')}${a.more ? ', …' : ''}`;
  const them = a.shown.length + (a.more ? 1 : 0) > 1 ? 'them' : 'it';
  const all = list(a.shown);
  const suggested = a.shown.filter((s) => s.column !== undefined);
  const columns = suggested.map((s) => `${s.quoted}: "${s.column}"`).join(', ');
  if (suggested.length === 0) return say.none(all, them);
  const others = a.shown.filter((s) => s.column === undefined);
  if (others.length === 0 && !a.more) return say.all(columns, all, suggested.length > 1 ? 'them' : 'it', them);
  return say.some(columns, suggested.length > 1 ? 'those' : 'that one', list(others));
}

/** One piece of advice in the words of `front`. */
export function advise(advice: Advice, front: Front): string {
  return (WORDING[advice.kind][front] as (a: Advice) => string)(advice);
}

/** A worded message as `front` shows it. */
export function render(wording: Wording, front: Front): string {
  return wording.map((part) => (typeof part === 'string' ? part : advise(part, front))).join('');
}

/** `parts` joined with `separator`, as one wording (a list of items some of which are advice). */
export function joinWording(parts: ReadonlyArray<string | Advice>, separator: string): Wording {
  return parts.flatMap((p, i) => (i === 0 ? [p] : [separator, p]));
}

/**
 * What an error says to the user of `front`: the page's wording when the error carries one, else
 * its message (which names no flag: only errors whose advice is in this table carry a wording).
 */
export function messageFor(err: unknown, front: Front): string {
  const e = err as { message?: unknown; wording?: Wording };
  if (front === 'page' && Array.isArray(e.wording)) return render(e.wording, 'page');
  return typeof e.message === 'string' ? e.message : String(err);
}
