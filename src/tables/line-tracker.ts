/**
 * Recovers the physical line on which each CSV record starts.
 *
 * csv-parse's `info.lines` is the line on which the record ENDS, and it counts a CRLF inside a
 * quoted field twice (it looks at CR and LF separately there, while a CRLF between records is one
 * delimiter). So for a record whose end is more than one line after the previous record's end
 * (embedded line breaks, or skipped blank lines) we count the breaks inside its fields, correct
 * the running double count and step back to its first line. Single-line records, the common case,
 * cost one subtraction.
 */
export class LineTracker {
  private previousRawEnd = 0;
  /** CRLFs inside quoted fields seen so far, each of which csv-parse counted twice. */
  private doubleCounted = 0;
  private previousEnd = 0;
  private emptyLinesAtPrevious = 0;

  /** `rawEnd` and `emptyLines` are csv-parse's `info.lines` and `info.empty_lines` when the record was emitted. */
  startLine(rawEnd: number, emptyLines: number, fields: readonly string[]): number {
    this.emptyLinesAtPrevious = emptyLines;
    if (rawEnd - this.previousRawEnd === 1) {
      this.previousRawEnd = rawEnd;
      this.previousEnd = rawEnd - this.doubleCounted;
      return this.previousEnd;
    }
    let crlf = 0;
    let breaks = 0;
    for (let f = 0; f < fields.length; f++) {
      const s = fields[f]!;
      if (s.indexOf('\n') === -1 && s.indexOf('\r') === -1) continue;
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c === 0x0d) {
          breaks++;
          if (s.charCodeAt(i + 1) === 0x0a) {
            crlf++;
            i++;
          }
        } else if (c === 0x0a) breaks++;
      }
    }
    this.doubleCounted += crlf;
    this.previousRawEnd = rawEnd;
    this.previousEnd = rawEnd - this.doubleCounted;
    return this.previousEnd - breaks;
  }

  /** Where the record being parsed began, given csv-parse's `info.empty_lines` now (for errors at end of file). */
  pendingStart(emptyLines: number): number {
    return this.previousEnd + 1 + (emptyLines - this.emptyLinesAtPrevious);
  }
}
