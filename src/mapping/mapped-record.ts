/**
 * One record the mapping layer would send. The same shape as the engine's `PlannedRecord`
 * (src/engine/plan-types.ts), declared here so that mapping does not depend on the engine.
 */
export interface MappedRecord<P> {
  key: string;
  label: string;
  lines: number[];
  contentHash: string;
  payload: P;
}
