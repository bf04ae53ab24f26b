/**
 * The inline budget waits one worker process allows across all its accounts at once.
 *
 * A job waiting inline for its account's budget holds one of the worker's job slots. Each
 * account's throttle caps its own inline waits (`maxInlineWaiters: 'auto'`), but with many
 * accounts those small caps add up: twenty accounts of one wait each fill a worker of sixteen
 * slots with waits of up to a window, and while they sleep the worker fetches nothing, so the
 * accounts whose jobs sit further down the queue send nothing at all (the many-accounts bench
 * saw accounts start 1.4 s late this way). With a pool smaller than the slots, a job that finds
 * it full is sent away at once (delayed), the worker keeps fetching, and BullMQ promotes the
 * delayed jobs on time because a worker with free slots is waiting on the queue's marker.
 */
export class InlineWaitPool {
  /** How many inline waits the process allows at once. */
  readonly size: number;
  private used = 0;

  constructor(size: number) {
    if (!(Number.isInteger(size) && size >= 1)) throw new RangeError(`an inline wait pool needs a size of at least 1, got ${size}`);
    this.size = size;
  }

  /** Takes a place if one is free; the caller gives it back with `release`. */
  tryTake(): boolean {
    if (this.used >= this.size) return false;
    this.used++;
    return true;
  }

  release(): void {
    if (this.used > 0) this.used--;
  }

  /** Places taken now. */
  get inUse(): number {
    return this.used;
  }
}
