import type { CellValue, IgnoredLine, SourceRow } from './types.ts';

const FOOTER_MESSAGE = 'footer below the last row: not part of the table';

/**
 * The footer of a table (docs/reading-rules.md): after the last record, a wholly blank row followed
 * only by rows with at most one value ("Cash Basis Tuesday, March 3, 2026 10:15 AM"). Whether a
 * row after a blank row is footer is known only later (a row with two values makes it data
 * again), so such rows are held back, not handed out, until that is known. Only rows after a
 * blank row with at most one value are held, so a table without a footer holds none.
 */
export class FooterWatch {
  private held: SourceRow[] = [];
  /** Why each held row could not be read as a data row (CSV: its number of fields), thrown if it turns out not to be footer. */
  private problems: Array<(() => Error) | undefined> = [];
  private afterBlank = false;

  /** `enabled`: the table is read for an import, which knows its required columns (a preview or a vendors file has no footer). */
  constructor(private readonly enabled: boolean) {}

  /** A wholly blank row was met. */
  blank(): void {
    this.afterBlank = this.enabled;
  }

  /**
   * Hands `row` to `out`, after any rows held before it, unless it may be footer. `problem`: the
   * row cannot be a data row (thrown now, or when it turns out not to be footer).
   */
  take(row: SourceRow, out: SourceRow[], problem?: () => Error): void {
    if (this.afterBlank) {
      if (filled(row.values) <= 1) {
        this.held.push(row);
        this.problems.push(problem);
        return;
      }
      this.afterBlank = false;
      this.release(out);
    }
    if (problem !== undefined) throw problem();
    out.push(row);
  }

  /** The end of the table: the rows held are the footer. */
  end(): IgnoredLine[] {
    const lines = this.held.map((r) => ({ line: r.line, reason: 'footer' as const, message: FOOTER_MESSAGE }));
    this.held = [];
    this.problems = [];
    return lines;
  }

  private release(out: SourceRow[]): void {
    for (let i = 0; i < this.held.length; i++) {
      const problem = this.problems[i];
      if (problem !== undefined) throw problem();
      out.push(this.held[i]!);
    }
    this.held = [];
    this.problems = [];
  }
}

function filled(values: readonly CellValue[]): number {
  let n = 0;
  for (const v of values) {
    if (v === null || v === '') continue;
    if (typeof v === 'string' && v.trim() === '') continue;
    n++;
  }
  return n;
}
