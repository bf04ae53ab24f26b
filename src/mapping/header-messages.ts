import { MAX_LISTED, andMore, type Advice, type QuotedHeader, type Wording } from '../errors/index.ts';
import { suggestColumn } from './suggest.ts';

/** What the header checks (header.ts, header-rule.ts) say of a file's headers: input quoted within a message's budget. */

/**
 * `bills.csv:1: unknown columns "UOM", "Unit Price". Did you mean: "UOM" → unit, "Unit Price" →
 * unit_cost? To read them so, pass --mapping MAP.json with {"columns": {...}}; to skip them,
 * {"ignore": [...]}. Known columns: …` (`lead` is what comes before "unknown columns").
 */
export function unknownColumnsMessage(unknown: readonly string[], known: readonly string[], taken: ReadonlySet<string>, lead: string): Wording {
  const q = new Quoter();
  const shown: QuotedHeader[] = [];
  const proposed = new Set(taken);
  for (const header of unknown.slice(0, MAX_LISTED)) {
    const quoted = q.quote(header);
    if (quoted === undefined) break;
    // Never propose a column the file already has, nor one column for two headers.
    const column = suggestColumn(header, known.filter((k) => !proposed.has(k)));
    if (column !== undefined) proposed.add(column);
    shown.push({ quoted, column });
  }
  const rest = unknown.length - shown.length;
  const list = `${shown.map((s) => s.quoted).join(', ')}${andMore(rest)}`;
  const plural = unknown.length > 1;
  const knownText = `Known columns: ${known.join(', ')} (case, spaces, _, - and . do not matter).`;
  const suggested = shown.filter((s) => s.column !== undefined);
  const advice: Advice = { kind: 'unknown-columns', shown, more: rest > 0 };
  const message = `${lead}unknown column${plural ? 's' : ''} ${list}.`;
  if (suggested.length === 0) return [`${message} ${knownText} `, advice];
  return [`${message} Did you mean: ${suggested.map((s) => `${s.quoted} → ${s.column}`).join(', ')}? `, advice, ` ${knownText}`];
}

/** `"a", "b", "c" and 7 more`: the row's non-empty headers, quoted within a message's budget. */
export function listHeaders(headers: readonly string[]): string {
  return new Quoter().list(headers.filter((h) => h.trim() !== ''), MAX_LISTED);
}

/** Longest part of one input value a message quotes. */
const MAX_QUOTED_VALUE = 60;

/**
 * Quotes input for one message, at most 200 characters of it in all (docs/reading-rules.md): a value
 * quoted twice counts once; a long value is cut (`…`); once the budget is spent, `quote` returns
 * undefined and the caller counts the rest instead of naming them.
 */
export class Quoter {
  private used = 0;
  private readonly seen = new Map<string, string>();
  constructor(private readonly budget = 200) {}

  quote(value: string): string | undefined {
    const done = this.seen.get(value);
    if (done !== undefined) return done;
    const left = this.budget - this.used;
    const wanted = Math.min(value.length, MAX_QUOTED_VALUE);
    // A value that no longer fits is counted, not cut to a stub (the first one always shows).
    if (left <= 0 || (wanted > left && this.used > 0)) return undefined;
    const max = Math.min(wanted, left);
    let text = value;
    if (value.length > max) {
      let cut = max - 1;
      const code = value.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut--; // keep surrogate pairs whole
      text = `${value.slice(0, cut)}…`;
    }
    this.used += max;
    const quoted = JSON.stringify(text);
    this.seen.set(value, quoted);
    return quoted;
  }

  /** `"a", "b", "c" and 7 more`: up to `max` values, as many as the budget allows. */
  list(values: readonly string[], max: number): string {
    const shown: string[] = [];
    for (const v of values.slice(0, max)) {
      const quoted = this.quote(v);
      if (quoted === undefined) break;
      shown.push(quoted);
    }
    if (shown.length === 0) return `${values.length} headers`;
    return `${shown.join(', ')}${andMore(values.length - shown.length)}`;
  }
}
