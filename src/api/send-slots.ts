/**
 * At most `size` attempts between taking a budget token and getting an answer. The pool holds as
 * many connections; without this, jobs beyond them would take budget tokens and then queue inside
 * the pool, so a 429 could not stop requests already granted but not yet sent.
 */
export class SendSlots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#free = size;
  }

  async take(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  give(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}
