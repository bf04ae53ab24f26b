import { contentHashOfBytes } from './content-hash.ts';
import { TextArena, type TextRef } from './text-arena.ts';

/** One record to create, as the mapping plans it: an estimate (one per project) or a bill. */
export interface MappedRecord<P = unknown> {
  /** Ledger key (README, Reports, re-runs and `unknown`): `estimate:project:<id>`; `bill:ref:<ref>|<project>|<vendor>`; `bill:row:<hash>#<n>`. */
  key: string;
  /** How the report names it: `project 1042 / Kitchen remodel`, `bill INV-7 / project 1042 / vendor 55`. */
  label: string;
  /** Input lines it was made from, ascending. */
  lines: number[];
  /** Hash of the payload, to tell a changed record from the same one on a re-run. */
  contentHash: string;
  /** The payload object. Planned estimates build it from `payloadJson` on each read: read it once and keep it when it is needed twice. */
  payload: P;
  /**
   * The payload's canonical JSON (the text `contentHash` hashes), when the planner keeps the
   * payload as text (estimates do, see `JsonRecord`: a big plan's memory is mostly its payloads).
   * Prefer it wherever text is wanted (printing, sending).
   */
  payloadJson?: string;
  /**
   * Notes for the report's message of some of its lines, as [line, note] pairs: a row whose key
   * cell (bill_ref, estimate, category or subcategory name) is spelled otherwise than the
   * spelling sent says which one is (record-key.ts).
   */
  notes?: ReadonlyArray<readonly [number, string]>;
}

/**
 * A record that keeps its payload as the canonical JSON text that was hashed, stored in a
 * `TextArena`, and builds the string and the object only when asked. Why: a 100,000-estimate
 * plan held as object graphs was most of the planner's memory and of the garbage collector's
 * work, while the text is needed anyway (to hash it, and to send it). `payload` parses the text
 * on every read: callers that need it once per record (the queue submission, a test) pay once,
 * and nothing holds the object afterwards.
 */
export class JsonRecord<P> implements MappedRecord<P> {
  private hash: string | undefined = undefined;

  constructor(
    readonly key: string,
    readonly label: string,
    readonly lines: number[],
    private readonly json: TextRef,
    readonly notes?: ReadonlyArray<readonly [number, string]>,
  ) {}

  /**
   * Hashed from the arena's UTF-8 bytes (hashing the string would encode it a second time) when
   * first asked: a dry run never asks, an import once per record.
   */
  get contentHash(): string {
    return (this.hash ??= contentHashOfBytes(TextArena.bytes(this.json)));
  }

  get payloadJson(): string {
    return TextArena.read(this.json);
  }

  get payload(): P {
    return JSON.parse(this.payloadJson) as P;
  }
}
