/**
 * Holds many immutable texts (the planned payloads' JSON) as UTF-8 in a few large buffers,
 * outside the JavaScript heap. Why: a 100,000-estimate plan holds about 200 MB of payload text
 * until it is sent; as strings on the heap they made V8 grow the heap to about twice that
 * between collections, while in buffers they cost their bytes and nothing more.
 */
export class TextArena {
  private slab: Buffer = Buffer.alloc(0);
  private used = 0;

  constructor(private readonly slabBytes = 4 * 1024 * 1024) {}

  /** Stores `text`; read it back with `TextArena.read` from the slab and range returned. */
  add(text: string): TextRef {
    // A UTF-16 code unit takes at most 3 UTF-8 bytes: with that much room the write is whole.
    if (this.slab.length - this.used < text.length * 3) {
      this.slab = Buffer.allocUnsafeSlow(Math.max(this.slabBytes, text.length * 3));
      this.used = 0;
    }
    const start = this.used;
    this.used += this.slab.write(text, start, 'utf8');
    return { slab: this.slab, start, end: this.used };
  }

  static read(ref: TextRef): string {
    return ref.slab.toString('utf8', ref.start, ref.end);
  }

  /** The text's UTF-8 bytes, as a view of the slab. */
  static bytes(ref: TextRef): Uint8Array {
    return ref.slab.subarray(ref.start, ref.end);
  }
}

/** Where a text lives in a `TextArena`. */
export interface TextRef {
  slab: Buffer;
  start: number;
  end: number;
}
