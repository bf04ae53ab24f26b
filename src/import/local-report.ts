import { withLineNote } from '../mapping/record-key.ts';
import type { StaticLine } from '../mapping/report-line.ts';
import type { ImportStore, PlannedRecordRef, RecordOutcome, ReportLine } from './import-store.ts';

/**
 * The report of an import, kept by the command that submitted and follows it, beside the one in
 * Redis: what the plan said of each record and row (as it was submitted: keys, labels, lines,
 * never payloads) and each outcome as it settled (the import's outcome log, read as it grows). If
 * Redis loses its data mid-import (docs/operators.md, "Durability"), the report is still written
 * from here, so that the records already created are named with their IDs and the next run can
 * ask about them instead of creating them again.
 */
export class LocalReport {
  readonly #records: PlannedRecordRef[] = [];
  readonly #statics: StaticLine[] = [];
  readonly #outcomes = new Map<string, RecordOutcome>();
  #read = 0;

  /** What the submission planned (`ImportSubmission`'s `onPlanned`). */
  planned(records: readonly PlannedRecordRef[], statics: readonly StaticLine[]): void {
    for (const r of records) this.#records.push({ key: r.key, label: r.label, lines: r.lines, ...(r.notes ? { notes: r.notes } : {}) });
    for (const s of statics) this.#statics.push({ line: s.line, record: s.record, status: s.status, id: s.id, message: s.message });
  }

  /** Outcomes kept so far. */
  get settled(): number {
    return this.#outcomes.size;
  }

  /** Reads the outcomes settled since the last call; how many were new. The first outcome of a record wins, as in the store. */
  async catchUp(store: ImportStore, importId: string): Promise<number> {
    let added = 0;
    for (;;) {
      const { entries, length } = await store.outcomeLog(importId, this.#read);
      // A log shorter than what was read is a new one (Redis lost the old): read it from its start.
      if (length < this.#read) {
        this.#read = 0;
        continue;
      }
      for (const [key, outcome] of entries) {
        if (this.#outcomes.has(key)) continue;
        this.#outcomes.set(key, outcome);
        added++;
      }
      this.#read += entries.length;
      if (entries.length === 0 || this.#read >= length) return added;
    }
  }

  /** The log to be read again from its start (Redis lost it and a new one begins). */
  restart(): void {
    this.#read = 0;
  }

  /** Records with an outcome `created`. */
  created(): number {
    let n = 0;
    for (const o of this.#outcomes.values()) if (o.status === 'created') n++;
    return n;
  }

  /** The report, one line per input row, in line order; a record without an outcome gets `unsettled`. */
  lines(unsettled: RecordOutcome): ReportLine[] {
    const out: ReportLine[] = [];
    for (const r of this.#records) {
      const o = this.#outcomes.get(r.key) ?? unsettled;
      for (const line of r.lines) out.push({ line, record: r.label, status: o.status, id: o.id ?? '', message: withLineNote(o.message, r.notes, line) });
    }
    for (const s of this.#statics) out.push({ line: s.line, record: s.record, status: s.status, id: s.id ?? '', message: s.message });
    return out.sort((a, b) => a.line - b.line);
  }
}
