/**
 * A request the service refuses, with the status and `Message` the sandbox answers. Internal to
 * the sandbox: it is the server's side of what the client sees as an HttpError.
 */
export class RuleViolation extends Error {
  constructor(readonly status: 400 | 404 | 415, message: string) {
    super(message);
    this.name = 'RuleViolation';
  }
}

export const bad = (message: string): RuleViolation => new RuleViolation(400, message);
