import type { Cluster, Redis } from 'ioredis';
import { RedisUnavailableError } from '../errors/index.ts';

/**
 * Redis helpers every layer uses (the queue, the budget, the ledger, the dashboard, the check):
 * the connection type, the key layout, and what differs on a Redis Cluster (scans that visit
 * every master, key-less commands sent to the node that owns a key's slot). `redis/connection.ts`
 * makes the connections (`redis/cluster.ts` a cluster's).
 *
 * Only ioredis' types are imported here: every command's modules reach the key layout, an
 * estimate's dry run too, which needs no Redis and so does not load ioredis (about 0.1 s of CPU).
 * A connection says itself whether it is a cluster (`isCluster`, `isClusterConnection`).
 */

/**
 * What every part of the tool talks to: one Redis, or a Redis Cluster (REDIS_CLUSTER=1). Both
 * are ioredis `Commander`s with the same commands; the few places that differ ask
 * `redis.isCluster` or use the helpers below.
 */
export type RedisConnection = Redis | Cluster;

/** True when `redis` is a Redis Cluster (an ioredis `Cluster`, whose `isCluster` is true; a `Redis`'s is false). */
export function isClusterConnection(redis: RedisConnection): redis is Cluster {
  return redis.isCluster;
}

/**
 * The key layout (README, Configuration, BUILDSYNC_PREFIX), in one place. Redis Cluster hashes only the
 * part of a key between its first `{` and the next `}` (the hash tag) when there is one, and a
 * Lua script or MULTI may only touch keys of one slot. So, on a cluster:
 * - every BullMQ key is under `{PREFIX}:…`: the three queues share one slot, as BullMQ's flows
 *   (an import parent and its record children in two queues) need (BullMQ docs, "Redis Cluster");
 * - each account's budget, ledger and vendor list are under `PREFIX:{ACCOUNT}:…`: one slot per account, so
 *   the account's scripts run in one slot while many accounts spread over the shards;
 * - each import's bookkeeping is under `PREFIX:import:{ID}:…`, one slot per import.
 * On a single Redis the names stay what they always were (no braces), so that the queues, ledgers
 * and budgets of an existing installation keep working; `buildsync ledger export | ledger import`
 * moves a ledger from one layout to the other.
 *
 * Which layout applies follows from the connection: `redis.isCluster` (ioredis) is true exactly
 * when REDIS_CLUSTER=1 made it a `Cluster`.
 */
export interface KeyConnection {
  readonly isCluster: boolean;
}

/** BullMQ's `prefix` option of every Queue, Worker and FlowProducer. */
export function queuePrefix(redis: KeyConnection, prefix: string): string {
  return redis.isCluster ? `{${prefix}}` : prefix;
}

/** The head of an account's budget keys: `PREFIX:throttle:ACCOUNT` or, on a cluster, `PREFIX:{ACCOUNT}:throttle`. */
export function throttleKeyBase(redis: KeyConnection, prefix: string, account: string): string {
  return redis.isCluster ? `${prefix}:{${account}}:throttle` : `${prefix}:throttle:${account}`;
}

/** An account's ledger hash: `PREFIX:ledger:ACCOUNT` or, on a cluster, `PREFIX:{ACCOUNT}:ledger`. */
export function ledgerKeyOf(redis: KeyConnection, prefix: string, account: string): string {
  return redis.isCluster ? `${prefix}:{${account}}:ledger` : `${prefix}:ledger:${account}`;
}

/**
 * Which way an account's ledger keys its records (ledger/record-key.ts): `PREFIX:ledger-keys:ACCOUNT`
 * or, on a cluster, `PREFIX:{ACCOUNT}:ledger-keys`, in the ledger's slot so that a claim's script
 * reads it with the ledger.
 */
export function ledgerKeysMarkerOf(redis: KeyConnection, prefix: string, account: string): string {
  return redis.isCluster ? `${prefix}:{${account}}:ledger-keys` : `${prefix}:ledger-keys:${account}`;
}

/**
 * The ledger's own marker (ledger/ledger.ts `ensureMarker`): `PREFIX:ledger-marker:ACCOUNT` or, on
 * a cluster, `PREFIX:{ACCOUNT}:ledger-marker`, in the ledger's slot so that a claim's script reads
 * it with the ledger. Gone or another means the ledger an import started with is gone.
 */
export function ledgerMarkerKeyOf(redis: KeyConnection, prefix: string, account: string): string {
  return redis.isCluster ? `${prefix}:{${account}}:ledger-marker` : `${prefix}:ledger-marker:${account}`;
}

/** An account's vendor list (names to VENDOR_IDs): `PREFIX:vendors:ACCOUNT` or, on a cluster, `PREFIX:{ACCOUNT}:vendors`. */
export function vendorsKeyOf(redis: KeyConnection, prefix: string, account: string): string {
  return redis.isCluster ? `${prefix}:{${account}}:vendors` : `${prefix}:vendors:${account}`;
}

/**
 * The import page's last mapping of an account for one kind and header row (README, The import
 * page): `PREFIX:page:last-mapping:ACCOUNT:KIND:HASH` or, on a cluster,
 * `PREFIX:{ACCOUNT}:page:last-mapping:KIND:HASH`; `hash` names the header row (its SHA-1).
 */
export function lastMappingKeyOf(redis: KeyConnection, prefix: string, account: string, kind: string, hash: string): string {
  return redis.isCluster ? `${prefix}:{${account}}:page:last-mapping:${kind}:${hash}` : `${prefix}:page:last-mapping:${account}:${kind}:${hash}`;
}

/** One part of an import's bookkeeping: `PREFIX:import:ID:part`, on a cluster `PREFIX:import:{ID}:part`. */
export function importKeyOf(redis: KeyConnection, prefix: string, importId: string, part: string): string {
  return redis.isCluster ? `${prefix}:import:{${importId}}:${part}` : `${prefix}:import:${importId}:${part}`;
}

/**
 * SCAN patterns that cover every key the tool writes under `prefix`, in both layouts' forms
 * that apply to the connection (`PREFIX:*`, and `{PREFIX}:*` on a cluster).
 */
export function prefixPatterns(redis: KeyConnection, prefix: string): string[] {
  const glob = (s: string) => s.replace(/[*?[\]\\]/g, '\\$&');
  return redis.isCluster ? [`${glob(prefix)}:*`, `${glob(`{${prefix}}`)}:*`] : [`${glob(prefix)}:*`];
}

/**
 * The Redis Cluster slot of a key (CRC16/XMODEM of its hash tag, or of the whole key, mod 16384),
 * as the server computes it (Redis Cluster specification, "Keys distribution model"). Used to
 * find the node that owns an account's keys for commands that carry no key (`WAIT`, `INFO`).
 */
export function keySlot(key: string): number {
  const bytes = Buffer.from(key);
  let start = bytes.indexOf(0x7b); // {
  let end = bytes.length;
  if (start >= 0) {
    const close = bytes.indexOf(0x7d, start + 1); // }
    if (close > start + 1) {
      end = close;
      start += 1;
    } else start = 0;
  } else start = 0;
  let crc = 0;
  for (let i = start; i < end; i++) {
    crc ^= bytes[i]! << 8;
    for (let b = 0; b < 8; b++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

/**
 * The comparison state of `export projects --changes` / `--to postgres` (docs/data-teams.md), one
 * per account and listing variant (`v2:true:exclude`, source:includeClientSub:myDocuments):
 * `PREFIX:export-state:ACCOUNT:VARIANT` or, on a cluster, `PREFIX:{ACCOUNT}:export-state:VARIANT`.
 * `next` names the state being written by one export (its `token`): in the same slot, so that the
 * successful export can RENAME it over the current one.
 */
export function exportStateKeyOf(redis: KeyConnection, prefix: string, account: string, variant: string, next?: string): string {
  const base = redis.isCluster ? `${prefix}:{${account}}:export-state:${variant}` : `${prefix}:export-state:${account}:${variant}`;
  return next === undefined ? base : `${base}:next:${next}`;
}

/**
 * The connection to the node that owns `key`'s slot, for commands that carry no key but concern
 * that key's data: `WAIT`/`WAITAOF` after a ledger note (they count the writes of the connection
 * they are sent on, so they must go to the very connection ioredis wrote the note on), `INFO
 * persistence`. On a single Redis, the connection itself. ioredis routes a keyed command through
 * `slots[slot][0]` (the master) to the pool's connection for that node, the same instance
 * `nodes('master')` hands out; this finds it the same way.
 */
export function nodeForKey(redis: RedisConnection, key: string): Redis {
  if (!isClusterConnection(redis)) return redis;
  const master = redis.slots[keySlot(key)]?.[0];
  const node = master === undefined ? undefined : redis.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === master);
  if (!node) {
    throw new RedisUnavailableError(`redis://${master ?? 'unknown'}`, {
      message: `no connection to the Redis Cluster node that serves the slot of ${key} (${master ?? 'no node known for that slot'}); the cluster may be failing over: run again in a moment`,
    });
  }
  return node;
}

/** Every master of a cluster (SCAN sees only the node it runs on), or the one Redis. */
export function masterNodes(redis: RedisConnection): Redis[] {
  return isClusterConnection(redis) ? redis.nodes('master') : [redis];
}

/**
 * Every key matching `pattern` on every master, in batches: SCAN on a cluster node covers only
 * that node's slots (Redis Cluster specification), so a scan of "the" Redis must visit each master.
 */
export async function* scanAll(redis: RedisConnection, pattern: string, count = 1000): AsyncIterable<string[]> {
  for (const node of masterNodes(redis)) {
    const stream = node.scanStream({ match: pattern, count });
    for await (const keys of stream as AsyncIterable<string[]>) if (keys.length) yield keys;
  }
}

/** Deletes every key matching `pattern` on every master; on a cluster one key per UNLINK, since keys of one batch may lie in different slots. */
export async function unlinkAll(redis: RedisConnection, pattern: string): Promise<number> {
  let n = 0;
  for await (const keys of scanAll(redis, pattern)) {
    if (isClusterConnection(redis)) {
      await Promise.all(keys.map((k) => redis.unlink(k)));
    } else await redis.unlink(...keys);
    n += keys.length;
  }
  return n;
}
