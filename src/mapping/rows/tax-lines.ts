/**
 * Tax lines of estimates (docs/reading-rules.md "Which rows are records"): a row whose item (else
 * subcategory) is `Tax`, `Sales Tax`, `VAT`, `GST`, `HST` or `PST`, alone or followed by a rate
 * (`Sales Tax (8.25%)`, `VAT 20%`), is the estimate's tax, not an item: sent as an item it would be
 * a cost the markups mark up. The file stops (exit 2, nothing sent), naming it and saying to map
 * it as a markup row or to pass `--ignore-tax` (mapping key `"ignoreTax": true`), with which such
 * rows are `ignored` (`tax`). The label must be the tax word alone: "Tax credit study" is an item.
 */
import { FileError } from '../../errors/index.ts';
import type { CellValue, SourceRow } from '../../tables/index.ts';
import type { Col } from '../column-cells.ts';
import type { RowContext, RowReport, RowRule } from './row-rules.ts';

/** The tax word alone, or followed by a rate with `%` (in parentheses or not, `@` allowed). */
const TAX_LABEL = /^(?:sales tax|tax|vat|gst|hst|pst)(?:\s*\(?\s*@?\s*\d+(?:[.,]\d+)?\s*%\s*\)?)?$/i;

/** True when `label` names a tax line (`Sales Tax (8.25%)`), not an item (`Tax credit study`). */
export function isTaxLabel(label: string): boolean {
  return TAX_LABEL.test(label.trim().replace(/\s+/g, ' '));
}

export class TaxLines implements RowRule {
  constructor(
    private readonly file: string,
    private readonly item: Col | undefined,
    private readonly subcategory: Col | undefined,
    /** `--ignore-tax`: tax lines are `ignored` (`tax`); otherwise the first one stops the file. */
    private readonly report: RowReport | undefined,
    private readonly ignore: boolean,
  ) {}

  apply(row: SourceRow, ctx: RowContext): boolean {
    if (ctx.total) return true;
    const label = text(this.item, row) || text(this.subcategory, row);
    if (label === '' || !isTaxLabel(label)) return true;
    if (this.ignore) {
      this.report?.ignored(row.line, 'tax', `tax line ${JSON.stringify(label)}: left out (--ignore-tax)`);
      return false;
    }
    if (this.report === undefined) return true; // a replay checks nothing
    throw new FileError(this.file, [
      `${this.file}:${row.line}: ${JSON.stringify(label)} is a tax line, not an item: sent as an item it would be a cost of the estimate. `,
      { kind: 'estimate-tax-line' },
      '; nothing was sent.',
    ]);
  }
}

function text(col: Col | undefined, row: SourceRow): string {
  if (col === undefined) return '';
  const v: CellValue = col.index < 0 ? col.constant : (row.values[col.index] ?? null);
  return typeof v === 'string' ? v.trim() : '';
}
