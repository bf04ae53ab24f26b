import type { Redis } from 'ioredis';

/**
 * What this tool knows about each record it ever tried to create, per account, in Redis:
 * the guard behind "nothing is sent twice" (CONTRACT.md §5).
 *
 * An entry is written as `sending` just before the request and settled after it:
 * - `created` with the service's ID: a later run reports the record `skipped`;
 * - `unknown` when the request may have reached the service (the connection died after the
 *   request was written, a worker was killed mid-request, or the service answered 5xx to a
 *   create it may have stored);
 * - removed when the service certainly stored nothing (4xx, 429, a refused connection), so that a
 *   later run, or the next attempt, sends it again.
 * A `sending` entry found by a later attempt means that attempt's predecessor died mid-request:
 * it becomes `unknown`. Whether an unknown record may be sent again is the caller's rule: yes for
 * an estimate (the service refuses a second one per project, so an `exists` answer settles it),
 * never automatically for a bill (the service would store it twice).
 */
export type LedgerState = 'sending' | 'created' | 'unknown';

export interface LedgerEntry {
  state: LedgerState;
  /** The service's ID, once created. */
  id?: number;
  /** Hash of the payload that was sent, to tell a changed record from the same one. */
  contentHash: string;
  importId: string;
  /** Why the entry is unknown. */
  reason?: string;
  at: number;
}

export type BeginResult =
  /** No earlier attempt: the entry is now `sending`; send it. */
  | { action: 'send' }
  /** An earlier attempt may have reached the service, and the caller allowed a resend: the entry is `sending` again. */
  | { action: 'resend'; previous: LedgerEntry }
  /** Created before, by this tool, for this account. */
  | { action: 'skip'; previous: LedgerEntry }
  /** An earlier attempt may have reached the service and no resend is allowed: report `unknown`. */
  | { action: 'unknown'; previous: LedgerEntry };

// One round trip, atomic: two workers racing on one key cannot both get 'send'.
const BEGIN_LUA = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return {'send', ''}
end
local e = cjson.decode(cur)
if e.state == 'created' then return {'skip', cur} end
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return {'resend', cur}
end
if e.state == 'sending' then
  e.state = 'unknown'
  e.reason = ARGV[4]
  cur = cjson.encode(e)
  redis.call('HSET', KEYS[1], ARGV[1], cur)
end
return {'unknown', cur}
`;

type LedgerRedis = Redis & {
  bsLedgerBegin(key: string, recordKey: string, entry: string, allowResend: string, reason: string): Promise<[string, string]>;
};

export class Ledger {
  readonly #redis: LedgerRedis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    // EVALSHA through ioredis's defineCommand: the script travels once per connection, not per record.
    if (!('bsLedgerBegin' in redis)) redis.defineCommand('bsLedgerBegin', { numberOfKeys: 1, lua: BEGIN_LUA });
    this.#redis = redis as LedgerRedis;
    this.#prefix = prefix;
  }

  key(account: string): string {
    return `${this.#prefix}:ledger:${account}`;
  }

  /**
   * Claims `recordKey` for sending. `allowResend` lets an `unknown` (or orphaned `sending`)
   * record be sent again: true for estimates, and for bills only with --resend-unknown.
   */
  async begin(
    account: string,
    recordKey: string,
    opts: { contentHash: string; importId: string; allowResend: boolean },
  ): Promise<BeginResult> {
    const entry: LedgerEntry = { state: 'sending', contentHash: opts.contentHash, importId: opts.importId, at: Date.now() };
    const [action, prev] = (await this.#redis.bsLedgerBegin(
      this.key(account),
      recordKey,
      JSON.stringify(entry),
      opts.allowResend ? '1' : '0',
      'an earlier attempt was interrupted while its request was in flight',
    )) as [BeginResult['action'], string];
    if (action === 'send') return { action };
    return { action, previous: JSON.parse(prev) as LedgerEntry };
  }

  async created(account: string, recordKey: string, id: number, contentHash: string, importId: string): Promise<void> {
    const entry: LedgerEntry = { state: 'created', id, contentHash, importId, at: Date.now() };
    await this.#redis.hset(this.key(account), recordKey, JSON.stringify(entry));
  }

  async unknown(account: string, recordKey: string, reason: string, contentHash: string, importId: string): Promise<void> {
    const entry: LedgerEntry = { state: 'unknown', contentHash, importId, reason, at: Date.now() };
    await this.#redis.hset(this.key(account), recordKey, JSON.stringify(entry));
  }

  /** The service certainly stored nothing: forget the attempt so that it can be sent again. */
  async release(account: string, recordKey: string): Promise<void> {
    await this.#redis.hdel(this.key(account), recordKey);
  }

  async get(account: string, recordKey: string): Promise<LedgerEntry | undefined> {
    const v = await this.#redis.hget(this.key(account), recordKey);
    return v ? (JSON.parse(v) as LedgerEntry) : undefined;
  }

  /** Entries of an account, for `jobs show` and tests. */
  async *entries(account: string): AsyncIterable<[string, LedgerEntry]> {
    const stream = this.#redis.hscanStream(this.key(account), { count: 1000 });
    for await (const batch of stream as AsyncIterable<string[]>) {
      for (let i = 0; i < batch.length; i += 2) yield [batch[i]!, JSON.parse(batch[i + 1]!) as LedgerEntry];
    }
  }
}
