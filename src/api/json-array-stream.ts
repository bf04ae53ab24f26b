/**
 * A streaming reader for "a JSON array, or an object wrapping one array" (docs/service.md: the listing
 * envelope is not shown). The v2 listing of 200,000 projects is ~400 MB of JSON: holding it as one
 * string would need well over a gigabyte, so this scanner walks the raw bytes chunk by chunk, finds
 * where each top-level element of the array begins and ends, and `JSON.parse`s only that element.
 *
 * Why bytes and not text: every structural character of JSON (`"` `\` `{` `}` `[` `]` `,`) is ASCII,
 * and no byte of a UTF-8 multi-byte sequence is below 0x80, so scanning bytes can never split or
 * misread a character; decoding happens once per element, on whole elements. Inside strings the
 * scanner jumps from quote to quote with `Buffer.indexOf` (native code) rather than visiting each
 * byte, which is where most of a project record's bytes are (SCOPE_OF_WORK, notes, names).
 *
 * Structure between elements is checked here (commas, brackets, what may follow the array); each
 * element's own syntax is checked by `JSON.parse`. An object element that ends in the chunk it
 * starts in (nearly every project record) is first tried the quicker way: its end guessed with one
 * `indexOf` and confirmed by `JSON.parse` (`parseObjectAt`).
 */
import { ResponseInvalidError } from '../errors/index.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACK = 0x5b;
const RBRACK = 0x5d;

const enum State {
  /** Before the root value. */
  Root,
  /** Inside the root object, looking for the array-valued property at depth 1. */
  Wrapper,
  /** Just after the array's `[`: a value or `]`. */
  ArrayFirst,
  /** After a `,`: a value. */
  ArrayValue,
  /** After an element: `,` or `]`. */
  ArrayNext,
  /** Inside an element. */
  Element,
  /** The root value is complete: only whitespace may follow. */
  After,
}

const enum Kind {
  Container,
  String,
  Scalar,
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Ends a scalar element (number, true, false, null). */
function isScalarEnd(c: number): boolean {
  return c === COMMA || c === RBRACK || c === RBRACE || isSpace(c);
}

export class JsonArrayScanner {
  private state = State.Root;
  private inString = false;
  /** The string continues into the next chunk after an odd run of backslashes. */
  private escapeCarry = false;
  /** Depth inside the wrapper object (the root object itself is 1). */
  private wrapperDepth = 0;
  private wrapped = false;
  private arrayDone = false;
  private kind = Kind.Container;
  /** Nesting inside the current container element. */
  private elemDepth = 0;
  /** Copies of the current element's bytes from earlier chunks. */
  private carry: Buffer[] = [];
  /** Bytes consumed before the current chunk, for error positions. */
  private offset = 0;
  private count = 0;
  private sawBytes = false;

  /** Elements completed so far. */
  get elements(): number {
    return this.count;
  }

  /** Scans one chunk and returns the elements it completed, parsed. */
  push(chunk: Uint8Array): unknown[] {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const out: unknown[] = [];
    const n = buf.length;
    let i = 0;
    let elemStart = 0;

    if (n > 0 && !this.sawBytes) {
      this.sawBytes = true;
      // A UTF-8 byte order mark is not JSON but some servers send one.
      if (n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) i = 3;
    }

    if (this.inString) {
      const end = this.findStringEnd(buf, 0, this.escapeCarry);
      if (end === -1) {
        if (this.state === State.Element) this.carry.push(Buffer.from(buf));
        this.offset += n;
        return out;
      }
      this.inString = false;
      i = end + 1;
      if (this.state === State.Element && this.kind === Kind.String) {
        this.emit(buf, 0, i, out);
        this.state = State.ArrayNext;
      }
    }

    while (i < n) {
      const state = this.state;
      if (state === State.Element) {
        i = this.scanElement(buf, i, elemStart, out);
        continue;
      }

      if (state === State.Wrapper) {
        i = this.scanWrapper(buf, i);
        continue;
      }

      const c = buf[i]!;
      if (isSpace(c)) {
        i++;
        continue;
      }
      switch (state) {
        case State.Root:
          if (c === LBRACK) {
            this.state = State.ArrayFirst;
          } else if (c === LBRACE) {
            this.wrapped = true;
            this.wrapperDepth = 1;
            this.state = State.Wrapper;
          } else {
            throw this.invalid(buf, i, 'expected a JSON array or an object wrapping one');
          }
          i++;
          break;
        case State.ArrayFirst:
        case State.ArrayValue:
          if (c === RBRACK && state === State.ArrayFirst) {
            this.closeArray();
            i++;
          } else if (c === RBRACK || c === COMMA || c === RBRACE) {
            throw this.invalid(buf, i, `expected element ${this.count} of the array`);
          } else {
            const end = c === LBRACE ? this.parseObjectAt(buf, i, out) : -1;
            if (end !== -1) {
              i = end;
              this.state = State.ArrayNext;
            } else {
              elemStart = i;
              i = this.startElement(buf, i, out);
            }
          }
          break;
        case State.ArrayNext:
          if (c === COMMA) this.state = State.ArrayValue;
          else if (c === RBRACK) this.closeArray();
          else throw this.invalid(buf, i, `expected ',' or ']' after element ${this.count - 1}`);
          i++;
          break;
        case State.After:
          throw this.invalid(buf, i, 'unexpected data after the end of the listing');
      }
    }

    if (this.state === State.Element) this.carry.push(Buffer.from(buf.subarray(elemStart)));
    this.offset += n;
    return out;
  }

  /**
   * Scans the current element from `i` (it began at `elemStart` in this chunk, or in an earlier
   * one, 0); once it ends, emits it and moves on to what follows it. Returns where the scan stopped.
   */
  private scanElement(buf: Buffer, i: number, elemStart: number, out: unknown[]): number {
    const n = buf.length;
    if (this.kind === Kind.Container) {
      // The hot loop: most of the body is inside container elements.
      let d = this.elemDepth;
      let closed = false;
      for (; i < n; i++) {
        const c = buf[i]!;
        if (c === QUOTE) {
          const end = this.findStringEnd(buf, i + 1, false);
          if (end === -1) {
            this.inString = true;
            i = n;
            break;
          }
          i = end;
        } else if (c === LBRACE || c === LBRACK) {
          d++;
        } else if (c === RBRACE || c === RBRACK) {
          if (--d === 0) {
            i++;
            closed = true;
            break;
          }
        }
      }
      this.elemDepth = d;
      if (closed) {
        this.emit(buf, elemStart, i, out);
        this.state = State.ArrayNext;
      }
    } else {
      // Scalar: runs until a delimiter, which the next state reads.
      while (i < n && !isScalarEnd(buf[i]!)) i++;
      if (i < n) {
        this.emit(buf, elemStart, i, out);
        this.state = State.ArrayNext;
      }
    }
    return i;
  }

  /** Checks that the document was complete. */
  end(): void {
    if (this.state === State.After && !this.inString) return;
    if (!this.sawBytes || (this.state === State.Root && !this.inString)) {
      throw new ResponseInvalidError('the listing body was empty: expected a JSON array or an object wrapping one');
    }
    throw new ResponseInvalidError(
      `the listing ended after ${this.offset} bytes and ${this.count} elements before the JSON was complete (truncated response?)`,
    );
  }

  /**
   * The fast way through an object element that ends in this chunk: guess its end, parse, and
   * let `JSON.parse` confirm the guess. Returns the index after the element (which is in `out`),
   * or -1 to have the byte scanner below find the end instead.
   *
   * Why: the byte scanner visits every byte outside strings and calls `indexOf` once per string,
   * ~120 times for a project record; that was a tenth of the export's CPU time (issue 15). Here
   * one `indexOf` finds the next `}` followed by `,` `]` or whitespace, and the slice up to it is
   * parsed. If it parses, it is the element: the slice starts at the element's `{` and is one
   * complete JSON object, and JSON text that forms a complete object cannot continue the same
   * object, so the element closes exactly there. If it does not (that `}` was inside a string or
   * a nested object, or the element is not valid JSON), a few more guesses are tried, then the
   * scanner takes over, and reports an invalid element exactly as it always did.
   */
  private parseObjectAt(buf: Buffer, start: number, out: unknown[]): number {
    const n = buf.length;
    let from = start + 1;
    for (let guess = 0; guess < 3; guess++) {
      const close = buf.indexOf(RBRACE, from);
      if (close === -1 || close + 1 >= n) return -1;
      from = close + 1;
      const next = buf[from]!;
      if (next !== COMMA && next !== RBRACK && !isSpace(next)) continue;
      let value: unknown;
      try {
        value = JSON.parse(buf.toString('utf8', start, from));
      } catch {
        continue;
      }
      out.push(value);
      this.count++;
      return from;
    }
    return -1;
  }

  /** Begins an element at `buf[i]`; returns the index to continue from. */
  private startElement(buf: Buffer, i: number, out: unknown[]): number {
    const c = buf[i]!;
    this.state = State.Element;
    if (c === LBRACE || c === LBRACK) {
      this.kind = Kind.Container;
      this.elemDepth = 1;
      return i + 1;
    }
    if (c === QUOTE) {
      this.kind = Kind.String;
      const end = this.findStringEnd(buf, i + 1, false);
      if (end === -1) {
        this.inString = true;
        return buf.length;
      }
      this.emit(buf, i, end + 1, out);
      this.state = State.ArrayNext;
      return end + 1;
    }
    this.kind = Kind.Scalar;
    return i;
  }

  /** Walks the wrapper object until its array at depth 1 opens, or the object closes. */
  private scanWrapper(buf: Buffer, i: number): number {
    const n = buf.length;
    for (; i < n; i++) {
      const c = buf[i]!;
      if (c === QUOTE) {
        const end = this.findStringEnd(buf, i + 1, false);
        if (end === -1) {
          this.inString = true;
          return n;
        }
        i = end;
      } else if (c === LBRACK && this.wrapperDepth === 1) {
        if (this.arrayDone) throw this.invalid(buf, i, 'the wrapper object holds more than one array');
        this.state = State.ArrayFirst;
        return i + 1;
      } else if (c === LBRACE || c === LBRACK) {
        this.wrapperDepth++;
      } else if (c === RBRACE || c === RBRACK) {
        if (--this.wrapperDepth === 0) {
          if (!this.arrayDone) throw this.invalid(buf, i, 'the object wraps no array');
          this.state = State.After;
          return i + 1;
        }
      }
    }
    return n;
  }

  private closeArray(): void {
    if (this.wrapped) {
      this.arrayDone = true;
      this.state = State.Wrapper;
    } else {
      this.state = State.After;
    }
  }

  /**
   * Index of the quote that closes a string whose content starts at `from`, or -1 when the string
   * runs past this chunk (then `escapeCarry` records whether the chunk ended mid-escape).
   * `carried` is that flag from the previous chunk, for a string continuing at index 0.
   */
  private findStringEnd(buf: Buffer, from: number, carried: boolean): number {
    let j = from;
    for (;;) {
      j = buf.indexOf(QUOTE, j);
      const stop = j === -1 ? buf.length : j;
      // A quote is escaped by an odd run of backslashes just before it.
      let k = stop - 1;
      while (k >= from && buf[k] === BACKSLASH) k--;
      let odd = (stop - 1 - k) % 2 === 1;
      if (k < from && from === 0 && carried) odd = !odd;
      if (j === -1) {
        this.escapeCarry = odd;
        return -1;
      }
      if (!odd) return j;
      j++;
    }
  }

  private emit(buf: Buffer, start: number, end: number, out: unknown[]): void {
    let text: string;
    if (this.carry.length > 0) {
      this.carry.push(buf.subarray(start, end));
      text = Buffer.concat(this.carry).toString('utf8');
      this.carry = [];
    } else {
      text = buf.toString('utf8', start, end);
    }
    try {
      out.push(JSON.parse(text));
    } catch (err) {
      throw new ResponseInvalidError(
        `element ${this.count} of the listing is not valid JSON (${(err as Error).message}): ${snippet(text)}`,
        { cause: err },
      );
    }
    this.count++;
  }

  private invalid(buf: Buffer, i: number, what: string): ResponseInvalidError {
    const near = snippet(buf.toString('utf8', i, Math.min(buf.length, i + 40)));
    return new ResponseInvalidError(`the listing is not valid: ${what}, found ${near} at byte ${this.offset + i}`);
  }
}

function snippet(text: string): string {
  const short = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return JSON.stringify(short);
}

/**
 * Parses a byte stream holding a JSON array (or an object wrapping one) and yields its elements in
 * batches: one batch per chunk, so the async overhead is per chunk, not per record.
 */
export async function* parseJsonArrayStream(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<unknown[]> {
  const scanner = new JsonArrayScanner();
  for await (const chunk of source) {
    const batch = scanner.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    if (batch.length > 0) yield batch;
  }
  scanner.end();
}

/** Parses a complete body (a page of the paged listing) with the same rules as the stream. */
export function parseJsonArray(body: Uint8Array): unknown[] {
  const scanner = new JsonArrayScanner();
  const out = scanner.push(body);
  scanner.end();
  return out;
}
