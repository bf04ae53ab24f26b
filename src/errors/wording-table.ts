/**
 * The one wording table (`wording.ts`): one row per kind of advice, the CLI's words (flags and
 * the mapping file) and the import page's (the controls it names in the README section "The
 * import page", by their accessible names). A message's facts are its own; only what it tells
 * the user to do, and the options it names, are here.
 */
export type Front = 'cli' | 'page';

/** A header as a message quotes it, with the known column it reads as, if any. */
export interface QuotedHeader {
  quoted: string;
  column?: string;
}

/**
 * An option named inside a message's facts (`--sheet all reads every sheet …`): the flag for the
 * CLI, the control (or the saved mapping's key) for the page.
 */
export type OptionName = 'sheet' | 'header-row' | 'encoding' | 'delimiter' | 'fill-down' | 'layout' | 'vendors' | 'date-format' | 'decimal-separator' | 'account';

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
  | { kind: 'missing-vendor-id'; hasVendorColumn: boolean }
  /** An option named in the facts, with its value (`--sheet all`, `--header-row 4`). */
  | { kind: 'option'; option: OptionName; value?: string }
  /** "the mapping file" (the user's `--mapping` file; on the page, the saved mapping it chose). */
  | { kind: 'mapping-file' }
  /** A date not year-first in a file read year-first. */
  | { kind: 'date-not-year-first' }
  /** A date whose month is no month in the order the file is read in. */
  | { kind: 'date-order-check' }
  /** A number that reads two ways (`2,500`). */
  | { kind: 'decimal-separator-ambiguous' }
  /** A decimal-comma number in a decimal-point file. */
  | { kind: 'decimal-comma-hint' }
  /** A vendor name with no vendor list to read it. */
  | { kind: 'vendor-names' }
  /** A bill an earlier import reported `unknown`. */
  | { kind: 'resend-unknown' }
  /** An import that cannot go on (its plan gone): import the file again, nothing is created twice. */
  | { kind: 'import-again' }
  /** A discount the service cannot hold. */
  | { kind: 'apply-discounts' }
  /** A tax amount the service cannot hold. */
  | { kind: 'ignore-tax' }
  /** An estimate's tax line (`Sales Tax (8.25%)`), which is no item. */
  | { kind: 'estimate-tax-line' }
  /** A `Type`/`Status` column without rules. `rules`: the mapping entry that would say what its values are. */
  | { kind: 'kinds-rules'; rules: string }
  /** A credit left out. */
  | { kind: 'send-credits' }
  /** A bill whose lines sum below zero, left out as a credit. */
  | { kind: 'send-negative-bill' }
  /** A split line of a bill: its bill_ref empty under a bill. */
  | { kind: 'fill-down-bill-ref' }
  /** A record in two sheets of a workbook read whole. */
  | { kind: 'one-sheet-each' }
  /** A hidden row left out (the report's reason). */
  | { kind: 'hidden-skip' }
  /** An amount in another currency than the account's. */
  | { kind: 'other-account'; currency: string }
  /** A header row whose quotes cannot be read. */
  | { kind: 'name-header-row' }
  /** A file that mixes UTF-8 and Windows-1252. */
  | { kind: 'encoding-mixed' }
  /** A file that is not UTF-8. */
  | { kind: 'encoding-not-utf8' }
  /**
   * A file that is not UTF-8 and reads plausibly in several single-byte encodings, or in none
   * (`none`). `labels`: the `--encoding` values of the candidates shown.
   */
  | { kind: 'encoding-choose'; labels: readonly string[]; none: boolean }
  /** An encoding given that the byte order mark contradicts. `reads`: what auto reads. */
  | { kind: 'encoding-given'; encoding: string; reads: string }
  /** A QuickBooks IIF file: what to export from QuickBooks instead. */
  | { kind: 'iif-export' }
  /** An option that does not apply to this kind of file. */
  | { kind: 'remove-option'; option: 'encoding' | 'delimiter' | 'sheet' }
  /** Several sheets hold a table. `sheet`: the one to propose. */
  | { kind: 'choose-sheet'; sheet: string }
  /** No visible sheet holds a table. `sheet`: the one to propose. */
  | { kind: 'name-sheet'; sheet: string }
  /** The sheets of a workbook read whole differ in their header rows. */
  | { kind: 'one-sheet-at-a-time' }
  /** A sheet the workbook does not have. */
  | { kind: 'sheet-names' }
  /** An estimate laid out in sections. `fill`: fill-down of category would read it too. */
  | { kind: 'layout-sections'; fill: boolean }
  /** A value under a column with no header name. */
  | { kind: 'unnamed-column' }
  /** A constant of the mapping for a column the file has. `header`: that column's header, quoted. */
  | { kind: 'constant-and-column'; header: string }
  /** A row with category and item but no subcategory. `header`: the item column's header, quoted. */
  | { kind: 'item-as-subcategory'; header: string }
  /** A built-in bill mapping given for estimates. */
  | { kind: 'own-mapping' }
  /** A row in another currency whose amounts may be the account's already. `currency`: the account's. */
  | { kind: 'amount-currency'; currency: string }
  /** Summary rows known by their sums: say how they are known, or that the file has none. */
  | { kind: 'summary-rows' }
  /** The credentials of an account of its own (`BUILDSYNC_<NAME>_…`). */
  | { kind: 'account-variables' };

export type Wording = ReadonlyArray<string | Advice>;

/** A message as plain text, or as parts some of which are advice. */
export type Worded = string | Wording;

type Table = { [K in Advice['kind']]: Record<Front, (a: Extract<Advice, { kind: K }>) => string> };

/** How each front names an option, with its value when it has one. */
const OPTION: Record<OptionName, Record<Front, (value: string | undefined) => string>> = {
  sheet: { cli: (v) => flag('sheet', v), page: (v) => (v === 'all' ? '"All sheets"' : '"Sheet"') },
  'header-row': { cli: (v) => flag('header-row', v), page: (v) => `"Header row"${v === undefined ? '' : ` ${v}`}` },
  delimiter: { cli: (v) => flag('delimiter', v), page: (v) => (v === undefined ? '"Delimiter"' : `${DELIMITER_SHOWN[v] ?? v} in "Delimiter"`) },
  encoding: { cli: (v) => flag('encoding', v), page: (v) => (v === undefined ? '"File encoding"' : `${v} in "File encoding"`) },
  'fill-down': { cli: (v) => flag('fill-down', v), page: (v) => `"Fill down${v === undefined ? '' : ` ${v}`}"` },
  layout: { cli: (v) => flag('layout', v), page: (v) => (v === undefined ? '"File layout"' : `${v === 'sections' ? 'Sections' : v} in "File layout"`) },
  vendors: { cli: (v) => flag('vendors', v), page: () => 'the vendor table' },
  'date-format': { cli: (v) => flag('date-format', v), page: (v) => `"Date format"${v === undefined ? '' : ` ${v}`}` },
  'decimal-separator': { cli: (v) => flag('decimal-separator', v), page: (v) => `"Decimal separator"${v === undefined ? '' : ` ${v}`}` },
  account: { cli: (v) => flag('account', v), page: (v) => `the account${v === undefined ? '' : ` ${v}`}` },
};

/** How the page's `Delimiter` shows each `--delimiter` value. */
const DELIMITER_SHOWN: Readonly<Record<string, string>> = { tab: 'Tab', pipe: '|', ',': ',', ';': ';' };

function flag(name: string, value: string | undefined): string {
  return `--${name}${value === undefined ? '' : ` ${value}`}`;
}

export const WORDING: Table = {
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
    cli: () => 'Keep one of each, or say which one to read in the mapping file (--mapping MAP.json): name it as it is read ({"columns": {"NAME (2)": "<column>"}}) and skip the others with "ignore" ("ignore": ["NAME"] skips every copy the mapping does not name).',
    page: () => 'Keep one of each: choose the column for the one to read under "Match columns" above, and Ignore for the others.',
  },
  hidden: {
    cli: () => 'Show them and check them, or pass --hidden include to read them as any row, or --hidden skip to leave the hidden rows out (reported ignored) and read hidden columns as empty.',
    page: () => 'Show them in the workbook and check them, or choose Include in "Hidden rows" above to read them as any row, or Skip to leave the hidden rows out (listed as ignored) and read hidden columns as empty.',
  },
  'missing-vendor-id': {
    cli: (a) => (a.hasVendorColumn ? "vendor_id, or --vendors VENDORS.csv to read the vendor names of the vendor column (or the account's vendor list: buildsync vendors import VENDORS.csv)" : 'vendor_id (or vendor with --vendors VENDORS.csv)'),
    page: (a) => (a.hasVendorColumn ? 'vendor_id, or a vendor ID for each vendor name in the vendor table' : 'vendor_id (or vendor, with a vendor ID for each vendor name)'),
  },
  option: {
    cli: (a) => OPTION[a.option].cli(a.value),
    page: (a) => OPTION[a.option].page(a.value),
  },
  'mapping-file': {
    cli: () => 'the mapping file',
    page: () => 'the saved mapping',
  },
  'date-not-year-first': {
    cli: () => "but --date-format YMD says the dates of this file are; write 2026-03-01, or pass the file's order with --date-format MDY or DMY",
    page: () => `but "Date format" above says they are year first (YMD); write 2026-03-01, or choose the file's order there (MDY or DMY)`,
  },
  'date-order-check': {
    cli: () => 'check the value, or --date-format',
    page: () => 'check the value, or the order in "Date format" above',
  },
  'decimal-separator-ambiguous': {
    cli: () => 'or say how the file writes numbers with --decimal-separator . or ,',
    page: () => 'or say how the file writes numbers in "Decimal separator" above',
  },
  'decimal-comma-hint': {
    cli: () => 'if "," is the decimal separator of this file, pass --decimal-separator ,',
    page: () => 'if "," is the decimal separator of this file, choose it in "Decimal separator" above',
  },
  'vendor-names': {
    cli: () => "can only be read with a vendors file or the account's vendor list: pass --vendors VENDORS.csv (columns vendor,vendor_id), add it to the list (buildsync vendors import), or give vendor_id",
    page: () => "is in neither the vendor table nor the account's vendor list: give it a vendor ID in the vendor table (Vendor list), or give vendor_id",
  },
  'resend-unknown': {
    cli: () => 'then import with --resend-unknown if it is missing',
    page: () => 'and if it is missing, send it again from the command line (buildsync import bills, with its option to resend unknown bills): the page never sends it again',
  },
  'import-again': {
    cli: () => 'run the import again from its file: records it created before are not created twice',
    page: () => 'choose the file again under "Read file", check it and Send it: the records it created before are not created twice',
  },
  'apply-discounts': {
    cli: () => 'Pass --discounts apply (mapping key "discounts": "apply") to send each rate less its discount',
    page: () => 'Tick "Apply discounts" above to send each rate less its discount',
  },
  'ignore-tax': {
    cli: () => 'If the column is the tax rate, map it to tax_percent; to send the bill without it, pass --ignore-tax (mapping key "ignoreTax": true)',
    page: () => 'If the column is the tax rate, choose tax_percent for it under "Match columns" above; to send the bill without it, tick "Ignore tax" above',
  },
  'estimate-tax-line': {
    cli: () => 'Enter it as a markup row (markup_name / markup_value, no category), or pass --ignore-tax (mapping key "ignoreTax": true) to leave tax lines out',
    page: () => 'Enter it as a markup row (markup_name / markup_value, no category) instead of an item, or delete the row',
  },
  'kinds-rules': {
    cli: (a) => `Say what the others are with ${a.rules} in a mapping file (--mapping MAP.json)`,
    page: (a) => `Delete the rows that are not bills, or import the file from the command line with a mapping that says what they are (${a.rules})`,
  },
  'send-credits': {
    cli: () => '--credits negative sends it as a bill with negative rates',
    page: () => 'choosing "Send as negative bills" in "Credits" above sends it as a bill with negative rates',
  },
  'send-negative-bill': {
    cli: () => '--credits negative sends it with its rates as written',
    page: () => 'choosing "Send as negative bills" in "Credits" above sends it with its rates as written',
  },
  'fill-down-bill-ref': {
    cli: () => "Pass --fill-down bill_ref (and the other columns the export writes only on a bill's first line, e.g. --fill-down bill_ref,vendor,invoice_date) to give each line its bill",
    page: () => 'Tick "Fill down bill_ref" above (and the "Fill down" box of each other column the export writes only on a bill\'s first line, e.g. vendor and invoice_date) to give each line its bill',
  },
  'one-sheet-each': {
    cli: () => '--sheet all reads each record from one sheet. Delete the superseded rows, or import the sheet you mean with --sheet NAME',
    page: () => '"All sheets" reads each record from one sheet. Delete the superseded rows, or choose the sheet you mean in "Sheet" above',
  },
  'hidden-skip': {
    cli: () => '--hidden skip',
    page: () => 'Skip in "Hidden rows"',
  },
  'other-account': {
    cli: (a) => `import the file into an account whose currency is ${a.currency} (--account NAME)`,
    page: (a) => `choose an account whose currency is ${a.currency} in "Service account" above`,
  },
  'name-header-row': {
    cli: () => 'name the header row with --header-row N',
    page: () => 'choose the header row in "Header row" above',
  },
  'encoding-mixed': {
    cli: () => '--encoding utf8 or cp1252 forces one reading',
    page: () => 'choosing utf8 or cp1252 in "File encoding" above forces one reading',
  },
  'encoding-not-utf8': {
    cli: () => 'or pass the encoding it was saved in with --encoding LABEL (cp1252, windows-1250, macintosh, utf16le, …)',
    page: () => 'or choose the encoding it was saved in in "File encoding" above (cp1252, windows-1250, macintosh, utf16le, …)',
  },
  'encoding-choose': {
    cli: (a) => (a.none
      ? 'Pass the encoding it was saved in with --encoding LABEL (a WHATWG label such as shift_jis, gb18030 or windows-1251), or save it again as "CSV UTF-8"'
      : `Pass the one it was saved in: ${a.labels.map((l) => `--encoding ${l}`).join(' or ')}`),
    page: (a) => (a.none
      ? 'Choose the encoding it was saved in in "File encoding" above (shift_jis, gb18030, windows-1251, …), or save it again as "CSV UTF-8"'
      : `Choose the one it was saved in in "File encoding" above (${a.labels.join(' or ')}), or save it again as "CSV UTF-8"`),
  },
  'encoding-given': {
    cli: (a) => `but --encoding ${a.encoding} was given. Leave --encoding out (${a.reads})`,
    page: (a) => `but "File encoding" says ${a.encoding}. Choose Detect there (${a.reads})`,
  },
  'iif-export': {
    cli: () => 'Export the bills from QuickBooks as a report instead (Reports > Vendors & Payables > Unpaid Bills Detail, or Transaction List by Vendor; then Excel > Create New Worksheet > Create a comma separated values (.csv) file) and import that CSV with --mapping quickbooks.',
    page: () => 'Export the bills from QuickBooks as a report instead (Reports > Vendors & Payables > Unpaid Bills Detail, or Transaction List by Vendor; then Excel > Create New Worksheet > Create a comma separated values (.csv) file), upload that CSV and choose QuickBooks in "File layout".',
  },
  'remove-option': {
    cli: (a) => `Remove --${a.option}.`,
    page: (a) => (a.option === 'sheet' ? 'Leave "Sheet" empty.' : `Choose Detect in "${a.option === 'encoding' ? 'File encoding' : 'Delimiter'}".`),
  },
  'choose-sheet': {
    cli: (a) => `Pass --sheet NAME to read one of them (--sheet "${a.sheet}"), or --sheet all to read every one.`,
    page: (a) => `Choose one of them in "Sheet" above ("${a.sheet}"), or "All sheets" to read every one.`,
  },
  'name-sheet': {
    cli: (a) => `Pass --sheet NAME to read one of them (--sheet "${a.sheet}").`,
    page: (a) => `Choose one of them in "Sheet" above ("${a.sheet}").`,
  },
  'one-sheet-at-a-time': {
    cli: () => 'or import one sheet at a time with --sheet NAME.',
    page: () => 'or import one sheet at a time, choosing it in "Sheet" above.',
  },
  'sheet-names': {
    cli: () => 'pass one of them with --sheet.',
    page: () => 'choose one of them in "Sheet" above.',
  },
  'layout-sections': {
    cli: (a) => `Pass --layout sections to read each heading as the category of the rows under it${a.fill ? ' (or --fill-down category, when the category is written once above its rows in the category column)' : ''}`,
    page: (a) => `Choose Sections in "File layout" above to read each heading as the category of the rows under it${a.fill ? ' (or tick "Fill down category", when the category is written once above its rows in the category column)' : ''}`,
  },
  'unnamed-column': {
    cli: () => 'Give the column a header (a known column, or one the mapping file ignores), or delete the value.',
    page: () => 'Give the column a header (then choose its column, or Ignore, under "Match columns" above), or delete the value.',
  },
  'constant-and-column': {
    cli: (a) => `Remove the constant, or add ${a.header} to "ignore".`,
    page: (a) => `Remove the constant from the saved mapping, or choose Ignore for ${a.header} under "Match columns" above.`,
  },
  'account-variables': {
    cli: () => 'the --account variables',
    page: () => 'the variables of the account chosen in "Service account"',
  },
  'item-as-subcategory': {
    cli: (a) => `if ${a.header} names what you estimate, map it to subcategory ("columns": {${a.header}: "subcategory"} in the mapping file)`,
    page: (a) => `if ${a.header} names what you estimate, choose subcategory for it under "Match columns" above`,
  },
  'amount-currency': {
    cli: (a) => `; if the amounts are in ${a.currency} already, say so in the mapping with "amountCurrency": "account"`,
    page: (a) => `; if the amounts are in ${a.currency} already, tick "Amounts already in the account's currency" above`,
  },
  'summary-rows': {
    cli: () => 'Say how the mapping file knows them: "summaryRows": {"column": "<the column that marks them>", "values": ["<its value>"]} (those rows are ignored, each checked against its bill), or "summaryRows": "none" (they are lines)',
    page: () => 'Choose the column that marks them in "Summary rows" above (those rows are ignored, each checked against its bill), or "None in this file" (they are lines)',
  },
  'own-mapping': {
    cli: () => 'Pass a mapping file (--mapping MAP.json) instead.',
    page: () => 'Choose the column of each header under "Match columns" instead.',
  },
};

/**
 * The import page's control (by its accessible name) that settles a message about the whole file
 * whose advice is of a kind: the page ties such a stop to it (its accessible description, and a
 * link that moves focus to it; README, The import page).
 */
const OPTION_CONTROL: Partial<Record<OptionName, string>> = {
  sheet: 'Sheet', 'header-row': 'Header row', encoding: 'File encoding', delimiter: 'Delimiter', layout: 'File layout', 'date-format': 'Date format', 'decimal-separator': 'Decimal separator',
};

export const PAGE_CONTROL: { [K in Advice['kind']]?: (a: Extract<Advice, { kind: K }>) => string | undefined } = {
  'date-order': () => 'Date format',
  'date-orders-mixed': () => 'Date format',
  'decimal-marks-mixed': () => 'Decimal separator',
  'header-row': () => 'Header row',
  'name-header-row': () => 'Header row',
  hidden: () => 'Hidden rows',
  option: (a) => OPTION_CONTROL[a.option],
  'encoding-mixed': () => 'File encoding',
  'encoding-not-utf8': () => 'File encoding',
  'encoding-choose': () => 'File encoding',
  'encoding-given': () => 'File encoding',
  'iif-export': () => 'File layout',
  'remove-option': (a) => (a.option === 'sheet' ? 'Sheet' : a.option === 'encoding' ? 'File encoding' : 'Delimiter'),
  'choose-sheet': () => 'Sheet',
  'name-sheet': () => 'Sheet',
  'one-sheet-at-a-time': () => 'Sheet',
  'sheet-names': () => 'Sheet',
  'layout-sections': () => 'File layout',
  'summary-rows': () => 'Summary rows',
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
