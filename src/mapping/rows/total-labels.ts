/**
 * Which labels make a total row (docs/reading-rules.md), and what level a label names: `Total`,
 * `Subtotal`, `Sub-total`, `Grand total` at the start (or their plurals, Procore's `Grand Totals`), `Total for …`, `Invoice total` (case
 * ignored), and the mapping's `"totalLabels"`. The text after the word is the level it names
 * (`Total for QB-3004`: bill QB-3004; `Subtotal Demolition`: category Demolition).
 */
import type { CellValue } from '../../tables/index.ts';

export type TotalLabel = { grand: true; name: undefined } | { grand: false; name: string | undefined };

const TOTAL_WORD = /total/i;
const BUILT_IN = /^(grand[\s_-]*totals?|sub[\s-]?totals?|totals?|invoice\s+totals?)(?![a-z0-9])/i;

/** A key compared as a person reads it: the one rule of every record key (values/key-text.ts). */
import { keyText as readKey } from '../../values/key-text.ts';

export { readKey };

/** A section's number and what follows it (`02 - `), at the start. */
const SECTION_NUMBER = /^\s*\d+(?:\.\d+)*\s*[-–—:.)]?\s*/;

/** `02 - Demolition` → `Demolition`: a section's name without its number. */
export function withoutNumber(text: string): string {
  return text.replace(SECTION_NUMBER, '');
}

export class TotalLabels {
  private readonly extra: string[];

  constructor(extra: readonly string[] = []) {
    this.extra = extra.map(readKey).filter((e) => e !== '');
  }

  /** The label a cell holds, or undefined when it is no total's label. */
  of(cell: CellValue): TotalLabel | undefined {
    if (typeof cell !== 'string' || cell.length === 0) return undefined;
    // Nearly every row is no total: the built-in labels all hold "total", so without labels of the
    // mapping's own a cell without it is decided before any other work.
    if (this.extra.length === 0 && !TOTAL_WORD.test(cell)) return undefined;
    const text = cell.replace(/[\s\u00a0]+/g, ' ').trim();
    let rest: string | undefined;
    let grand = false;
    const m = BUILT_IN.exec(text);
    if (m !== null) {
      grand = /^grand/i.test(m[1]!);
      rest = text.slice(m[0].length);
    } else {
      const lower = text.toLowerCase();
      const hit = this.extra.find((e) => lower.startsWith(e));
      if (hit === undefined) return undefined;
      rest = text.slice(hit.length);
    }
    if (grand) return { grand: true, name: undefined };
    const name = rest.replace(/^\s*(?:for\b)?[\s:–—-]*/i, '').replace(/[\s:]+$/, '');
    return { grand: false, name: name === '' ? undefined : name };
  }
}
