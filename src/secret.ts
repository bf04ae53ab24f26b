import { inspect } from 'node:util';

/**
 * A password or API key. It prints as `***` through every path a value can take out of the
 * process by accident (template strings, JSON.stringify, util.inspect, pino), so only code that
 * calls `reveal()` on purpose (the HTTP client building its headers) ever sees the value.
 */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return '***';
  }
  toJSON(): string {
    return '***';
  }
  [inspect.custom](): string {
    return 'Secret(***)';
  }
}
