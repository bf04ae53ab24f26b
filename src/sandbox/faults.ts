/**
 * Injected faults. Each eligible request draws once before storing and, if it stored a record,
 * once after; the draws come from one seeded generator so a run can be replayed.
 */
import type { NormalizedFaults } from './options.ts';
import { createRng, type Rng } from './random.ts';

export type BeforeStoreFault = 'fail' | 'drop' | undefined;
export type AfterStoreFault = 'fail' | 'drop' | undefined;

export class FaultInjector {
  private rng: Rng;
  constructor(private faults: NormalizedFaults) {
    this.rng = createRng(faults.seed ?? 1);
  }

  /** Replaces the probabilities; a given seed restarts the draws, otherwise they continue. */
  set(faults: NormalizedFaults): void {
    this.faults = faults;
    if (faults.seed !== undefined) this.rng = createRng(faults.seed);
  }

  beforeStore(isCreate: boolean): BeforeStoreFault {
    const f = this.faults;
    if (!isCreate && !f.onGets) return undefined;
    if (f.failBeforeStore === 0 && f.dropBeforeStore === 0) return undefined;
    const u = this.rng.next();
    if (u < f.failBeforeStore) return 'fail';
    if (u < f.failBeforeStore + f.dropBeforeStore) return 'drop';
    return undefined;
  }

  /** After how many records a listing's connection is destroyed, if at all. */
  listingCut(): number | undefined {
    return this.faults.cutListingsAfter;
  }

  afterStore(): AfterStoreFault {
    const f = this.faults;
    if (f.failAfterStore === 0 && f.dropAfterStore === 0) return undefined;
    const u = this.rng.next();
    if (u < f.failAfterStore) return 'fail';
    if (u < f.failAfterStore + f.dropAfterStore) return 'drop';
    return undefined;
  }
}
