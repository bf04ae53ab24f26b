/**
 * The advice of a message, worded once for each front end. An error that tells the user what to
 * do carries its message as parts: plain facts (text) and `Advice` (a kind and its facts). The
 * CLI renders the advice as flags (`--date-format DMY`), the import page as its own controls
 * ("choose a date format above"): both from this one table (`wording-table.ts`), so the two
 * cannot drift apart, and neither is derived from the other's text.
 *
 * The error's `message` is always the CLI's rendering (its tests, logs and reports read it);
 * `messageFor(err, 'page')` is the page's. A report line decided while planning (an invalid or
 * ignored row, `StaticLine`) carries its parts the same way: `message` the CLI's words (the
 * report and the ledger keep only those), `wording` the parts, when it holds advice.
 */
import { PAGE_CONTROL, WORDING, type Advice, type Front, type Worded, type Wording } from './wording-table.ts';

export type { Advice, Front, OptionName, QuotedHeader, Worded, Wording } from './wording-table.ts';

/** One piece of advice in the words of `front`. */
export function advise(advice: Advice, front: Front): string {
  return (WORDING[advice.kind][front] as (a: Advice) => string)(advice);
}

/**
 * The import page's control that settles what a message says of the whole file (date order,
 * decimal separator, encoding, delimiter, header row, sheet, layout, hidden rows, summary rows),
 * by its accessible name: the one its first such advice names; undefined when none does.
 */
export function pageControlOf(wording: Worded | undefined): string | undefined {
  if (wording === undefined || typeof wording === 'string') return undefined;
  for (const part of wording) {
    if (typeof part === 'string') continue;
    const control = (PAGE_CONTROL[part.kind] as ((a: Advice) => string | undefined) | undefined)?.(part);
    if (control !== undefined) return control;
  }
  return undefined;
}

/** A worded message as `front` shows it. */
export function render(wording: Worded, front: Front): string {
  if (typeof wording === 'string') return wording;
  return wording.map((part) => (typeof part === 'string' ? part : advise(part, front))).join('');
}

/** `parts` joined with `separator`, as one wording (a list of items some of which are advice). */
export function joinWording(parts: ReadonlyArray<string | Advice>, separator: string): Wording {
  return parts.flatMap((p, i) => (i === 0 ? [p] : [separator, p]));
}

/** Messages joined with `separator`: plain text while none holds advice (the common case costs nothing more). */
export function joinWorded(parts: readonly Worded[], separator: string): Worded {
  if (parts.every((p) => typeof p === 'string')) return (parts as readonly string[]).join(separator);
  return parts.flatMap((p, i) => (i === 0 ? partsOf(p) : [separator, ...partsOf(p)]));
}

/** Messages one after the other, as one. */
export function concatWorded(...parts: Worded[]): Worded {
  return joinWorded(parts, '');
}

function partsOf(w: Worded): Wording {
  return typeof w === 'string' ? [w] : w;
}

/**
 * A message as a report line carries it: `message` in the CLI's words, and `wording` beside it
 * only when it holds advice (a line whose message has none says the same everywhere).
 */
export function wordedLine(w: Worded): { message: string; wording?: Wording } {
  if (typeof w === 'string' || w.every((p) => typeof p === 'string')) return { message: render(w, 'cli') };
  return { message: render(w, 'cli'), wording: w };
}

/** What an error (or a report line) says, as parts when it carries them, else its message. */
export function wordedOf(e: { message: string; wording?: Wording }): Worded {
  return e.wording ?? e.message;
}

/**
 * What an error or a report line says to the user of `front`: the page's wording when it carries
 * one, else its message (which names no flag: only messages whose advice is in the table carry a
 * wording).
 */
export function messageFor(err: unknown, front: Front): string {
  const e = err as { message?: unknown; wording?: Wording };
  if (front === 'page' && Array.isArray(e.wording)) return render(e.wording, 'page');
  return typeof e.message === 'string' ? e.message : String(err);
}

/** The most items a message lists (hidden rows, sheets, columns, lines): the rest are counted. */
export const MAX_LISTED = 10;

/**
 * `a, b, c and 7 more`: the first `MAX_LISTED` items, then how many more. `total` is the length
 * of the whole list when the caller gathered only its first items (a stop that would otherwise
 * print 20,000 hidden rows prints ten). Every message that enumerates goes through here.
 */
export function listAtMost(items: ReadonlyArray<string | number>, total = items.length): string {
  const shown = items.length > MAX_LISTED ? items.slice(0, MAX_LISTED) : items;
  return `${shown.join(', ')}${andMore(total - shown.length)}`;
}

/** ` and 7 more` for a list that shows all but `n` of its items; nothing when it shows all. */
export function andMore(n: number): string {
  return n > 0 ? ` and ${n} more` : '';
}
