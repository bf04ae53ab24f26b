/**
 * Every record's JSON rendered once, at start-up, for benchmarks (`SandboxOptions.prerender`).
 *
 * Why: the real service runs on its own machines; the sandbox runs on the benchmark's. Generating
 * and serializing 200,000 records costs it ~2.7 s of CPU time per listing, nearly a core of a
 * 2-core machine for the whole export, taken from the pipeline the benchmark measures. Served
 * from here, a listing costs the sandbox little more than its socket writes: records rendered
 * one after the other sit side by side in large slabs, each followed by its comma, so a run of
 * consecutive records is sent as one view of a slab, with no copy (each record is stored with the comma that precedes it in a
 * listing; the first record of a listing is sent without).
 *
 * The bytes are the ones `JSON.stringify(generateProject(entry, seed))` gives; a record edited
 * after start-up (its `overrides` replaced) or added is rendered on demand, as without prerender.
 * Memory: the records' JSON, ~2.3 KB each (~460 MB for 200,000 projects).
 */
import type { ProjectEntry } from './dataset.ts';
import { generateProject } from './project-record.ts';

/** Slabs are allocated this large (a record larger than that gets a slab of its own size). */
const SLAB_BYTES = 64 * 1024 * 1024;
/** A run of consecutive records is sent in pieces of at most this many bytes (backpressure). */
const PIECE_BYTES = 1024 * 1024;
const COMMA = 0x2c;

interface Rendered {
  slab: number;
  /** `[start, end)`: a comma and the JSON. */
  start: number;
  end: number;
  /** The `overrides` it was rendered with: another object means the record was edited since. */
  overrides: ProjectEntry['overrides'];
}

export class RenderedRecords {
  private readonly slabs: Buffer[] = [];
  private readonly rendered = new Map<ProjectEntry, Rendered>();
  private used = 0;

  constructor(
    entries: Iterable<ProjectEntry>,
    private readonly seed: number,
  ) {
    for (const e of entries) if (!e.deleted) this.render(e);
  }

  private render(e: ProjectEntry): void {
    const json = JSON.stringify(generateProject(e, this.seed));
    // The comma, and UTF-8 needs at most 3 bytes per UTF-16 unit.
    const most = 1 + 3 * json.length;
    let slab = this.slabs[this.slabs.length - 1];
    if (!slab || this.used + most > slab.length) {
      slab = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, most));
      this.slabs.push(slab);
      this.used = 0;
    }
    const start = this.used;
    slab[start] = COMMA;
    const end = start + 1 + slab.write(json, start + 1, 'utf8');
    this.used = end;
    this.rendered.set(e, { slab: this.slabs.length - 1, start, end, overrides: e.overrides });
  }

  /**
   * The JSON array of `list[from, to)` as pieces of bytes: views of the slabs where records lie
   * side by side, a fresh buffer for a record edited or added since start-up. With `cutAfter`,
   * throws once that many records were given (the listing-cut fault).
   */
  *arrayPieces(list: readonly ProjectEntry[], from: number, to: number, cutAfter?: number): Generator<Buffer> {
    yield Buffer.from('[');
    let slab = -1;
    let runStart = 0;
    let runEnd = 0;
    for (let i = from; i < to; i++) {
      if (i - from === cutAfter) {
        if (runEnd > runStart) yield this.slabs[slab]!.subarray(runStart, runEnd);
        throw new Error('listing cut (sandbox fault cutListingsAfter)');
      }
      const e = list[i]!;
      const r = this.rendered.get(e);
      const first = i === from;
      if (!r || r.overrides !== e.overrides) {
        if (runEnd > runStart) yield this.slabs[slab]!.subarray(runStart, runEnd);
        slab = -1;
        runStart = runEnd = 0;
        yield Buffer.from((first ? '' : ',') + JSON.stringify(generateProject(e, this.seed)));
        continue;
      }
      if (r.slab !== slab || r.start !== runEnd || runEnd - runStart >= PIECE_BYTES) {
        if (runEnd > runStart) yield this.slabs[slab]!.subarray(runStart, runEnd);
        slab = r.slab;
        // The first record goes without its comma.
        runStart = first ? r.start + 1 : r.start;
      }
      runEnd = r.end;
    }
    if (runEnd > runStart) yield this.slabs[slab]!.subarray(runStart, runEnd);
    yield Buffer.from(']');
  }
}
