/**
 * The report's vocabulary that planning already speaks: a row's status and a line decided while
 * planning (an invalid row, an ignored one), with no request behind it. Declared here, below the import layer,
 * because the mapping rules produce these lines.
 */
/**
 * A report line's status (CONTRACT.md §5); `pending` only while the import still runs; `ignored`
 * a row that is no part of any record (§3a: a title, a footer, ...), never a row to fix.
 */
export type RowStatus = 'created' | 'exists' | 'invalid' | 'failed' | 'skipped' | 'unknown' | 'pending' | 'ignored';

/** Why a row is `ignored` (CONTRACT.md §3a's reason codes). */
export type IgnoredReason = 'title' | 'footer' | 'total' | 'heading' | 'hidden' | 'kind' | 'credit';

/** A report line decided while planning (invalid rows, ignored rows), with no request behind it. */
export interface StaticLine {
  line: number;
  record: string;
  status: RowStatus;
  id?: number;
  message: string;
  /** With status `ignored`: why. */
  reason?: IgnoredReason;
}

/** Lines of the file that are not part of the table (`OpenedTable.titles`, `footers`) as `ignored` report lines. */
export function ignoredLines(lines: ReadonlyArray<{ line: number; reason: IgnoredReason; message: string }>): StaticLine[] {
  return lines.map(({ line, reason, message }) => ({ line, record: '', status: 'ignored', reason, message }));
}
