/**
 * Summary rows of bills (docs/reading-rules.md, "Summary rows"): a row that repeats its bill's
 * total without a label (NetSuite's "Main Line", a header row per bill). A row's amount is
 * qty × rate (qty empty: 1). Once totals are set aside and kinds and status applied:
 *
 *   - when every bill of two or more rows has a first or last row whose amount equals the sum of
 *     its other rows, and one of them at least has three or more rows, the file stops (exit 2)
 *     before anything is sent, naming those rows, unless the mapping's `"summaryRows"` says how
 *     they are known (a column and its values: those rows are ignored as totals, each checked
 *     against its bill's lines) or that there are none (`"none"`: such rows are lines);
 *   - a bill of three or more rows that matches alone, in a file where others do not, is sent,
 *     and its report lines say that one row equals the sum of the others.
 *
 * Two rows of equal amounts always match, so a bill of two rows never decides the pattern alone
 * and gets no word. Memory: a few numbers per open bill (`BillAmounts`), and the first rows named.
 */
import { FileError, joinWorded, type Worded } from '../errors/index.ts';
import type { StaticLine } from './report-line.ts';
import type { LineNotes } from './record-key.ts';

/** The amounts of one bill's rows in cents, in line order: what the rule reads of a bill. */
export interface BillAmounts {
  n: number;
  first: number;
  firstLine: number;
  last: number;
  lastLine: number;
  sum: number;
  /** A row whose amount could not be read: the bill says nothing about the pattern. */
  unknown: boolean;
}

/** A summary row the mapping names, held until its bill is complete. */
export interface HeldSummary {
  line: number;
  /** Its amount in cents (undefined: it cannot be read, `why`). */
  cents: number | undefined;
  why: Worded | undefined;
  /** Its column and value (`Main Line "*"`). */
  shown: string;
}

/** The row's amount in cents, from the rate as mapped (decimal text) and the quantity. */
export function centsOf(rate: unknown, qty: unknown): number | undefined {
  if (typeof rate !== 'string') return undefined;
  const r = Number(rate);
  const q = typeof qty === 'number' ? qty : 1;
  return Number.isFinite(r) ? Math.round(r * q * 100) : undefined;
}

/** `a` with one more row: its amount (undefined: unknown) at `line`. */
export function addAmount(a: BillAmounts | undefined, cents: number | undefined, line: number): BillAmounts {
  const c = cents ?? 0;
  if (a === undefined) return { n: 1, first: c, firstLine: line, last: c, lastLine: line, sum: c, unknown: cents === undefined };
  a.n++;
  a.last = c;
  a.lastLine = line;
  a.sum += c;
  if (cents === undefined) a.unknown = true;
  return a;
}

/** `notes` (per-line notes in line order) with `note` added on every one of `lines`. */
export function withNoteOnEvery(lines: readonly number[], notes: LineNotes | undefined, note: string): LineNotes {
  return lines.map((line) => {
    const had = notes?.find(([l]) => l === line)?.[1];
    return [line, had === undefined ? note : `${had}; ${note}`];
  });
}

/** The line of the bill's first or last row whose amount equals the sum of its other rows, or undefined. */
function summaryLine(a: BillAmounts): number | undefined {
  if (a.n < 2 || a.unknown) return undefined;
  if (a.first * 2 === a.sum) return a.firstLine;
  if (a.last * 2 === a.sum) return a.lastLine;
  return undefined;
}

const MAX_NAMED = 10;

function money(cents: number): string {
  return (cents / 100).toFixed(2);
}

export class SummaryRows {
  /** Bills of two or more rows, and those among them with a row equal to the sum of the others. */
  private multi = 0;
  private matched = 0;
  private longMatched = false;
  private readonly named: number[] = [];

  constructor(
    private readonly file: string,
    /** `detect`: the mapping says nothing (the file may stop); `column`: it names summary rows; `none`: there are none. */
    private readonly mode: 'detect' | 'column' | 'none',
  ) {}

  /**
   * A complete bill: its held summary rows checked against its lines (`ignored` lines, and the
   * stops of those that do not check), its part in the file's pattern noted, and the note its
   * lines get when it matches alone (undefined: none).
   */
  bill(a: BillAmounts | undefined, held: readonly HeldSummary[] | undefined, name: string): { ignored: StaticLine[]; stops: Array<[number, Worded]>; note: string | undefined } {
    const ignored: StaticLine[] = [];
    const stops: Array<[number, Worded]> = [];
    const lines = a === undefined ? 0 : a.sum;
    for (const h of held ?? []) {
      if (h.cents === undefined) stops.push([h.line, joinWorded([`summary row (${h.shown}): its amount cannot be read (`, h.why ?? 'no rate', '); its bill is not sent'], '')]);
      // A line of the bill that could not be read (an error of its own) leaves its sum unknown: saying
      // what the readable lines add up to would name a figure that is not the bill's.
      else if (a?.unknown) stops.push([h.line, `summary row (${h.shown}) says ${money(h.cents)}; not checked, since a line of ${name} has an error (see its line): correct it and run again; not sent`]);
      else if (a !== undefined && h.cents === lines) ignored.push({ line: h.line, record: '', status: 'ignored', reason: 'total', message: `summary row (${h.shown}): ${money(h.cents)} = the sum of ${name}` });
      else stops.push([h.line, `summary row (${h.shown}) says ${money(h.cents)} but the lines of ${name} add up to ${a === undefined ? '0.00, it has none' : money(lines)}; not sent: correct the amounts, or the summary row`]);
    }
    if (this.mode === 'none' || a === undefined) return { ignored, stops, note: undefined };
    const at = summaryLine(a);
    if (a.n >= 2 && !a.unknown) this.multi++;
    if (at === undefined) return { ignored, stops, note: undefined };
    this.matched++;
    if (this.named.length < MAX_NAMED) this.named.push(at);
    if (a.n < 3) return { ignored, stops, note: undefined };
    this.longMatched = true;
    const amount = at === a.firstLine ? a.first : a.last;
    return { ignored, stops, note: `line ${at} (${money(amount)}) equals the sum of this bill's other rows; if it is a summary row, say how the mapping knows them ("summaryRows")` };
  }

  /** After the last bill: every bill of two or more rows holds a summary row, one of three rows or more at least: the file stops. */
  end(): void {
    if (this.mode !== 'detect' || this.multi === 0 || this.matched < this.multi || !this.longMatched) return;
    const more = this.matched - this.named.length;
    throw new FileError(this.file, [
      `${this.file}: every bill of two or more rows has a first or last row whose amount equals the sum of its other rows (line${this.matched > 1 ? 's' : ''} ${this.named.join(', ')}${more > 0 ? ` and ${more} more` : ''}): summary rows repeating each bill's total (as NetSuite's "Main Line" rows do), which would send every bill at twice its value. `,
      { kind: 'summary-rows' },
      '; nothing was sent.',
    ]);
  }
}
