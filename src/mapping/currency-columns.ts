/**
 * Currency columns (README, "Amounts the service cannot hold"): estimates and bills carry no
 * currency, so a row whose currency column names another currency than the account's
 * `BUILDSYNC_CURRENCY` is a row error, never sent as the account's.
 *
 * A currency column is
 *   - the column mapped to the field `currency` (or its constant);
 *   - one headed `Currency`, `Currency Code`, `Curr`, `CCY`, `Valuta`, `Moneda`, `Devise` or
 *     `Währung` (compared as headers are, Xero's leading `*` aside);
 *   - one whose values are all ISO 4217 codes or their English names (`USD`, `US Dollar`,
 *     `Euro`), at least one of them another currency than the account's, whatever its header:
 *     settled from the whole file before any row is mapped. A column found so that names no
 *     currency (an `Area` column of `ALL`) is listed by the mapping under `"notCurrency"`.
 * Such a column is found whether or not the mapping (a preset or the user's) ignores it. A value
 * naming the account's own currency, by code, symbol or name (`US Dollar` in a USD account; `$` is
 * any currency written `$`), is fine. `"amountCurrency": "account"` says the mapped amounts are
 * already in the account's currency while the column names the original one (NetSuite's
 * `Amount` beside `Amount (Foreign Currency)`): the rows are read.
 */
import type { Worded } from '../errors/index.ts';
import type { CellValue, SourceRow } from '../tables/index.ts';
import { currencyNamed, currencyValue } from '../values/written-currency.ts';
import { auxColumns, auxName, auxText } from './aux-columns.ts';
import { colOf } from './column-cells.ts';
import { normalizeHeader, type ColumnMap } from './header.ts';
import type { MappingFile } from './mapping-file.ts';

/** The headers of currency columns, as `auxName` writes them. */
const CURRENCY_HEADERS: ReadonlySet<string> = new Set(['currency', 'currencycode', 'curr', 'ccy', 'valuta', 'moneda', 'devise', 'währung'].map(auxName));

/** True when `header` names a currency column by itself. */
export function isCurrencyHeader(header: string): boolean {
  return CURRENCY_HEADERS.has(auxName(header));
}

/** One currency column: where its cells are (or its constant), and how it was found. */
interface CurrencyColumn {
  header: string;
  index: number;
  constant: CellValue;
  /** Found by its values only: the message says how to say it is none. */
  byValue: boolean;
}

export interface CurrencyOptions {
  /** The account's currency (ISO 4217). @defaultValue USD */
  currency?: string;
  /** The variable it is read from, for messages. @defaultValue BUILDSYNC_CURRENCY */
  currencyVariable?: string;
}

/** The currency columns of one file and the row check they make. */
export class CurrencyColumns {
  private readonly currency: string;
  private readonly variable: string;

  constructor(
    private readonly columns: readonly CurrencyColumn[],
    opts: CurrencyOptions,
    /** `estimates` or `bills`: what carries no currency, for messages. */
    private readonly records: 'estimates' | 'bills',
    /** `"amountCurrency": "account"`: the amounts are in the account's currency whatever the column names. */
    private readonly amountsInAccount: boolean,
  ) {
    this.currency = (opts.currency ?? 'USD').toUpperCase();
    this.variable = opts.currencyVariable ?? 'BUILDSYNC_CURRENCY';
  }

  /** True when the file has no currency column: nothing to check. */
  get empty(): boolean {
    return this.columns.length === 0;
  }

  /** The row's currency cells: problems go to `problems` as [header, message]. */
  check(values: readonly CellValue[], problems: Array<[string, Worded]>): void {
    for (const c of this.columns) {
      const text = c.index === -1 ? String(c.constant ?? '').trim() : auxText(values, c.index);
      if (text === '') continue;
      const codes = currencyNamed(text);
      if (codes === undefined) problems.push([c.header, `${c.header} ${JSON.stringify(text)} names no currency; write its ISO 4217 code (e.g. ${this.currency})`]);
      else if (!codes.includes(this.currency) && !this.amountsInAccount) problems.push([c.header, this.foreign(c, text, codes[0]!)]);
    }
  }

  /** What to do about a row in another currency. */
  private foreign(c: CurrencyColumn, text: string, code: string): Worded {
    const tail = c.byValue
      ? `; if ${c.header} names no currency, list it in the mapping's "notCurrency": [${JSON.stringify(c.header)}]`
      : { kind: 'amount-currency' as const, currency: this.currency };
    return [
      `${c.header} ${JSON.stringify(text)}: the account's currency is ${this.currency} (${this.variable}): ${this.records} carry no currency, so it is never sent as ${this.currency}. Convert the amount, or `,
      { kind: 'other-account', currency: code },
      tail,
    ];
  }
}

/**
 * The search for currency columns by their values: the columns no field reads that are not
 * currency columns by their headers nor listed under `"notCurrency"`, each kept while every
 * non-blank value names a currency. `visit` sees the rows of a pass the planner makes anyway
 * (the one that settles the reading rules), so that the file is not read once more for it.
 */
export class CurrencyScan {
  private open: Array<{ header: string; index: number; foreign: boolean }>;
  private fed = false;

  constructor(candidates: ReadonlyArray<{ header: string; index: number }>, private readonly account: string) {
    this.open = candidates.map((c) => ({ ...c, foreign: false }));
  }

  /** Some column may still be a currency column: its rows must be seen. */
  get active(): boolean {
    return this.open.length > 0;
  }

  readonly visit = (rows: readonly SourceRow[]): void => {
    this.fed = true;
    for (let r = 0; r < rows.length && this.open.length > 0; r++) {
      const values = rows[r]!.values;
      this.open = this.open.filter((c) => {
        const text = auxText(values, c.index);
        if (text === '') return true;
        const codes = currencyValue(text);
        if (codes === undefined) return false;
        if (!codes.includes(this.account)) c.foreign = true;
        return true;
      });
    }
  };

  /** The columns found, once every row was seen (by `visit`, or by reading `rows` here when no pass fed it). */
  async found(rows: () => AsyncIterable<readonly SourceRow[]>): Promise<Array<{ header: string; index: number }>> {
    if (!this.fed && this.open.length > 0) {
      for await (const batch of rows()) {
        this.visit(batch);
        if (this.open.length === 0) break;
      }
    }
    return this.open.filter((c) => c.foreign);
  }
}

/** The search for the currency columns of a file by their values (`CurrencyScan`). */
export function currencyScan(headers: readonly string[], columns: ColumnMap, mapping: MappingFile | undefined, accountCurrency: string | undefined): CurrencyScan {
  const notCurrency = new Set((mapping?.notCurrency ?? []).map(normalizeHeader));
  const candidates = auxColumns(headers, columns, mapping).filter((c) => !CURRENCY_HEADERS.has(c.name) && !notCurrency.has(normalizeHeader(c.header)));
  return new CurrencyScan(candidates, (accountCurrency ?? 'USD').toUpperCase());
}

/**
 * The currency columns of one file: the mapped `currency`, those found by their headers, and
 * those found by their values (`scan`, fed by the planner's pass; without it the rows are read
 * once more, only while some column could still be one).
 */
export async function currencyColumns(
  table: { headers: readonly string[]; batches(): AsyncIterable<readonly SourceRow[]> },
  columns: ColumnMap,
  mapping: MappingFile | undefined,
  records: 'estimates' | 'bills',
  opts: CurrencyOptions,
  scan: CurrencyScan = currencyScan(table.headers, columns, mapping, opts.currency),
): Promise<CurrencyColumns> {
  const found: CurrencyColumn[] = [];
  const mapped = colOf(columns, 'currency');
  if (mapped !== undefined) found.push({ ...mapped, byValue: false });
  for (const c of auxColumns(table.headers, columns, mapping)) {
    if (CURRENCY_HEADERS.has(c.name)) found.push({ header: c.header, index: c.index, constant: null, byValue: false });
  }
  for (const c of await scan.found(() => table.batches())) found.push({ header: c.header, index: c.index, constant: null, byValue: true });
  found.sort((a, b) => a.index - b.index);
  return new CurrencyColumns(found, opts, records, mapping?.amountCurrency === 'account');
}
