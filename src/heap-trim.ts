import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection whenever the heap has grown `HEAP_SLACK_BYTES` past what the last one
 * left, while a big file is streamed into a plan (plan-import.ts `streamBills`).
 *
 * Why: planning allocates fast (two passes over every cell, a payload and its JSON per record)
 * while keeping little (the open bills, a map of bill_ref → last line; the shared strings of an
 * .xlsx): 30-90 MB live. Row objects that survive two scavenges (a batch still in flight to
 * Redis) are promoted, and V8 sizes the old generation by how cheap its last collections were:
 * between two mark-compacts the heap grew to about 190 MB, mostly garbage, which made most of a
 * 100,000-bill import's peak RSS (measured with --trace-gc, bench/plan.ts). Collecting when the
 * heap has grown by a fixed slack keeps the peak near the live size, at the cost of one full
 * collection (10-40 ms) per slack's worth of promoted garbage.
 *
 * `gc` is exposed the documented way (`--expose-gc`), set at run time: V8 then gives new contexts
 * a `gc` function; nothing else in the process changes.
 */
export class HeapTrim {
  #limit = 0;
  #gc: (() => void) | undefined;

  /** @param slackBytes growth allowed between two collections. @defaultValue 48 MB */
  constructor(private readonly slackBytes = HEAP_SLACK_BYTES) {}

  /** Call between batches: collects when the heap has grown past the limit. */
  check(): void {
    const used = getHeapStatistics().used_heap_size;
    if (this.#limit === 0) {
      this.#limit = used + this.slackBytes;
      return;
    }
    if (used < this.#limit) return;
    this.collect();
  }

  /** Collects now (once a phase that left much garbage is over) and counts the slack from what is left. */
  collect(): void {
    (this.#gc ??= exposedGc())();
    this.#limit = getHeapStatistics().used_heap_size + this.slackBytes;
  }
}

const HEAP_SLACK_BYTES = 48 * 1024 * 1024;

function exposedGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
