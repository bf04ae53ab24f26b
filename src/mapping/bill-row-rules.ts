/**
 * The rules a bill file's rows pass before they are mapped: which rows are bills
 * (`bill-kinds.ts`) and which amounts may be sent (`amount-rules.ts`).
 *
 * Kinds and status run in the row rules (`kindsRule`, the `afterTotals` hook: after the totals,
 * before fill-down, README "What is not a record"): there a row is classified, once; the rows
 * the rules leave out are reported there, once; a row with a kind of its own is marked a new
 * transaction, where fill-down stops. The grouper's `admit` then takes what the rule found of the
 * row it passed (its problems, whether it is a credit) and checks its amounts, which apply to
 * the rate as it is mapped (`rateCell`, `rate`).
 */
import type { Worded } from '../errors/index.ts';
import type { BillPayload } from '../payloads/index.ts';
import { decimalProduct, decimalSum, numberToDecimalText } from '../values/index.ts';
import type { CellValue, SourceRow } from '../tables/index.ts';
import { amountRules, type AmountOptions, type AmountRules } from './amount-rules.ts';
import { billKinds, creditRate, type BillKinds } from './bill-kinds.ts';
import { currencyColumns, type CurrencyScan } from './currency-columns.ts';
import type { RowReport, RowRule } from './rows/index.ts';
import { staticLine, type StaticLine } from './report-line.ts';
import type { ColumnMap } from './header.ts';
import type { MappingFile } from './mapping-file.ts';
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

/** What the kinds rule found of the row it let through last. */
interface Passed {
  line: number;
  credit: boolean;
  problems: Array<[string, Worded]>;
}

const NO_PROBLEMS: ReadonlyArray<[string, Worded]> = [];

export class BillRowRules {
  /** The row being mapped is a credit sent with negative rates. */
  private credit = false;
  private passed: Passed | undefined;

  constructor(
    private readonly kinds: BillKinds | undefined,
    private readonly amounts: AmountRules,
    /** `--credits negative` (or `"credits": "negative"`): credits are sent. */
    private readonly sendCredits = false,
  ) {}

  /**
   * A bill whose lines (qty × rate, qty 1 when empty, in exact decimals) sum below zero is a
   * credit (README, "Negative lines"): its lines go to `statics` as `ignored` (`credit`) and it is
   * not sent (true). It is sent (false) when it sums to zero or more (a negative line is a discount
   * or a return), or when `--credits negative` sends it with its rates as written.
   */
  leftOutAsCredit(items: BillPayload['ITEMS'], lines: readonly number[], record: string, statics: StaticLine[]): boolean {
    if (this.sendCredits || !items.some((item) => String(item.RATE).startsWith('-'))) return false;
    const sum = decimalSum(items.map((item) => (item.QTY === undefined ? String(item.RATE) : decimalProduct(numberToDecimalText(Number(item.QTY)), String(item.RATE)))));
    if (!sum.startsWith('-')) return false;
    const message: Worded = [`its lines sum to ${sum}: a credit; the service's bills hold no credit notes, so it is not sent (`, { kind: 'send-negative-bill' }, ')'];
    for (const line of lines) statics.push(staticLine(line, record, 'ignored', message, 'credit'));
    return true;
  }

  /**
   * The kinds and status rule of the row rules (`afterTotals`), or none when the file has no
   * kind or status column to read: a row the rules leave out (`kind`, `credit`) is reported to
   * `report` and goes no further; a row with a kind of its own is a new transaction.
   */
  kindsRule(report: RowReport): RowRule[] {
    const kinds = this.kinds;
    if (kinds === undefined) return [];
    return [{
      apply: (row, ctx) => {
        const problems: Array<[string, Worded]> = [];
        const kind = kinds.classify(row, problems);
        if (kinds.ownKind(row)) ctx.newTransaction = true;
        if (typeof kind === 'object') {
          this.passed = undefined;
          report.ignored(row.line, kind.reason, kind.message);
          return false;
        }
        this.passed = { line: row.line, credit: kind === 'credit', problems };
        return true;
      },
    }];
  }

  /**
   * Before a row is mapped (the row rules have passed it): the problems its kind or status had
   * and those of its amounts, added to `problems` as [header, message].
   */
  admit(row: SourceRow, problems: Array<[string, Worded]>): void {
    const passed = this.kinds === undefined ? undefined : this.passed;
    if (this.kinds !== undefined && passed?.line !== row.line) throw new Error(`bill row rules: line ${row.line} reached the grouper without passing the kinds rule`);
    this.credit = passed?.credit === true;
    for (const p of passed?.problems ?? NO_PROBLEMS) problems.push(p);
    this.amounts.check(row.values, row.formats, problems);
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
  /** The search for currency columns by their values, fed by the planner's first pass (`currencyScan`). */
  scan?: CurrencyScan,
): Promise<BillRowRules> {
  const sendCredits = opts.credits === 'negative' || mapping?.credits === 'negative';
  const kinds = await billKinds(table.headers, columns, mapping, sendCredits, () => table.batches());
  const amounts: AmountOptions = {
    currency: opts.accountCurrency,
    currencyVariable: opts.currencyVariable,
    applyDiscounts: opts.discounts === 'apply' || mapping?.discounts === 'apply',
    ignoreTax: opts.ignoreTax === true || mapping?.ignoreTax === true,
  };
  const currencies = await currencyColumns(table, columns, mapping, 'bills', { currency: opts.accountCurrency, currencyVariable: opts.currencyVariable }, scan);
  return new BillRowRules(kinds, amountRules(table.headers, columns, mapping, rules, amounts, currencies), sendCredits);
}
