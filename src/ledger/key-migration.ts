import { randomUUID } from 'node:crypto';
import type { RedisConnection } from '../redis/layout.ts';
import { LEDGER_KEYS_VERSION, ledgerFieldOf, MIGRATED_FIELDS } from './record-key.ts';
import COPY_LUA from './lua/copy-fields.lua';
import FINISH_LUA from './lua/keys-finish.lua';

/**
 * Brings a ledger written before record keys were compared as a person reads them
 * (record-key.ts) to today's fields: every `bill:ref:` entry whose field is not today's is
 * copied to today's field, then the account's marker says so. A claim refuses to run while the
 * marker says otherwise (ledger.ts), so no record is looked up under today's field before the
 * entries written the old way are there.
 *
 * Copying, not renaming: two bills that a file once spelled `INV-7` and `inv-7` (two bills then,
 * one key now) both stay on record under their old fields, and today's field gets one of them,
 * a `created` one over any other state. An entry already under today's field is kept unless it
 * is not `created` and the old one is: an `INV-7` created before must stop a claim on `inv-7`.
 * Idempotent: workers that find the marker missing at once all migrate, harmlessly.
 */

/** HSCAN's COUNT hint and the pairs per copy script. */
const BATCH = 500;

type MigrationRedis = RedisConnection & {
  bsLedgerCopyFields(ledgerKey: string, ...pairs: string[]): Promise<number>;
  bsLedgerKeysFinish(markerKey: string, expected: string, version: string): Promise<number>;
};

function commands(redis: RedisConnection): MigrationRedis {
  if (!('bsLedgerCopyFields' in redis)) {
    redis.defineCommand('bsLedgerCopyFields', { numberOfKeys: 1, lua: COPY_LUA });
    redis.defineCommand('bsLedgerKeysFinish', { numberOfKeys: 1, lua: FINISH_LUA });
  }
  return redis as MigrationRedis;
}

/** Copies the ledger's old-way entries to today's fields and marks the ledger; returns how many were copied. */
export async function migrateRecordKeys(redis: RedisConnection, ledgerKey: string, markerKey: string): Promise<number> {
  const r = commands(redis);
  const before = (await r.get(markerKey)) ?? '';
  if (before === LEDGER_KEYS_VERSION) return 0;
  let copied = 0;
  let cursor = '0';
  do {
    const [next, flat] = await r.hscan(ledgerKey, cursor, 'MATCH', MIGRATED_FIELDS, 'COUNT', BATCH);
    cursor = next;
    const pairs: string[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      const field = flat[i]!;
      const today = ledgerFieldOf(field);
      if (today !== field) pairs.push(field, today);
    }
    if (pairs.length > 0) copied += Number(await r.bsLedgerCopyFields(ledgerKey, ...pairs));
  } while (cursor !== '0');
  await r.bsLedgerKeysFinish(markerKey, before, LEDGER_KEYS_VERSION);
  return copied;
}

/**
 * After `ledger import` merged entries some of which are keyed the old way: the marker gets a
 * token of its own, so that the next claim migrates them (and a migration running meanwhile does
 * not mark the ledger done).
 */
export async function markLedgerKeysStale(redis: RedisConnection, markerKey: string): Promise<void> {
  await redis.set(markerKey, `stale:${randomUUID()}`);
}

/** Whether an entry imported under `field` needs a migration to be found. */
export function isOldField(field: string): boolean {
  return ledgerFieldOf(field) !== field;
}
