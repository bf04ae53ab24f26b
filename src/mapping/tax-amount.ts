/**
 * A bill line's tax amount (the item field `tax_amount`; Xero's `TaxAmount` in the preset) sent
 * as the line's `TAX_PERCENT` (README, "Amounts the service cannot hold"): the service takes a
 * tax percentage per line, so the amount becomes the percentage p with the fewest decimals (at
 * most two) for which qty × rate × p / 100, rounded half up to cents, is the amount written
 * (`taxPercentOf`, exact decimals). A line whose amount no such p gives is a row error naming
 * both numbers, never a percentage that would send another tax.
 */
import type { Worded } from '../errors/index.ts';
import { decimalProduct, numberToDecimalText, taxPercentOf } from '../values/index.ts';

/** The line's TAX_PERCENT (a JSON number, as `tax_percent` is sent), or the row's message. */
export function taxPercentOfLine(header: string, amount: string, qty: number | undefined, rate: string): number | Worded {
  const base = qty === undefined ? rate : decimalProduct(numberToDecimalText(qty), rate);
  const percent = taxPercentOf(base, amount);
  if (percent !== undefined) return Number(percent);
  const line = qty === undefined ? `rate ${rate}` : `${numberToDecimalText(qty)} × ${rate} = ${base}`;
  return `${header} ${amount} is no tax of the line's ${line} at a percentage with at most two decimals (qty × rate × percent / 100, rounded to cents); the service takes a tax percentage per line. Correct the tax amount or the line, or give the line's rate in a tax_percent column instead`;
}

/** The item fields of a bill file, by column, as `BillGrouper` reads them into its scratch (one value per field). */
interface ItemField {
  column: string;
  header: string;
}

/** A mapped `tax_amount` among a bill file's item fields: turns the row's amount into its TAX_PERCENT in place. */
export class TaxAmountField {
  private constructor(
    private readonly header: string,
    private readonly at: number,
    private readonly rate: number,
    private readonly qty: number,
    private readonly percent: number,
  ) {}

  static of(fields: readonly ItemField[]): TaxAmountField | undefined {
    const at = (column: string) => fields.findIndex((f) => f.column === column);
    const i = at('tax_amount');
    return i < 0 ? undefined : new TaxAmountField(fields[i]!.header, i, at('rate'), at('qty'), at('tax_percent'));
  }

  /**
   * The row's scratch values (the rate as sent: less its discount, negative for a credit): its
   * tax amount becomes the percentage, or is cleared with a problem as [header, message] (a
   * tax_percent beside it, or no such percentage).
   */
  apply(scratch: unknown[]): [string, Worded] | undefined {
    const amount = scratch[this.at] as string | undefined;
    if (amount === undefined) return undefined;
    scratch[this.at] = undefined;
    if (this.percent >= 0 && scratch[this.percent] !== undefined) return [this.header, `a line gives tax_percent or ${this.header}, not both; leave one empty`];
    const rate = this.rate < 0 ? undefined : (scratch[this.rate] as string | undefined);
    if (rate === undefined) return undefined; // the missing rate is the row's error
    const percent = taxPercentOfLine(this.header, amount, this.qty < 0 ? undefined : (scratch[this.qty] as number | undefined), rate);
    if (typeof percent !== 'number') return [this.header, percent];
    scratch[this.at] = percent;
    return undefined;
  }
}

/**
 * Amounts that include their tax (Xero's `LineAmountTypes` `Inclusive`): the service adds each
 * line's TAX_PERCENT to its rate, so a line whose unit amount already holds its tax amount
 * would count the tax twice. Such a row with a tax amount other than zero is a row error; the
 * check applies only where `tax_amount` is mapped and the file has the column.
 */
export function inclusiveAmounts(aux: ReadonlyArray<{ header: string; index: number; name: string }>, taxAmount: { header: string; index: number } | undefined): ((values: readonly unknown[], problems: Array<[string, Worded]>) => void) | undefined {
  const column = aux.find((c) => c.name === 'lineamounttypes');
  if (column === undefined || taxAmount === undefined || taxAmount.index < 0) return undefined;
  return (values, problems) => {
    const kind = String(values[column.index] ?? '').trim();
    const tax = String(values[taxAmount.index] ?? '').trim();
    if (kind.toLowerCase() !== 'inclusive' || /^[-+(]*[0.,\s]*\)?$/.test(tax)) return;
    problems.push([column.header, `${column.header} "${kind}": the unit amounts include their tax (${taxAmount.header} ${tax}), while the service adds each line's TAX_PERCENT to its rate, so the tax would count twice. Export the bills with tax-exclusive amounts`]);
  };
}
