import { TextArena, type TextRef } from './text-arena.ts';

/**
 * One record the mapping layer would send. The same shape as the engine's `PlannedRecord`
 * (src/import/plan-types.ts), declared here so that mapping does not depend on the engine.
 */
export interface MappedRecord<P> {
  key: string;
  label: string;
  lines: number[];
  contentHash: string;
  payload: P;
  /** The payload's canonical JSON, when the record keeps it as text (see `JsonRecord`). */
  payloadJson?: string;
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
  constructor(
    readonly key: string,
    readonly label: string,
    readonly lines: number[],
    readonly contentHash: string,
    private readonly json: TextRef,
  ) {}

  get payloadJson(): string {
    return TextArena.read(this.json);
  }

  get payload(): P {
    return JSON.parse(this.payloadJson) as P;
  }
}
