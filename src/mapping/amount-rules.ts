/**
 * Amounts the service cannot hold are never dropped (README, "Amounts the service cannot hold"):
 * a bill carries no currency, no discount and no tax amount, so a row that has one is a row
 * error unless the user said what to do with it.
 *
 *   - Currency: a rate written with a currency symbol or code (`€1,250.00`, `£12`,
 *     `CHF 1'250.00`, `EUR 10`), or a row whose currency column (`currency-columns.ts`) names a
 *     currency, other than the account's `BUILDSYNC_CURRENCY` is a row error (`$` is any
 *     currency written `$`). The account's own currency is read (account EUR: `€1,250.00` is
 *     1250.00). A currency column is never silenced, not even by a user's `ignore`.
 *   - Discount (`Discount` column): a value other than zero is a row error unless
 *     `--discounts apply` (`"discounts": "apply"`): the rate becomes unit price × (1 − discount %),
 *     a row error unless that is a whole number of cents (never rounded).
 *   - Tax (`Tax`, `Tax Amount`, `Tax Rate`, `VAT`, `GST`, `Sales Tax`; compared as headers are)
 *     not mapped to `tax_percent`: a value other than zero is a row error unless `--ignore-tax`
 *     (`"ignoreTax": true`).
 *   - A user's own mapping that lists a discount or tax column under `ignore` has decided; a
 *     built-in preset's `ignore` never decides, and neither does the `ignore` of a mapping that
 *     decides outright: `"discounts": "apply"` or `false`, `"ignoreTax": true` or `false` (the
 *     import page writes them so, since there a column left at Ignore is no decision: its
 *     `Apply discounts` and `Ignore tax` boxes are).
 */
import { wordedOf, type Worded, type Wording } from '../errors/index.ts';
import type { CellFormat, CellValue } from '../tables/index.ts';
import { currencyShown, writtenCurrency, writtenIn, type WrittenCurrency } from '../values/written-currency.ts';
import { auxColumns, auxText, type AuxColumn } from './aux-columns.ts';
import type { CurrencyColumns } from './currency-columns.ts';
import { inclusiveAmounts } from './tax-amount.ts';
import type { ColumnMap } from './header.ts';
import type { MappingFile } from './mapping-file.ts';
import { CellValueError, parseDecimalText, type ReadingRules } from './values.ts';

const TAX_HEADERS: ReadonlySet<string> = new Set(['tax', 'taxamount', 'taxrate', 'vat', 'gst', 'salestax']);
const DISCOUNT_HEADERS: ReadonlySet<string> = new Set(['discount']);

export interface AmountOptions {
  /** The account's currency (ISO 4217). @defaultValue USD */
  currency?: string;
  /** The variable it is read from, for messages. @defaultValue BUILDSYNC_CURRENCY */
  currencyVariable?: string;
  /** `--discounts apply`. */
  applyDiscounts?: boolean;
  /** `--ignore-tax`. */
  ignoreTax?: boolean;
}

export class AmountRules {
  private readonly currency: string;
  private readonly variable: string;
  /** The row's discount (decimal percent text) once `check` read it; undefined for none. */
  private discount: string | undefined;

  constructor(
    private readonly rules: ReadingRules,
    opts: AmountOptions,
    private readonly currencyColumns: CurrencyColumns,
    private readonly discountColumns: readonly AuxColumn[],
    private readonly taxColumns: readonly AuxColumn[],
    private readonly applyDiscounts: boolean,
    /** Amounts that include their tax beside a mapped `tax_amount` (`inclusiveAmounts`). */
    private readonly inclusive?: (values: readonly unknown[], problems: Array<[string, Worded]>) => void,
  ) {
    this.currency = (opts.currency ?? 'USD').toUpperCase();
    this.variable = opts.currencyVariable ?? 'BUILDSYNC_CURRENCY';
  }

  /** The rate cell as the number reader reads it: the account's currency marker taken off; another currency is a `CellValueError`. */
  rateCell(cell: CellValue): CellValue {
    if (typeof cell !== 'string') return cell;
    const written = writtenCurrency(cell);
    if (written === undefined) return cell;
    if (!writtenIn(written, this.currency)) throw new CellValueError(this.foreign(`${JSON.stringify(cell.trim())} is in ${currencyShown(written)}, but`, written));
    return written.amount;
  }

  /** The row's currency, discount and tax cells: problems go to `problems` as [header, message]. */
  check(values: readonly CellValue[], formats: ReadonlyArray<CellFormat | undefined> | undefined, problems: Array<[string, Worded]>): void {
    this.discount = undefined;
    this.currencyColumns.check(values, problems);
    this.inclusive?.(values, problems);
    for (const c of this.discountColumns) {
      const percent = this.amount(values[c.index] ?? null, formats?.[c.index], c, problems, true);
      if (percent === undefined) continue;
      const shown = JSON.stringify(auxText(values, c.index));
      if (!this.applyDiscounts) {
        problems.push([c.header, [`${c.header} ${shown}: the service's bills hold no discount, so it would be lost. `, { kind: 'apply-discounts' }, ', or remove the discount']]);
      } else if (percent.startsWith('-') || Number(percent) > 100) {
        problems.push([c.header, `${c.header} ${shown}: a discount is a percentage from 0 to 100`]);
      } else this.discount = percent;
    }
    for (const c of this.taxColumns) {
      if (this.amount(values[c.index] ?? null, formats?.[c.index], c, problems, false) === undefined) continue;
      problems.push([c.header, [`${c.header} ${JSON.stringify(auxText(values, c.index))}: the service's bills hold no tax amount, so it would be lost. `, { kind: 'ignore-tax' }]]);
    }
  }

  /** The item's rate less the row's discount (`check` read it): a `CellValueError` unless a whole number of cents. */
  rate(rate: string): string {
    const percent = this.discount;
    if (percent === undefined) return rate;
    const out = discounted(rate, percent);
    if (out === undefined) throw new CellValueError(`the rate ${rate} less the discount of ${percent} % is not a whole number of cents; a rate is never rounded. Write the discounted rate instead of the discount`);
    return out;
  }

  /** A non-zero amount of an aux column as decimal text; undefined for blank or zero (a cell that is no number is a problem). */
  private amount(cell: CellValue, format: CellFormat | undefined, c: AuxColumn, problems: Array<[string, Worded]>, percent: boolean): string | undefined {
    try {
      const text = parseDecimalText(this.rateCell(cell), this.rules, format, percent);
      return text === undefined || /^[-+]?0*\.?0*$/.test(text) ? undefined : text;
    } catch (err) {
      if (!(err instanceof CellValueError)) throw err;
      problems.push([c.header, wordedOf(err)]);
      return undefined;
    }
  }

  /** `lead` (`"€12" is in EUR, but` or `Currency "EUR":`) and what to do about an amount in another currency. */
  private foreign(lead: string, written: Pick<WrittenCurrency, 'codes'>): Wording {
    return [
      `${lead} the account's currency is ${this.currency} (${this.variable}): bills carry no currency, so it is never sent as ${this.currency}. Convert the amount, or `,
      { kind: 'other-account', currency: written.codes[0]! },
    ];
  }
}

/**
 * `rate` × (1 − `percent` %) in exact decimal arithmetic, as text with two decimals; undefined
 * when that is not a whole number of cents.
 */
export function discounted(rate: string, percent: string): string | undefined {
  const negative = rate.startsWith('-');
  const [ri = '0', rf = ''] = rate.replace(/^[-+]/, '').split('.');
  const [pi = '0', pf = ''] = percent.split('.');
  const r = BigInt(`${ri}${rf}` || '0');
  const kept = 100n * 10n ** BigInt(pf.length) - BigInt(`${pi}${pf}` || '0');
  const product = r * kept;
  // product is rate × (100 − percent) scaled by 10^(rf + pf); in cents that is product / 10^(rf + pf).
  const scale = 10n ** BigInt(rf.length + pf.length);
  if (product % scale !== 0n) return undefined;
  const cents = product / scale;
  const text = `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
  return negative && cents !== 0n ? `-${text}` : text;
}

/** The amount rules of one bill file: its currency columns (`currencyColumns`), its discount and tax columns found by their headers. */
export function amountRules(headers: readonly string[], columns: ColumnMap, mapping: MappingFile | undefined, rules: ReadingRules, opts: AmountOptions, currencies: CurrencyColumns): AmountRules {
  const aux = auxColumns(headers, columns, mapping);
  // A user's own `ignore` entry for a discount or tax column is their decision; a preset's is none,
  // and so is one in a mapping that decides outright (`"discounts"`, `"ignoreTax"` given).
  const undecided = (said: boolean | 'apply' | undefined) => (c: AuxColumn) => !c.userIgnored || said !== undefined;
  return new AmountRules(
    rules,
    opts,
    currencies,
    aux.filter((c) => DISCOUNT_HEADERS.has(c.name) && undecided(mapping?.discounts)(c)),
    opts.ignoreTax === true ? [] : aux.filter((c) => TAX_HEADERS.has(c.name) && undecided(mapping?.ignoreTax)(c)),
    opts.applyDiscounts === true,
    inclusiveAmounts(aux, columns.source('tax_amount')),
  );
}
