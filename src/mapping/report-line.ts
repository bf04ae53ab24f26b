/**
 * The report's vocabulary that planning already speaks: a row's status and a line decided while
 * planning (an invalid row), with no request behind it. Declared here, below the import layer,
 * because the mapping rules produce these lines.
 */
/** A report line's status (CONTRACT.md §5); `pending` only while the import still runs. */
export type RowStatus = 'created' | 'exists' | 'invalid' | 'failed' | 'skipped' | 'unknown' | 'pending';

/** A report line decided while planning (invalid rows), with no request behind it. */
export interface StaticLine {
  line: number;
  record: string;
  status: RowStatus;
  id?: number;
  message: string;
}
