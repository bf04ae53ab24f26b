/** The rows a checked plan found to be no part of any record, for the import page's check result. */
import { messageFor } from '../errors/index.ts';
import { ignoredLine, type ImportPlan } from '../import/index.ts';
import { StaticTally } from '../mapping/index.ts';
import { SHOWN_ROWS } from './columns.ts';

/**
 * The `ignored` rows of `plan` (a title, a footer, ...) with their reasons, counted by reason and
 * said as the CLI's summary says it; the first `SHOWN_ROWS` listed, each message in the page's
 * words (`messageFor`). Not sent, and not rows to fix.
 */
export function ignoredRows(plan: ImportPlan) {
  const counts = new StaticTally().add(plan.statics).ignored;
  // In the file's order (the row rules report headings and totals when each is settled, not in line order).
  const lines = plan.statics.filter((s) => s.status === 'ignored').sort((a, b) => a.line - b.line);
  return {
    text: ignoredLine(counts) ?? '',
    counts,
    count: lines.length,
    lines: lines.slice(0, SHOWN_ROWS).map((s) => ({ line: s.line, reason: s.reason ?? null, message: messageFor(s, 'page') })),
  };
}
