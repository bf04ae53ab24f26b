/**
 * What `buildsync_projects` holds, in 17 bytes per row: IDs ascending in a Float64Array (found by
 * binary search), each row's `row_hash` (48 bits, -1 for none) and flags beside them. A Map of
 * 200,000 entries would hold ~80 bytes each, 16 MB more in an export that streams in ~150 MB.
 *
 * The export reads it once, at the start of its transaction, and compares every listed project
 * with it: an unchanged project never travels to the database again.
 */
export class TableRows {
  /** Set for a row marked removed (`removed_at` not null). */
  static readonly REMOVED = 1;
  /** Set once the listing showed the row's ID. */
  static readonly SEEN = 2;

  private ids: Float64Array;
  private hashes: Float64Array;
  private flags: Uint8Array;
  private n = 0;
  /** Where the last `find` landed: listings come in ID order, so the next ID is usually the next row. */
  private hint = 0;

  constructor(capacity = 1024) {
    this.ids = new Float64Array(capacity);
    this.hashes = new Float64Array(capacity);
    this.flags = new Uint8Array(capacity);
  }

  get size(): number {
    return this.n;
  }

  /** Appends a row; rows come in ascending ID order (`ORDER BY id`). */
  push(id: number, hash: number, removed: boolean): void {
    if (this.n === this.ids.length) this.grow();
    if (this.n > 0 && id <= this.ids[this.n - 1]!) {
      throw new Error(`buildsync_projects rows out of ID order at ${id}`);
    }
    this.ids[this.n] = id;
    this.hashes[this.n] = hash;
    this.flags[this.n] = removed ? TableRows.REMOVED : 0;
    this.n++;
  }

  /** The index of `id`, or -1. */
  find(id: number): number {
    const ids = this.ids;
    const h = this.hint;
    if (h < this.n && ids[h] === id) return this.found(h);
    let lo = 0;
    let hi = this.n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = ids[mid]!;
      if (v === id) return this.found(mid);
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  hashAt(i: number): number {
    return this.hashes[i]!;
  }

  isRemoved(i: number): boolean {
    return (this.flags[i]! & TableRows.REMOVED) !== 0;
  }

  markSeen(i: number): void {
    this.flags[i]! |= TableRows.SEEN;
  }

  /** IDs of rows the listing did not show and that are not marked removed yet. */
  unseenListed(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.n; i++) if (this.flags[i] === 0) out.push(this.ids[i]!);
    return out;
  }

  /** IDs of rows marked removed that the listing showed again. */
  relisted(): number[] {
    const out: number[] = [];
    const both = TableRows.REMOVED | TableRows.SEEN;
    for (let i = 0; i < this.n; i++) if (this.flags[i] === both) out.push(this.ids[i]!);
    return out;
  }

  private found(i: number): number {
    this.hint = i + 1;
    return i;
  }

  private grow(): void {
    const capacity = Math.max(1024, this.ids.length * 2);
    const ids = new Float64Array(capacity);
    ids.set(this.ids);
    const hashes = new Float64Array(capacity);
    hashes.set(this.hashes);
    const flags = new Uint8Array(capacity);
    flags.set(this.flags);
    this.ids = ids;
    this.hashes = hashes;
    this.flags = flags;
  }
}

/**
 * Reads the COPY text output of `SELECT id, row_hash, removed_at IS NOT NULL … ORDER BY id` into
 * `rows`, chunk by chunk (a line may span chunks): `123\t456\tf\n`, `\N` for a null hash.
 */
export class TableRowsParser {
  private field = 0;
  private value = 0;
  private negative = false;
  private isNull = false;
  private id = 0;
  private hash = 0;
  private removed = false;

  constructor(private readonly rows: TableRows) {}

  push(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (c >= 0x30 && c <= 0x39) {
        this.value = this.value * 10 + (c - 0x30);
      } else if (c === 0x09 || c === 0x0a) {
        this.endField();
        if (c === 0x0a) {
          this.rows.push(this.id, this.hash, this.removed);
          this.field = 0;
        } else {
          this.field++;
        }
      } else if (c === 0x2d) {
        this.negative = true;
      } else if (c === 0x4e) {
        this.isNull = true; // the N of \N
      } else if (c === 0x74) {
        this.value = 1; // t
      } else if (c !== 0x5c && c !== 0x66) {
        throw new Error(`unexpected byte ${c} in the rows of buildsync_projects`);
      }
    }
  }

  /** Throws when the output ended in the middle of a line. */
  end(): void {
    if (this.field !== 0 || this.value !== 0 || this.isNull) throw new Error('the rows of buildsync_projects ended mid-line');
  }

  private endField(): void {
    const v = this.negative ? -this.value : this.value;
    if (this.field === 0) this.id = v;
    else if (this.field === 1) this.hash = this.isNull ? -1 : v;
    else this.removed = v === 1;
    this.value = 0;
    this.negative = false;
    this.isNull = false;
  }
}
