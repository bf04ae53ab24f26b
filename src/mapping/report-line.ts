import { wordedLine, type Worded, type Wording } from '../errors/index.ts';

/**
 * The report's vocabulary that planning already speaks: a row's status and a line decided while
 * planning (an invalid row, an ignored one), with no request behind it. Declared here, below the import layer,
 * because the mapping rules produce these lines.
 */
/**
 * A report line's status (README, Reports, re-runs and `unknown`); `pending` only while the import still runs; `ignored`
 * a row that is no part of any record (§3a: a title, a footer, ...), never a row to fix.
 */
export type RowStatus = 'created' | 'exists' | 'invalid' | 'failed' | 'skipped' | 'unknown' | 'pending' | 'ignored';

/** Why a row is `ignored` (docs/reading-rules.md reason codes), in the order summaries name them. */
export const IGNORED_REASONS = ['title', 'footer', 'header', 'total', 'heading', 'tax', 'hidden', 'kind', 'credit'] as const;
export type IgnoredReason = (typeof IGNORED_REASONS)[number];

/** Rows reported `ignored`, by reason: only the reasons that occur, in `IGNORED_REASONS` order (`{}` for none). */
export type IgnoredCounts = Partial<Record<IgnoredReason, number>>;

/** A report line decided while planning (invalid rows, ignored rows), with no request behind it. */
export interface StaticLine {
  line: number;
  record: string;
  status: RowStatus;
  id?: number;
  /** What the report says of the row: the CLI's words (the report and the ledger keep only these). */
  message: string;
  /**
   * The message as parts, when it holds advice (`errors/wording.ts`): the import page shows it in
   * its own words (`messageFor(line, 'page')`). Never stored: `message` is the line's record.
   */
  wording?: Wording;
  /** With status `ignored`: why. */
  reason?: IgnoredReason;
  /**
   * With status `invalid`: the header of the cell the row's (first) error is about, as the error
   * itself names it (`RowError.column`); absent when it names no cell.
   */
  column?: string;
  /**
   * With status `invalid` and several errors on the row: each error with the header of its cell,
   * so that the import page shows each beside its own cell. Never stored: `message` says them all.
   */
  cells?: readonly CellProblem[];
}

/** One error of an invalid row: the header of its cell (absent when it names none) and what it says. */
export interface CellProblem {
  column?: string;
  message: string;
  wording?: Wording;
}

/** Lines of the file that are not part of the table (`OpenedTable.titles`, `footers`) as `ignored` report lines. */
export function ignoredLines(lines: ReadonlyArray<{ line: number; reason: IgnoredReason; message: string; wording?: Wording }>): StaticLine[] {
  return lines.map(({ line, reason, message, wording }) => ({ line, record: '', status: 'ignored', reason, message, ...(wording === undefined ? {} : { wording }) }));
}

/** A report line decided while planning, its message worded for each front end (`wordedLine`). */
export function staticLine(line: number, record: string, status: RowStatus, message: Worded, reason?: IgnoredReason): StaticLine {
  return { line, record, status, ...(reason === undefined ? {} : { reason }), ...wordedLine(message) };
}

/**
 * What a plan's report lines count, batch by batch: rows `invalid`, and rows `ignored` by reason.
 * One tally for every path that hands a plan on (the streamed plan, the queued submission, a dry run).
 */
export class StaticTally {
  invalid = 0;
  readonly #ignored = new Map<IgnoredReason, number>();

  add(statics: Iterable<StaticLine>): this {
    for (const st of statics) {
      if (st.status === 'invalid') this.invalid++;
      else if (st.status === 'ignored' && st.reason !== undefined) this.#ignored.set(st.reason, (this.#ignored.get(st.reason) ?? 0) + 1);
    }
    return this;
  }

  get ignored(): IgnoredCounts {
    const out: IgnoredCounts = {};
    for (const reason of IGNORED_REASONS) {
      const n = this.#ignored.get(reason);
      if (n !== undefined) out[reason] = n;
    }
    return out;
  }
}
