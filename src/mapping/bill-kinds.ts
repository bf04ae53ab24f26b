/**
 * Which rows of an accounting export are bills (README, "Kinds of rows in accounting exports"):
 * the mapping's `kinds` rules (`"kinds": {"column": "Type", "bill": [...], "credit": [...],
 * "ignore": [...]}`), its `status` rules (`"status": {"column": "Status", "keep": [...],
 * "ignore": [...]}`), credits, and the `Type`/`Status` columns no rule covers.
 *
 *   - A value in none of its column's lists is a row error naming it. Values are compared as
 *     keys are (`keyText`, values/key-text.ts): ignoring case and leading, trailing and
 *     repeated spaces, whichever spaces they are; `ß` is `ss`, full-width `Ｂｉｌｌ` is `Bill`.
 *   - An empty kind (or status) continues the transaction above: a split line of the row above,
 *     whatever that row was (a bill, a credit, an ignored payment). At the top of the file there
 *     is no transaction to continue: a row error.
 *   - A row whose kind or status the rules ignore is `ignored` (`kind`), its message naming the
 *     value (`Type "Bill Payment (Check)"`); a status that ignores wins over a credit.
 *   - A credit is `ignored` (`credit`: the service's bills hold no credit notes) unless
 *     `--credits negative`, which sends it as a bill whose rates are all −|rate| (an export that
 *     writes credits negative already is not flipped back).
 *   - A `Type`, `Transaction Type` or `Status` column with no rules, that the mapping ignores,
 *     whose values include a word of credit, payment, check, expense, deposit, journal, void or
 *     delete, is never silently dropped: each row whose value is not `Bill` is a row error.
 */
import type { Worded } from '../errors/index.ts';
import type { SourceRow } from '../tables/index.ts';
import { keyText } from '../values/key-text.ts';
import { auxColumns, auxText, type AuxColumn } from './aux-columns.ts';
import type { ColumnMap } from './header.ts';
import { normalizeHeader } from './header.ts';
import type { MappingFile } from './mapping-file.ts';
import { ruleColumnHeaders } from './presets.ts';
import { hasOwnKind } from './rows/fill-down.ts';

type Verdict = 'bill' | 'credit' | 'ignore';

/** The headers that say what a row is, as `auxName` writes them. */
const KIND_HEADERS: ReadonlySet<string> = new Set(['type', 'transactiontype', 'status']);
/** Words that show such a column holds rows that are not bills. */
const NOT_BILL_WORDS = /credit|payment|check|expense|deposit|journal|void|delete/i;

/** What one row of a rule's column said: its verdict, the value as written, and its line. */
interface Said {
  verdict: Verdict | 'unlisted';
  value: string;
  line: number;
}

/** One column with rules: its values' verdicts, and the last value written (for split lines). */
class RuleColumn {
  private last: Said | undefined;
  constructor(
    readonly header: string,
    readonly index: number,
    private readonly verdicts: ReadonlyMap<string, Verdict>,
    /** How a message names the lists a value must be in (`"kinds" (bill, credit, ignore)`). */
    private readonly lists: string,
  ) {}

  /** The row's value, or the one it continues; a problem message for an unlisted or unsettled one. */
  read(values: readonly unknown[], line: number, problems: Array<[string, Worded]>): Said | undefined {
    const text = auxText(values, this.index);
    if (text === '') {
      const above = this.last;
      if (above === undefined) problems.push([this.header, `${this.header} is empty and no row above says what this row is; fill it with one of the values the mapping's ${this.lists} lists`]);
      else if (above.verdict === 'unlisted') problems.push([this.header, `${this.header} is empty: this split line continues line ${above.line}, whose ${this.header} ${JSON.stringify(above.value)} is in none of the mapping's ${this.lists} lists`]);
      return above;
    }
    const said: Said = { verdict: this.verdicts.get(keyText(text)) ?? 'unlisted', value: text, line };
    if (said.verdict === 'unlisted') problems.push([this.header, `${this.header} ${JSON.stringify(text)} is in none of the mapping's ${this.lists} lists; add it to one of them`]);
    this.last = said;
    return said;
  }

  /** True when the row's value is its own (not empty): a new transaction. */
  own(values: readonly unknown[]): boolean {
    return hasOwnKind(values, this.index);
  }

  /** `Type "Bill Payment (Check)"`, with the line it continues for a split line. */
  named(said: Said, line: number): string {
    return `${this.header} ${JSON.stringify(said.value)}${said.line === line ? '' : ` (line ${said.line}: this split line continues it)`}`;
  }
}

/** What the rules make of one row: send it as a bill, as a credit (negative rates), or leave it out (`ignored`, with its reason and message). */
export type RowKind = 'bill' | 'credit' | LeftOut;

export interface LeftOut {
  reason: 'kind' | 'credit';
  message: Worded;
}

export class BillKinds {
  constructor(
    private readonly kind: RuleColumn | undefined,
    private readonly status: RuleColumn | undefined,
    /** `Type`/`Status` columns without rules that hold rows that are not bills: each row not `Bill` is a row error. */
    private readonly guarded: readonly AuxColumn[],
    /** `--credits negative`: credits are sent. */
    private readonly sendCredits: boolean,
  ) {}

  /** True when the row has a kind of its own (its kind cell is not empty): a new transaction, where fill-down stops. */
  ownKind(row: SourceRow): boolean {
    return this.kind !== undefined && this.kind.own(row.values);
  }

  /** The row's kind; problems (unlisted values, …) go to `problems` as [header, message] and the row reads as a bill. */
  classify(row: SourceRow, problems: Array<[string, Worded]>): RowKind {
    const { values, line } = row;
    for (const g of this.guarded) {
      const text = auxText(values, g.index);
      if (text !== '' && keyText(text) !== 'bill') {
        const rules = g.name === 'status' ? `"status": {"column": ${JSON.stringify(g.header)}, "keep": [...], "ignore": [...]}` : `"kinds": {"column": ${JSON.stringify(g.header)}, "bill": [...], "credit": [...], "ignore": [...]}`;
        problems.push([g.header, [`${g.header} ${JSON.stringify(text)}: this column says what each row is, and without rules for it only "Bill" rows are bills. `, { kind: 'kinds-rules', rules }]]);
      }
    }
    const kind = this.kind?.read(values, line, problems);
    const status = this.status?.read(values, line, problems);
    if (kind?.verdict === 'ignore') return { reason: 'kind', message: this.kind!.named(kind, line) };
    if (status?.verdict === 'ignore') return { reason: 'kind', message: this.status!.named(status, line) };
    if (kind?.verdict === 'credit') {
      if (this.sendCredits) return 'credit';
      return { reason: 'credit', message: [`${this.kind!.named(kind, line)}: a credit; the service's bills hold no credit notes, so it is not sent (`, { kind: 'send-credits' }, ')'] };
    }
    return 'bill';
  }
}

/** A credit's rate: −|rate| (decimal text). */
export function creditRate(rate: string): string {
  const abs = rate.startsWith('-') || rate.startsWith('+') ? rate.slice(1) : rate;
  return /^[0.]*$/.test(abs) ? abs : `-${abs}`;
}

/**
 * Where the mapping's `which` rule column is in the file (compared as headers are), or -1: the
 * first of its headers the file has (a preset names alternatives: `Type` or `Transaction Type`).
 */
function indexOf(headers: readonly string[], mapping: MappingFile | undefined, which: 'kinds' | 'status'): number {
  for (const header of ruleColumnHeaders(mapping, which)) {
    const name = normalizeHeader(header);
    const i = headers.findIndex((h) => normalizeHeader(h) === name);
    if (i >= 0) return i;
  }
  return -1;
}

function verdicts(lists: ReadonlyArray<[Verdict, readonly string[]]>): Map<string, Verdict> {
  const out = new Map<string, Verdict>();
  for (const [verdict, values] of lists) for (const v of values) out.set(keyText(v), verdict);
  return out;
}

/**
 * The kind rules of one bill file, or undefined when none applies (no rule column in the file, no
 * guarded column). `rows` reads the file once more, only when a `Type`/`Status` column without
 * rules must be looked through for rows that are not bills.
 */
export async function billKinds(
  headers: readonly string[],
  columns: ColumnMap,
  mapping: MappingFile | undefined,
  sendCredits: boolean,
  rows: () => AsyncIterable<readonly SourceRow[]>,
): Promise<BillKinds | undefined> {
  let kind: RuleColumn | undefined;
  let status: RuleColumn | undefined;
  const k = mapping?.kinds;
  const kindIndex = indexOf(headers, mapping, 'kinds');
  if (k !== undefined && kindIndex >= 0) {
    kind = new RuleColumn(headers[kindIndex]!, kindIndex, verdicts([['bill', k.bill], ['credit', k.credit], ['ignore', k.ignore]]), '"kinds" (bill, credit, ignore)');
  }
  const s = mapping?.status;
  const statusIndex = indexOf(headers, mapping, 'status');
  if (s !== undefined && statusIndex >= 0) {
    status = new RuleColumn(headers[statusIndex]!, statusIndex, verdicts([['bill', s.keep], ['ignore', s.ignore]]), '"status" (keep, ignore)');
  }
  const candidates = auxColumns(headers, columns, mapping).filter((c) => KIND_HEADERS.has(c.name) && c.index !== kindIndex && c.index !== statusIndex);
  const guarded = candidates.length === 0 ? [] : await holdingOtherRows(candidates, rows);
  if (kind === undefined && status === undefined && guarded.length === 0) return undefined;
  return new BillKinds(kind, status, guarded, sendCredits);
}

/** The columns among `candidates` whose values include a word of a row that is not a bill. */
async function holdingOtherRows(candidates: readonly AuxColumn[], rows: () => AsyncIterable<readonly SourceRow[]>): Promise<AuxColumn[]> {
  const found = new Set<AuxColumn>();
  for await (const batch of rows()) {
    for (const row of batch) {
      for (const c of candidates) if (!found.has(c) && NOT_BILL_WORDS.test(auxText(row.values, c.index))) found.add(c);
    }
    if (found.size === candidates.length) break;
  }
  return candidates.filter((c) => found.has(c));
}

/** The header of the mapping's kind column as the file writes it, or undefined when the file has none. */
export function kindColumnOf(headers: readonly string[], mapping: MappingFile | undefined): string | undefined {
  const index = indexOf(headers, mapping, 'kinds');
  return index < 0 ? undefined : headers[index];
}
