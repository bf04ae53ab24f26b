import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RedisUnavailableError } from '../errors/index.ts';
import { ledgerKeyOf, ledgerKeysMarkerOf, ledgerMarkerKeyOf, nodeForKey, type RedisConnection } from '../redis/layout.ts';
import { isNodeLost } from '../redis/failures.ts';
import { migrateRecordKeys } from './key-migration.ts';
import { LEDGER_KEYS_VERSION, ledgerFieldOf } from './record-key.ts';
import CLOCK from './lua/clock.lua';
import CLAIM from './lua/claim.lua';
import HOLD from './lua/hold.lua';
import RELEASE_LUA from './lua/release.lua';
import SETTLE from './lua/settle.lua';
import MARKER_LUA from './lua/marker.lua';
import ADOPT from './lua/adopt.lua';

/**
 * What this tool knows about each record it ever tried to create, per account, in Redis:
 * the guard behind "nothing is sent twice" (README, Reports, re-runs and `unknown`).
 *
 * An entry moves through these states:
 * - `claimed`: one sender (its `owner`: one attempt of one job on one worker) holds the record
 *   while it waits for the account's budget and a send slot. Nothing has left the process. The
 *   claim has a lease that its owner renews while alive; a claim whose lease expired (its
 *   worker died) is simply taken over: the record was never handed to the service.
 * - `sending`: the owner handed the request over (`handOver`, called at the moment the request
 *   goes to the socket, after the budget token and the slot). From here the service may have it.
 *   A `sending` entry whose lease expired means its worker died mid-request: it becomes `unknown`.
 * - `created` with the service's ID: a later run reports the record `skipped`;
 * - `unknown`: the request may have reached the service (the connection died after sending, the
 *   worker died mid-request, the service answered 5xx to a create it may have stored);
 * - removed (`release`) when the service certainly stored nothing (4xx, 429, a refused
 *   connection, or the request never left), so that a later attempt sends it again.
 *
 * Another live owner's claim is never turned into `unknown`: the caller is told `busy` and
 * waits for it to settle (the same import) or reports the record as being sent by the other
 * import. Whether an unknown record may be sent again is the caller's rule: yes for an estimate
 * (the service refuses a second one per project, so an `exists` answer settles it), never
 * automatically for a bill (the service would store it twice).
 *
 * Times are the Redis server's (`TIME`), so that workers with skewed clocks agree on leases.
 *
 * Record keys are compared as a person reads them (record-key.ts `ledgerFieldOf`): every method
 * takes the record key as the mapping built it and keys the entry by its field of today. A claim
 * runs only on a ledger whose older entries have their field of today (key-migration.ts).
 */
export type LedgerState = 'claimed' | 'sending' | 'created' | 'unknown';

export interface LedgerEntry {
  state: LedgerState;
  /** The service's ID, once created. */
  id?: number;
  /** Hash of the payload that was sent, to tell a changed record from the same one. */
  contentHash: string;
  importId: string;
  /** Who holds a `claimed` or `sending` entry (one attempt of one job). */
  owner?: string;
  /** Until when (ms, Redis time) that holder is known alive; it renews while it is. */
  leaseUntil?: number;
  /** Why the entry is unknown. */
  reason?: string;
  /** `--resend-unknown`: the import that resent this bill last, and until when (ms, Redis time) no other import resends it. */
  resentBy?: string;
  resendUntil?: number;
  at: number;
}

export type BeginResult =
  /** No earlier attempt, or one that never handed its request over: the entry is now claimed by the caller; send it. */
  | { action: 'send'; previous?: LedgerEntry }
  /** An earlier attempt may have reached the service, and the caller allowed a resend: claimed again. */
  | { action: 'resend'; previous: LedgerEntry }
  /** Created before, by this tool, for this account. */
  | { action: 'skip'; previous: LedgerEntry }
  /** Another live owner holds it (claimed or sending, lease not expired): its `leaseUntil` says until when at least. */
  | { action: 'busy'; previous: LedgerEntry }
  /** An earlier attempt may have reached the service and no resend is allowed: report `unknown`. */
  | { action: 'unknown'; previous: LedgerEntry }
  /**
   * The ledger the import started with is gone: its marker is missing (Redis restarted empty, or
   * was flushed) or another (`marker`, '' for none). Nothing was claimed; nothing may be sent.
   */
  | { action: 'lost'; marker: string };

// The scripts are files of lua/ (what each takes and answers in its header), read at build time
// as text; those that stamp an entry start with lua/clock.lua.
const CLAIM_LUA = CLOCK + CLAIM;
const HOLD_LUA = CLOCK + HOLD;
const SETTLE_LUA = CLOCK + SETTLE;
const ADOPT_LUA = CLOCK + ADOPT;

type LedgerRedis = RedisConnection & {
  bsLedgerClaim(key: string, keysMarker: string, marker: string, recordKey: string, owner: string, importId: string, contentHash: string, leaseMs: string, allowResend: string, reason: string, keysVersion: string, expectedMarker: string, resendLeaseMs: string): Promise<[string, string]>;
  bsLedgerHold(key: string, marker: string, recordKey: string, owner: string, leaseMs: string, state: string, expectedMarker: string): Promise<number>;
  bsLedgerMarker(marker: string, fresh: string): Promise<string>;
  bsLedgerAdopt(key: string, ...pairs: string[]): Promise<number>;
  bsLedgerRelease(key: string, recordKey: string, owner: string): Promise<number>;
  bsLedgerSettle(key: string, recordKey: string, entry: string): Promise<number>;
};

export interface LedgerOptions {
  /**
   * Makes the `sending` note durable before the request goes out (docs/operators.md, "Durability"):
   * `WAIT` for a replica, `WAITAOF`, or nothing when AOF fsyncs every write. It gets the
   * connection the note was written on: on a Redis Cluster, the one to the node that owns the
   * account's slot (WAIT and WAITAOF carry no key, and count that connection's writes).
   */
  confirm?: (redis: Redis) => Promise<void>;
  /**
   * How long a claim outlives its owner's last sign of life.
   * @defaultValue 30 s
   */
  leaseMs?: number;
}

/** How long a bill resent with --resend-unknown is not resent by another import (README, Reports). */
export const RESEND_LEASE_MS = 15 * 60_000;

/** The ledger an import started with is gone at hand-over time (`BeginResult` 'lost'): the caller must not send. */
export class MarkerLostError extends Error {
  constructor(readonly recordKey: string) {
    super(`the ledger's marker changed before ${recordKey} was handed over; not sent`);
    this.name = 'MarkerLostError';
  }
}

/** A record claimed by someone else at hand-over time: the caller must not send. */
export class ClaimLostError extends Error {
  constructor(readonly recordKey: string) {
    super(`the claim on ${recordKey} was lost (its lease expired while it waited); not sent`);
    this.name = 'ClaimLostError';
  }
}

export const DEFAULT_LEASE_MS = 30_000;
/** Fields read per round trip by `createdAmong`. */
const LOOKUP_BATCH = 1000;

/** How long a hand-over keeps trying while a cluster master fails over (node timeout plus an election, with room). */
const FAILOVER_RIDE_OUT_MS = 15_000;

/** The connection to a cluster node went away under a command, or no node serves the slot yet (failures.ts). */
function isNodeGone(err: unknown): boolean {
  return err instanceof RedisUnavailableError || isNodeLost(err);
}

export class Ledger {
  readonly #redis: LedgerRedis;
  readonly #prefix: string;
  readonly #confirm: LedgerOptions['confirm'];
  readonly leaseMs: number;
  /** Migrations running in this process, by account: concurrent claims wait for one. */
  readonly #migrating = new Map<string, Promise<number>>();

  constructor(redis: RedisConnection, prefix: string, opts: LedgerOptions = {}) {
    // EVALSHA through ioredis's defineCommand: the script travels once per connection, not per record.
    if (!('bsLedgerClaim' in redis)) {
      redis.defineCommand('bsLedgerClaim', { numberOfKeys: 3, lua: CLAIM_LUA });
      redis.defineCommand('bsLedgerHold', { numberOfKeys: 2, lua: HOLD_LUA });
      redis.defineCommand('bsLedgerMarker', { numberOfKeys: 1, lua: MARKER_LUA });
      redis.defineCommand('bsLedgerAdopt', { numberOfKeys: 1, lua: ADOPT_LUA });
      redis.defineCommand('bsLedgerRelease', { numberOfKeys: 1, lua: RELEASE_LUA });
      redis.defineCommand('bsLedgerSettle', { numberOfKeys: 1, lua: SETTLE_LUA });
    }
    this.#redis = redis as LedgerRedis;
    this.#prefix = prefix;
    this.#confirm = opts.confirm;
    this.leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /** `PREFIX:ledger:ACCOUNT`, or `PREFIX:{ACCOUNT}:ledger` on a cluster (src/redis/layout.ts). */
  key(account: string): string {
    return ledgerKeyOf(this.#redis, this.#prefix, account);
  }

  /** `PREFIX:ledger-keys:ACCOUNT` (src/redis/layout.ts): which way the account's ledger keys records. */
  keysMarker(account: string): string {
    return ledgerKeysMarkerOf(this.#redis, this.#prefix, account);
  }

  /** `PREFIX:ledger-marker:ACCOUNT` (src/redis/layout.ts): the ledger's own marker. */
  markerKey(account: string): string {
    return ledgerMarkerKeyOf(this.#redis, this.#prefix, account);
  }

  /**
   * The ledger's marker (docs/operators.md, "Durability"), written when there is none: a random
   * name that lives as long as the ledger's data in this Redis. An import notes it when submitted
   * and sends only while it is still there: a Redis that restarted empty or was flushed has
   * none, or a new one, and the import stops instead of sending records the ledger forgot.
   */
  async ensureMarker(account: string): Promise<string> {
    const fresh = `${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`;
    return this.#redis.bsLedgerMarker(this.markerKey(account), fresh);
  }

  /** The marker there now, or undefined when there is none. */
  async marker(account: string): Promise<string | undefined> {
    return (await this.#redis.get(this.markerKey(account))) ?? undefined;
  }

  /** Gives the account's entries written the old way their field of today (key-migration.ts); once per process at a time. */
  migrateKeys(account: string): Promise<number> {
    let running = this.#migrating.get(account);
    if (running === undefined) {
      running = migrateRecordKeys(this.#redis, this.key(account), this.keysMarker(account)).finally(() => this.#migrating.delete(account));
      this.#migrating.set(account, running);
    }
    return running;
  }

  /**
   * Claims `recordKey` for `owner`. `allowResend` lets an `unknown` record (or a `sending` one
   * whose owner died) be claimed again: true for estimates, and for bills only with
   * --resend-unknown.
   */
  async claim(
    account: string,
    recordKey: string,
    opts: {
      owner: string;
      contentHash: string;
      importId: string;
      allowResend: boolean;
      /** The ledger's marker when the import was submitted; a claim on a ledger without it is 'lost'. Undefined: not checked. */
      marker?: string;
      /** A bill's resend takes this lease (RESEND_LEASE_MS): another import does not resend it meanwhile. Undefined: no lease (an estimate). */
      resendLeaseMs?: number;
    },
  ): Promise<BeginResult> {
    let action: BeginResult['action'] | 'migrate' = 'migrate';
    let prev = '';
    // A `ledger import` of old entries during the migration makes the claim ask again; a few rounds at most.
    for (let round = 0; action === 'migrate'; round++) {
      if (round > 5) throw new Error(`the ledger of account ${account} keeps getting entries keyed the old way (a ledger import running?); run the import again once it is done`);
      if (round > 0) await this.migrateKeys(account);
      [action, prev] = (await this.#redis.bsLedgerClaim(
        this.key(account),
        this.keysMarker(account),
        this.markerKey(account),
        ledgerFieldOf(recordKey),
        opts.owner,
        opts.importId,
        opts.contentHash,
        String(this.leaseMs),
        opts.allowResend ? '1' : '0',
        'an earlier attempt was interrupted while its request was in flight (its worker stopped before the answer)',
        LEDGER_KEYS_VERSION,
        opts.marker ?? '',
        opts.resendLeaseMs === undefined ? '' : String(opts.resendLeaseMs),
      )) as [BeginResult['action'] | 'migrate', string];
    }
    if (action === 'lost') return { action, marker: prev };
    const previous = prev ? (JSON.parse(prev) as LedgerEntry) : undefined;
    if (action === 'send') return previous ? { action, previous } : { action };
    return { action, previous: previous! } as BeginResult;
  }

  /**
   * The request is being handed to the service now: the owner's claim becomes `sending` (and is
   * made durable, see `LedgerOptions.confirm`). Throws `ClaimLostError` when the owner no longer
   * holds it; the caller then must not send.
   */
  async handOver(account: string, recordKey: string, owner: string, marker?: string): Promise<void> {
    // On a Redis Cluster, the master of the account's slot may fail over between the note and its
    // confirmation (WAIT goes to that master's own connection, which then closes): nothing was
    // sent yet, so write the note again on the promoted master and confirm it there, for as long
    // as a failover takes. Any other failure to confirm means: do not send.
    const deadline = Date.now() + FAILOVER_RIDE_OUT_MS;
    for (;;) {
      const ok = await this.#redis.bsLedgerHold(this.key(account), this.markerKey(account), ledgerFieldOf(recordKey), owner, String(this.leaseMs), 'sending', marker ?? '');
      if (ok === -1) throw new MarkerLostError(recordKey);
      if (ok !== 1) throw new ClaimLostError(recordKey);
      if (this.#confirm === undefined) return;
      try {
        await this.#confirm(nodeForKey(this.#redis, this.key(account)));
        return;
      } catch (err) {
        // Not confirmed, so not sent: back to a claim, which never becomes a false `unknown`.
        await this.#redis.bsLedgerHold(this.key(account), this.markerKey(account), ledgerFieldOf(recordKey), owner, String(this.leaseMs), 'claimed', '').catch(() => {});
        if (!(this.#redis.isCluster && isNodeGone(err) && Date.now() < deadline)) throw err;
        await new Promise((r) => setTimeout(r, 300));
      }
    }
  }

  /** The owner is alive: extend its lease. False when it no longer holds the record. */
  async renew(account: string, recordKey: string, owner: string): Promise<boolean> {
    return (await this.#redis.bsLedgerHold(this.key(account), this.markerKey(account), ledgerFieldOf(recordKey), owner, String(this.leaseMs), '', '')) === 1;
  }

  async created(account: string, recordKey: string, id: number, contentHash: string, importId: string): Promise<void> {
    const entry: LedgerEntry = { state: 'created', id, contentHash, importId, at: 0 };
    await this.#redis.bsLedgerSettle(this.key(account), ledgerFieldOf(recordKey), JSON.stringify(entry));
  }

  async unknown(account: string, recordKey: string, reason: string, contentHash: string, importId: string): Promise<void> {
    const entry: LedgerEntry = { state: 'unknown', contentHash, importId, reason, at: 0 };
    await this.#redis.bsLedgerSettle(this.key(account), ledgerFieldOf(recordKey), JSON.stringify(entry));
  }

  /**
   * Writes what an earlier report says of records the ledger does not know (`--ledger-lost
   * accept`: created with the report's IDs; and `unknown`), where the ledger has no entry at all;
   * an entry already there is the ledger's newer evidence and stays. Returns how many were written.
   */
  async adopt(account: string, entries: ReadonlyArray<{ recordKey: string; entry: Omit<LedgerEntry, 'at'> }>): Promise<number> {
    let n = 0;
    for (let i = 0; i < entries.length; i += LOOKUP_BATCH) {
      const args = entries.slice(i, i + LOOKUP_BATCH).flatMap((e) => [ledgerFieldOf(e.recordKey), JSON.stringify({ ...e.entry, at: 0 })]);
      n += await this.#redis.bsLedgerAdopt(this.key(account), ...args);
    }
    return n;
  }

  /** The service certainly stored nothing: forget the owner's attempt so that it can be sent again. */
  async release(account: string, recordKey: string, owner: string): Promise<void> {
    await this.#redis.bsLedgerRelease(this.key(account), ledgerFieldOf(recordKey), owner);
  }

  async get(account: string, recordKey: string): Promise<LedgerEntry | undefined> {
    const v = await this.#redis.hget(this.key(account), ledgerFieldOf(recordKey));
    return v ? (JSON.parse(v) as LedgerEntry) : undefined;
  }

  /** Several entries in one round trip (undefined where there is none). */
  async getMany(account: string, recordKeys: readonly string[]): Promise<Array<LedgerEntry | undefined>> {
    if (recordKeys.length === 0) return [];
    const values = await this.#redis.hmget(this.key(account), ...recordKeys.map(ledgerFieldOf));
    return values.map((v) => (v ? (JSON.parse(v) as LedgerEntry) : undefined));
  }

  /**
   * Which of `recordKeys` were created (state `created`), looked up without claiming anything: the
   * import page's check says `already created` of them. A ledger whose entries are not all keyed
   * the way of today yet (its marker says so) is looked up under the fields of before too.
   */
  async createdAmong(account: string, recordKeys: readonly string[]): Promise<boolean[]> {
    const out: boolean[] = [];
    const migrated = (await this.#redis.get(this.keysMarker(account))) === LEDGER_KEYS_VERSION;
    const created = (v: string | null | undefined): boolean => v != null && (JSON.parse(v) as LedgerEntry).state === 'created';
    for (let i = 0; i < recordKeys.length; i += LOOKUP_BATCH) {
      const batch = recordKeys.slice(i, i + LOOKUP_BATCH);
      const today = await this.#redis.hmget(this.key(account), ...batch.map(ledgerFieldOf));
      const before = migrated ? [] : await this.#redis.hmget(this.key(account), ...batch);
      for (let k = 0; k < batch.length; k++) out.push(created(today[k]) || created(before[k]));
    }
    return out;
  }

  /** Entries of an account, for `jobs show` and tests. */
  async *entries(account: string): AsyncIterable<[string, LedgerEntry]> {
    const stream = this.#redis.hscanStream(this.key(account), { count: 1000 });
    for await (const batch of stream as AsyncIterable<string[]>) {
      for (let i = 0; i < batch.length; i += 2) yield [batch[i]!, JSON.parse(batch[i + 1]!) as LedgerEntry];
    }
  }
}
