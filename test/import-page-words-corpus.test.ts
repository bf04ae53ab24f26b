/**
 * Every message the import page can show is in the page's words (README, "The import page:
 * estimates and bills from a browser": its messages speak of its own controls, never of the
 * command line's flags), from the one wording table the CLI words its messages from
 * (src/errors/wording-table.ts).
 *
 * Each case of the bad-input corpus (test/helpers/bad-input-cases.ts) and of the reading corpus
 * (test/helpers/reading-corpus-cases.ts) is planned in-process as the page's check plans it (the
 * import service's `planImport`, with the options the case's flags and account give), in the
 * case's folder as the CLI runs it: its stop rendered with `messageFor(err, 'page')`, and every
 * report line decided while planning (invalid, ignored and unknown rows) with the page's words.
 * None may name a flag or the mapping file, or tell the user to "Pass" one; the reading corpus's
 * stops keep the CLI's words exactly.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { advise, FileError, messageFor, pageControlOf, RowError, type Advice } from '../src/errors/index.ts';
import { mappingOption, parseFillDown, type PlanOptions } from '../src/import/index.ts';
import { ignoredRows, planImport } from '../src/import-service/index.ts';
import { staticLine, UnresolvedProjects } from '../src/mapping/index.ts';
import { BAD_INPUT_CASES } from './helpers/bad-input-cases.ts';
import { FIXTURES, READING_CASES } from './helpers/reading-corpus-cases.ts';

const root = mkdtempSync(join(tmpdir(), 'buildsync-page-words-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What the page must never say: a flag, the mapping file, an instruction to pass one. */
const NOT_PAGE_WORDS = [/--/, /mapping file/i, /MAP\.json/, /\bPass /];

function expectPageWords(what: string, text: string): void {
  for (const re of NOT_PAGE_WORDS) expect(text, `${what}: ${re} in the page's words`).not.toMatch(re);
}

/** The import flags a case may give, turned into plan options as the CLI's `import` turns them. */
async function planOptions(kind: 'estimates' | 'bills', args: readonly string[], env: Record<string, string> | undefined): Promise<PlanOptions> {
  const account = loadConfig({ env: { ...env } }).account;
  const o: PlanOptions = {
    accountDateFormat: account.dateFormat,
    dateFormatVariable: account.dateFormatVariable,
    accountCurrency: account.currency,
    currencyVariable: account.currencyVariable,
    // As a dry run without credentials: project numbers and names stay unresolved.
    resolver: new UnresolvedProjects(),
  };
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!;
    const value = (): string => args[++i]!;
    switch (flag) {
      case '--print-payloads': break;
      case '--mapping': o.mapping = await mappingOption(kind, value()); break;
      case '--vendors': o.vendorsFile = value(); break;
      case '--sheet': o.sheet = value(); break;
      case '--hidden': o.hidden = value() as PlanOptions['hidden']; break;
      case '--encoding': o.encoding = value() as PlanOptions['encoding']; break;
      case '--delimiter': o.delimiter = value() as PlanOptions['delimiter']; break;
      case '--date-format': o.dateFormat = value() as PlanOptions['dateFormat']; break;
      case '--decimal-separator': o.decimalSeparator = value() as PlanOptions['decimalSeparator']; break;
      case '--header-row': o.headerRow = Number(value()); break;
      case '--fill-down': o.fillDown = parseFillDown(value()); break;
      case '--layout': o.layout = value() as 'sections'; break;
      case '--credits': o.credits = value() as 'negative'; break;
      case '--discounts': o.discounts = value() as 'apply'; break;
      case '--ignore-tax': o.ignoreTax = true; break;
      case '--resend-unknown': o.resendUnknown = true; break;
      default: throw new Error(`the test does not know the import flag ${flag}: add it to planOptions`);
    }
  }
  return o;
}

/** What the page shows of one file: its stop, or each invalid, ignored and unknown row's message; and the stop in the CLI's words. */
interface Shown {
  page: string[];
  cliStop?: string;
}

/** Plans `file` in `cwd` (as the CLI runs: messages name the file alike) and renders what the page would show. */
async function showOnPage(cwd: string, file: string, kind: 'estimates' | 'bills', args: readonly string[], env?: Record<string, string>): Promise<Shown> {
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const plan = await planImport(kind, file, await planOptions(kind, args, env));
    return { page: plan.statics.filter((s) => s.status !== 'skipped').map((s) => messageFor(s, 'page')) };
  } catch (err) {
    return { page: [messageFor(err, 'page')], cliStop: messageFor(err, 'cli') };
  } finally {
    process.chdir(before);
  }
}

describe('every message of the import page is in its words, for every file of both corpora', () => {
  it('the bad-input corpus: no stop, invalid row or ignored row names a flag or the mapping file', async () => {
    let n = 0;
    for (const c of BAD_INPUT_CASES) {
      const dir = join(root, `bad-${n++}`);
      mkdirSync(dir);
      const file = await c.file(dir);
      const shown = await showOnPage(dir, file.startsWith(`${dir}/`) ? file.slice(dir.length + 1) : file, c.import, c.flags?.(dir) ?? [], c.env);
      for (const m of shown.page) expectPageWords(c.name, m);
      // The 200 MB files go as soon as they are read.
      rmSync(dir, { recursive: true, force: true });
    }
    expect(n).toBe(BAD_INPUT_CASES.length);
  });

  it("the reading corpus: the same, and each stop in the CLI's words exactly as the corpus holds it", async () => {
    let n = 0;
    for (const c of READING_CASES) {
      let cwd = join(FIXTURES, dirname(typeof c.file === 'string' ? c.file : '.'));
      const file = typeof c.file === 'string' ? basename(c.file) : c.file.name;
      if (typeof c.file !== 'string') {
        cwd = join(root, `reading-${n}`);
        mkdirSync(cwd);
        c.file.write(join(cwd, file));
      }
      n++;
      const shown = await showOnPage(cwd, file, c.import, c.args ?? [], c.env);
      for (const m of shown.page) expectPageWords(c.name, m);
      if (c.exit === 2) expect(shown.cliStop, c.name).toBe(c.stop);
      else expect(shown.cliStop, `${c.name}: read, not stopped`).toBeUndefined();
    }
    expect(n).toBe(READING_CASES.length);
  });
});

/** One or more of every kind of advice (the type makes a new kind without a sample a compile error). */
const SAMPLES: { [K in Advice['kind']]: Array<Extract<Advice, { kind: K }>> } = {
  'date-order': [{ kind: 'date-order', variable: 'BUILDSYNC_DATE_FORMAT' }],
  'date-orders-mixed': [{ kind: 'date-orders-mixed' }],
  'decimal-marks-mixed': [{ kind: 'decimal-marks-mixed' }],
  'header-row': [{ kind: 'header-row' }],
  'map-header': [{ kind: 'map-header' }],
  'unknown-columns': [
    { kind: 'unknown-columns', shown: [{ quoted: '"UOM"', column: 'unit' }], more: false },
    { kind: 'unknown-columns', shown: [{ quoted: '"Qty Ordered"' }, { quoted: '"Notes 2"' }], more: true },
    { kind: 'unknown-columns', shown: [{ quoted: '"UOM"', column: 'unit' }, { quoted: '"Notes 2"' }], more: false },
  ],
  'duplicate-columns': [{ kind: 'duplicate-columns' }],
  'item-as-subcategory': [{ kind: 'item-as-subcategory', header: '"Line Item"' }],
  hidden: [{ kind: 'hidden' }],
  'missing-vendor-id': [{ kind: 'missing-vendor-id', hasVendorColumn: false }, { kind: 'missing-vendor-id', hasVendorColumn: true }],
  option: (['sheet', 'header-row', 'encoding', 'delimiter', 'fill-down', 'layout', 'vendors', 'date-format', 'decimal-separator', 'account'] as const).flatMap((option) => [
    { kind: 'option' as const, option },
    { kind: 'option' as const, option, value: { sheet: 'all', 'header-row': '4', encoding: 'utf8', delimiter: 'pipe', 'fill-down': 'bill_ref', layout: 'sections', vendors: 'VENDORS.csv', 'date-format': 'DMY', 'decimal-separator': ',', account: 'acme' }[option] },
  ]),
  'mapping-file': [{ kind: 'mapping-file' }],
  'date-not-year-first': [{ kind: 'date-not-year-first' }],
  'date-order-check': [{ kind: 'date-order-check' }],
  'decimal-separator-ambiguous': [{ kind: 'decimal-separator-ambiguous' }],
  'decimal-comma-hint': [{ kind: 'decimal-comma-hint' }],
  'vendor-names': [{ kind: 'vendor-names' }],
  'resend-unknown': [{ kind: 'resend-unknown' }],
  'import-again': [{ kind: 'import-again' }],
  'apply-discounts': [{ kind: 'apply-discounts' }],
  'ignore-tax': [{ kind: 'ignore-tax' }],
  'estimate-tax-line': [{ kind: 'estimate-tax-line' }],
  'kinds-rules': [{ kind: 'kinds-rules', rules: '"kinds": {"column": "Type", "bill": [...], "credit": [...], "ignore": [...]}' }],
  'send-credits': [{ kind: 'send-credits' }],
  'send-negative-bill': [{ kind: 'send-negative-bill' }],
  'fill-down-bill-ref': [{ kind: 'fill-down-bill-ref' }],
  'one-sheet-each': [{ kind: 'one-sheet-each' }],
  'hidden-skip': [{ kind: 'hidden-skip' }],
  'other-account': [{ kind: 'other-account', currency: 'EUR' }],
  'name-header-row': [{ kind: 'name-header-row' }],
  'encoding-mixed': [{ kind: 'encoding-mixed' }],
  'encoding-not-utf8': [{ kind: 'encoding-not-utf8' }],
  'encoding-choose': [{ kind: 'encoding-choose', labels: ['windows-1250', 'macintosh'], none: false }, { kind: 'encoding-choose', labels: ['cp1252', 'windows-1250', 'macintosh'], none: true }],
  'encoding-given': [{ kind: 'encoding-given', encoding: 'utf8', reads: 'auto reads UTF-16 with a byte order mark' }],
  'iif-export': [{ kind: 'iif-export' }],
  'remove-option': [{ kind: 'remove-option', option: 'encoding' }, { kind: 'remove-option', option: 'delimiter' }, { kind: 'remove-option', option: 'sheet' }],
  'choose-sheet': [{ kind: 'choose-sheet', sheet: 'Rev B' }],
  'name-sheet': [{ kind: 'name-sheet', sheet: 'Estimate' }],
  'one-sheet-at-a-time': [{ kind: 'one-sheet-at-a-time' }],
  'sheet-names': [{ kind: 'sheet-names' }],
  'layout-sections': [{ kind: 'layout-sections', fill: false }, { kind: 'layout-sections', fill: true }],
  'unnamed-column': [{ kind: 'unnamed-column' }],
  'constant-and-column': [{ kind: 'constant-and-column', header: '"Job"' }],
  'own-mapping': [{ kind: 'own-mapping' }],
  'summary-rows': [{ kind: 'summary-rows' }],
  'amount-currency': [{ kind: 'amount-currency', currency: 'USD' }],
  'account-variables': [{ kind: 'account-variables' }],
};

describe('a stop about the whole file names the page control that settles it', () => {
  it('date order, decimal separator, encoding, delimiter, header row, sheet, layout, hidden and summary rows each name their control, which the page words name too', () => {
    const tied: Array<[Advice, string]> = [
      [{ kind: 'date-order', variable: 'BUILDSYNC_DATE_FORMAT' }, 'Date format'],
      [{ kind: 'decimal-marks-mixed' }, 'Decimal separator'],
      [{ kind: 'encoding-choose', labels: ['windows-1250', 'macintosh'], none: false }, 'File encoding'],
      [{ kind: 'option', option: 'delimiter', value: 'pipe' }, 'Delimiter'],
      [{ kind: 'header-row' }, 'Header row'],
      [{ kind: 'choose-sheet', sheet: 'Rev B' }, 'Sheet'],
      [{ kind: 'layout-sections', fill: false }, 'File layout'],
      [{ kind: 'hidden' }, 'Hidden rows'],
      [{ kind: 'summary-rows' }, 'Summary rows'],
    ];
    for (const [a, control] of tied) {
      expect(pageControlOf(['The file stops: ', a]), a.kind).toBe(control);
      expect(advise(a, 'page'), a.kind).toContain(`"${control}"`);
    }
    // A message about one row, or with no advice, is tied to nothing.
    expect(pageControlOf([{ kind: 'apply-discounts' }])).toBeUndefined();
    expect(pageControlOf('plain text')).toBeUndefined();
  });
});

describe('one wording table for the CLI and the page', () => {
  it("every kind of advice has the page's own words: no flag, no mapping file, never the CLI's", () => {
    for (const samples of Object.values(SAMPLES)) {
      for (const a of samples as Advice[]) {
        const page = advise(a, 'page');
        expectPageWords(JSON.stringify(a), page);
        expect(page, JSON.stringify(a)).not.toBe(advise(a, 'cli'));
      }
    }
  });

  it('the CLI keeps its words: flags and the mapping file, as it always printed them', () => {
    const cli = (a: Advice) => advise(a, 'cli');
    expect(cli({ kind: 'hidden-skip' })).toBe('--hidden skip');
    expect(cli({ kind: 'fill-down-bill-ref' })).toBe("Pass --fill-down bill_ref (and the other columns the export writes only on a bill's first line, e.g. --fill-down bill_ref,vendor,invoice_date) to give each line its bill");
    expect(cli({ kind: 'apply-discounts' })).toBe('Pass --discounts apply (mapping key "discounts": "apply") to send each rate less its discount');
    expect(cli({ kind: 'ignore-tax' })).toBe('If the column is the tax rate, map it to tax_percent; to send the bill without it, pass --ignore-tax (mapping key "ignoreTax": true)');
    expect(cli({ kind: 'send-credits' })).toBe('--credits negative sends it as a bill with negative rates');
    expect(cli({ kind: 'vendor-names' })).toBe("can only be read with a vendors file or the account's vendor list: pass --vendors VENDORS.csv (columns vendor,vendor_id), add it to the list (buildsync vendors import), or give vendor_id");
    expect(cli({ kind: 'resend-unknown' })).toBe('then import with --resend-unknown if it is missing');
    expect(cli({ kind: 'one-sheet-each' })).toBe('--sheet all reads each record from one sheet. Delete the superseded rows, or import the sheet you mean with --sheet NAME');
    expect(cli({ kind: 'other-account', currency: 'EUR' })).toBe('import the file into an account whose currency is EUR (--account NAME)');
    expect(cli({ kind: 'choose-sheet', sheet: 'Rev B' })).toBe('Pass --sheet NAME to read one of them (--sheet "Rev B"), or --sheet all to read every one.');
    expect(cli({ kind: 'option', option: 'header-row', value: '4' })).toBe('--header-row 4');
    expect(cli({ kind: 'mapping-file' })).toBe('the mapping file');
    // A whole message, as the corpora hold it.
    const err = new RowError('b.csv', 3, 'bill_ref', ['the bill_ref is empty under bill "B-7" on line 2: a split line of that bill? ', { kind: 'fill-down-bill-ref' }, ', or fill in the bill_ref; the bill is not sent']);
    expect(err.message).toBe('b.csv:3 column bill_ref: the bill_ref is empty under bill "B-7" on line 2: a split line of that bill? Pass --fill-down bill_ref (and the other columns the export writes only on a bill\'s first line, e.g. --fill-down bill_ref,vendor,invoice_date) to give each line its bill, or fill in the bill_ref; the bill is not sent');
    expect(messageFor(err, 'page')).toBe('b.csv:3 column bill_ref: the bill_ref is empty under bill "B-7" on line 2: a split line of that bill? Tick "Fill down bill_ref" above (and the "Fill down" box of each other column the export writes only on a bill\'s first line, e.g. vendor and invoice_date) to give each line its bill, or fill in the bill_ref; the bill is not sent');
    expect(messageFor(new FileError('a.csv', [{ kind: 'option', option: 'sheet' }, ' applies to .xlsx workbooks only; a.csv is read as CSV. ', { kind: 'remove-option', option: 'sheet' }]), 'page'))
      .toBe('"Sheet" applies to .xlsx workbooks only; a.csv is read as CSV. Leave "Sheet" empty.');
  });

  it("a report line keeps the CLI's words as its message and the parts beside it; a line without advice carries none", async () => {
    const line = staticLine(3, '', 'ignored', ['hidden row: not read (', { kind: 'hidden-skip' }, ')'], 'hidden');
    expect(line).toMatchObject({ line: 3, status: 'ignored', reason: 'hidden', message: 'hidden row: not read (--hidden skip)' });
    expect(messageFor(line, 'page')).toBe('hidden row: not read (Skip in "Hidden rows")');
    expect(staticLine(4, 'bill B-1', 'invalid', 'b.csv:4 column rate: expected a number like 1,234.50, got "x"')).not.toHaveProperty('wording');

    // The page's list of ignored rows (the check's `ignored`) is in its words.
    const plan = await planImport('bills', join(FIXTURES, 'workbooks', 'bills-hidden-row.xlsx'), { hidden: 'skip' });
    expect(plan.statics.find((s) => s.reason === 'hidden')?.message).toBe('hidden row: not read (--hidden skip)');
    expect(ignoredRows(plan).lines).toEqual([{ line: 3, reason: 'hidden', message: 'hidden row: not read (Skip in "Hidden rows")' }]);
  });
});
