/**
 * Bills in sections (docs/reading-rules.md, "Bills in sections"), as QuickBooks' vendor-grouped
 * reports write them: a vendor's name alone in the first cell of a row, that vendor's
 * transactions under it with their vendor cell empty, and its `Total for …` row. With `--layout
 * sections` (mapping `"layout": "sections"`), a row whose only text is in its first cell is a
 * heading (`ignored`, `heading`): its text, as written, is the vendor of the rows under it whose
 * vendor cell is empty, until the next heading. Its `Total for …` row is a total (totals.ts),
 * recognised before this rule, and closes the vendor's rows. A heading that names the vendor of
 * no row (the rows under it give their own vendor, or none follows) is a row error: a row with one
 * text cell that is no heading is not guessed at.
 */
import type { SourceRow } from '../../tables/index.ts';
import type { Col } from '../column-cells.ts';
import type { RowContext, RowReport, RowRule } from './row-rules.ts';

interface Heading {
  line: number;
  text: string;
  rows: number;
}

export class BillSections implements RowRule {
  private heading: Heading | undefined;

  constructor(
    private readonly file: string,
    /** The vendor column (the file's, or one added after its own). */
    private readonly vendor: Col,
    /** Indexes that are no part of the table's data (an errors file's own columns). */
    private readonly skip: readonly number[],
    private readonly report: RowReport | undefined,
  ) {}

  apply(row: SourceRow, ctx: RowContext): boolean {
    if (ctx.total) return true;
    const text = this.headingText(row);
    if (text !== undefined) {
      ctx.heading = true;
      this.close();
      this.heading = { line: row.line, text, rows: 0 };
      return false;
    }
    const h = this.heading;
    if (h === undefined) return true;
    const at = this.vendor.index;
    const own = row.values[at];
    if (own === null || own === undefined || (typeof own === 'string' && own.trim() === '')) {
      row.values[at] = h.text;
      h.rows++;
    }
    return true;
  }

  end(): void {
    this.close();
  }

  /** The row's first cell when it is the row's only non-empty cell and a text, else undefined. */
  private headingText(row: SourceRow): string | undefined {
    const values = row.values;
    const first = values[0];
    if (typeof first !== 'string' || first.trim() === '') return undefined;
    for (let i = 1; i < values.length; i++) {
      const v = values[i];
      if (v === null || v === undefined || (typeof v === 'string' && v.trim() === '') || this.skip.includes(i)) continue;
      return undefined;
    }
    return first.trim();
  }

  private close(): void {
    const h = this.heading;
    this.heading = undefined;
    if (h === undefined || this.report === undefined) return;
    if (h.rows > 0) this.report.ignored(h.line, 'heading', `section heading: vendor ${JSON.stringify(h.text)} of the rows under it`);
    else this.report.invalid(h.line, '', `${this.file}:${h.line}: ${JSON.stringify(h.text)} stands alone in its row as a vendor heading does, but no row under it leaves its vendor to it; delete the row, or give the rows under it an empty vendor cell`);
  }
}
