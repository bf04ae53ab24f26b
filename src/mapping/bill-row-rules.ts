/**
 * The rules a bill file's rows pass before they are mapped, in one object for the bill grouper
 * (`BillGrouper`'s hooks): which rows are bills (`bill-kinds.ts`) and which amounts may be sent
 * (`amount-rules.ts`).
 */
import type { CellValue, SourceRow } from '../tables/index.ts';
import { amountRules, type AmountOptions, type AmountRules } from './amount-rules.ts';
import { billKinds, creditRate, type BillKinds } from './bill-kinds.ts';
import type { ColumnMap } from './header.ts';
import type { MappingFile } from './mapping-file.ts';
import type { StaticLine } from './report-line.ts';
import type { ReadingRules } from './values.ts';

/** The options the rules read: flags, or the mapping file's keys of the same meaning (either one turns a rule on). */
export interface BillRowOptions {
  /** `--credits negative`. */
  credits?: 'negative';
  /** `--discounts apply`. */
  discounts?: 'apply';
  /** `--ignore-tax`. */
  ignoreTax?: boolean;
  /** The account's `BUILDSYNC_CURRENCY`. @defaultValue USD */
  accountCurrency?: string;
  /** The variable that holds it, for messages. */
  currencyVariable?: string;
}

export class BillRowRules {
  /** The row being mapped is a credit sent with negative rates. */
  private credit = false;

  constructor(private readonly kinds: BillKinds | undefined, private readonly amounts: AmountRules) {}

  /**
   * Before a row is mapped: its `ignored` report line when the rules leave it out; otherwise
   * undefined, the row's problems added to `problems` as [header, message].
   */
  admit(row: SourceRow, problems: Array<[string, string]>): StaticLine | undefined {
    const kind = this.kinds === undefined ? 'bill' : this.kinds.classify(row, problems);
    if (typeof kind === 'object') return kind;
    this.credit = kind === 'credit';
    this.amounts.check(row.values, row.formats, problems);
    return undefined;
  }

  /** The rate cell as the number reader reads it (the account's currency marker taken off; another currency throws). */
  rateCell(cell: CellValue): CellValue {
    return this.amounts.rateCell(cell);
  }

  /** The admitted row's rate as sent: less its discount, negative for a credit; a `CellValueError` when it cannot be. */
  rate(rate: string): string {
    const out = this.amounts.rate(rate);
    return this.credit ? creditRate(out) : out;
  }
}

/** The row rules of one bill file (`rows` reads it again only when a `Type`/`Status` column without rules must be looked through). */
export async function billRowRules(
  table: { headers: readonly string[]; batches(): AsyncIterable<readonly SourceRow[]> },
  columns: ColumnMap,
  mapping: MappingFile | undefined,
  rules: ReadingRules,
  opts: BillRowOptions,
): Promise<BillRowRules> {
  const sendCredits = opts.credits === 'negative' || mapping?.credits === 'negative';
  const kinds = await billKinds(table.headers, columns, mapping, sendCredits, () => table.batches());
  const amounts: AmountOptions = {
    currency: opts.accountCurrency,
    currencyVariable: opts.currencyVariable,
    applyDiscounts: opts.discounts === 'apply' || mapping?.discounts === 'apply',
    ignoreTax: opts.ignoreTax === true || mapping?.ignoreTax === true,
  };
  return new BillRowRules(kinds, amountRules(table.headers, columns, mapping, rules, amounts));
}
