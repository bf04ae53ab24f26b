import type { RedisConnection as Redis } from '../redis/layout.ts';
import * as z from 'zod';
import { FileError } from '../errors/index.ts';
import { Ledger } from './ledger.ts';
import { isOldField, markLedgerKeysStale } from './key-migration.ts';
import MERGE from './lua/merge.lua';
import DELETE_IF_SAME_LUA from './lua/delete-if-same.lua';

/**
 * The ledger as JSON Lines, to back it up, move it to another Redis and keep it bounded
 * (README, Commands, `buildsync ledger export | import | prune`).
 *
 * One line per entry: `{"account": …, "key": …, "entry": {…}}`, the entry exactly as the ledger
 * holds it, fields this file does not know included, so that a newer ledger survives a round trip.
 *
 * Nothing here prunes on its own: keeping the ledger bounded is a scheduled
 * `buildsync ledger prune` (cron, a Kubernetes CronJob), the operator's job, because the ledger
 * is what stops a re-run from creating a record twice and forgetting is a decision.
 */

/** HSCAN's COUNT hint and the entries per merge / delete script: one round trip per batch. */
const BATCH = 500;

const DAY_MS = 86_400_000;

/** The states of `LedgerState`; an unknown state in a file is an error, not a guess. */
const STATES = ['claimed', 'sending', 'created', 'unknown'] as const;

const entrySchema = z
  .looseObject({
    state: z.enum(STATES, { message: `entry.state must be one of ${STATES.join(', ')}` }),
    id: z.number().int().nonnegative().optional(),
    contentHash: z.string(),
    importId: z.string(),
    reason: z.string().optional(),
    at: z.number().int().nonnegative(),
  })
  .refine((e) => e.state !== 'created' || e.id !== undefined, { message: 'a created entry needs the service\'s id', path: ['id'] });

const lineSchema = z.strictObject({
  account: z.string().min(1),
  key: z.string().min(1),
  entry: entrySchema,
});

export type LedgerLine = z.infer<typeof lineSchema>;

export interface ExportOptions {
  /**
   * Called for an entry whose value is not JSON (nothing this tool writes): the export goes on
   * without it and the caller decides what that means. Without it, such an entry throws.
   */
  onUnreadable?: (key: string) => void;
}

/**
 * The entries of `account` as JSON Lines (each ending in `\n`), read with HSCAN so that a large
 * ledger is never held in memory or blocks Redis. An entry written while the export runs may or
 * may not be in it, and HSCAN may return an entry twice while Redis rehashes the hash: harmless,
 * since importing merges.
 */
export async function* exportLedger(redis: Redis, prefix: string, account: string, opts: ExportOptions = {}): AsyncIterable<string> {
  const key = ledgerKey(redis, prefix, account);
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(key, cursor, 'COUNT', BATCH);
    cursor = next;
    for (let i = 0; i < flat.length; i += 2) {
      const field = flat[i]!;
      let entry: unknown;
      try {
        entry = JSON.parse(flat[i + 1]!);
      } catch (err) {
        if (!opts.onUnreadable) throw new Error(`the ledger entry ${JSON.stringify(field)} of account ${account} is not JSON`, { cause: err });
        opts.onUnreadable(field);
        continue;
      }
      yield `${JSON.stringify({ account, key: field, entry })}\n`;
    }
  } while (cursor !== '0');
}

export interface ImportOptions {
  /** The file's name in error messages. @defaultValue `<input>` */
  source?: string;
  /** Checked between batches: an aborted import stops with what it merged so far (merging is idempotent). */
  signal?: AbortSignal;
}

export interface ImportCounts {
  /** Entries written: a key the ledger did not have, or a `created` replacing a non-created entry. */
  added: number;
  /** Incoming entries not written because the ledger already knew the key (and kept its entry). */
  kept: number;
  /**
   * Both sides `created` with different ids (not counted in `kept`): the ledger's is kept; the
   * service may hold the record twice. added + kept + conflicts = the lines merged.
   */
  conflicts: number;
  /** The keys of the first conflicts (at most 100), for the operator to check. */
  conflictKeys: string[];
}

const MAX_CONFLICT_KEYS = 100;
/** Bad lines named in one error; the count says how many more there were. */
const MAX_BAD_LINES = 10;

/**
 * Checks every line of an export for `account` without writing anything; throws one FileError
 * naming the bad lines by number (at most 10, and how many in all). Returns the entries found.
 * `ledger import` runs it first so that a bad file merges nothing at all.
 */
export async function checkLedgerLines(lines: AsyncIterable<string> | Iterable<string>, account: string, opts: { source?: string } = {}): Promise<number> {
  const source = opts.source ?? '<input>';
  const bad: string[] = [];
  let badCount = 0;
  let entries = 0;
  let n = 0;
  for await (const text of lines) {
    n++;
    const r = parseLine(text, n, account);
    if (r === undefined) continue;
    if (typeof r === 'string') {
      badCount++;
      if (bad.length < MAX_BAD_LINES) bad.push(r);
    } else entries++;
  }
  if (badCount) throw badLines(source, bad, badCount);
  return entries;
}

/**
 * Merges an export into the ledger of `account`, never forgetting a created record:
 * - a key the ledger lacks gets the incoming entry, whatever its state;
 * - an incoming `created` replaces any entry that is not `created`;
 * - an existing `created` is kept over anything incoming; two `created` with different ids are
 *   a conflict (counted and named; the existing one stays);
 * - any other incoming state never replaces an existing entry: the one there is the newer
 *   evidence of this Redis.
 * Each batch is merged by one script, atomic against workers writing the same ledger. A bad line
 * throws a FileError naming it; batches before it are merged (use `checkLedgerLines` first).
 * Every line must name `account`.
 */
export async function importLedger(
  redis: Redis,
  prefix: string,
  account: string,
  lines: AsyncIterable<string> | Iterable<string>,
  opts: ImportOptions = {},
): Promise<ImportCounts> {
  const source = opts.source ?? '<input>';
  const key = ledgerKey(redis, prefix, account);
  const merge = mergeCommand(redis);
  const counts: ImportCounts = { added: 0, kept: 0, conflicts: 0, conflictKeys: [] };
  let argv: string[] = [];
  // Entries keyed before keys were compared as a person reads them: once merged, the next claim migrates them (key-migration.ts).
  let oldKeys = false;
  const flush = async () => {
    if (!argv.length) return;
    const [added, kept, conflicts, ...conflictKeys] = await merge.bsLedgerMerge(key, ...argv);
    if (oldKeys) await markLedgerKeysStale(redis, new Ledger(redis, prefix).keysMarker(account));
    oldKeys = false;
    counts.added += Number(added);
    counts.kept += Number(kept);
    counts.conflicts += Number(conflicts);
    for (const k of conflictKeys) if (counts.conflictKeys.length < MAX_CONFLICT_KEYS) counts.conflictKeys.push(String(k));
    argv = [];
  };
  let n = 0;
  for await (const text of lines) {
    n++;
    const r = parseLine(text, n, account);
    if (r === undefined) continue;
    if (typeof r === 'string') throw badLines(source, [r], 1);
    const { entry } = r;
    argv.push(r.key, JSON.stringify(entry), entry.state, entry.id === undefined ? '' : String(entry.id));
    if (isOldField(r.key)) oldKeys = true;
    if (argv.length >= BATCH * 4) {
      opts.signal?.throwIfAborted();
      await flush();
    }
  }
  await flush();
  return counts;
}

/**
 * Forgets the `created` entries of `account` last written more than `olderThanDays` before `now`
 * (ms; pass the Redis server's time, which the ledger writes `at` in). Entries in any other state
 * (claimed, sending, unknown) are never pruned: they are the evidence that a request may have
 * reached the service. An entry rewritten between the scan and the delete is left alone.
 * Returns how many were removed.
 */
export async function pruneLedger(redis: Redis, prefix: string, account: string, olderThanDays: number, now: number, opts: { signal?: AbortSignal } = {}): Promise<number> {
  if (!Number.isFinite(olderThanDays) || olderThanDays < 0) throw new RangeError(`olderThanDays must be a number of days, got ${olderThanDays}`);
  const key = ledgerKey(redis, prefix, account);
  const cutoff = now - olderThanDays * DAY_MS;
  const del = mergeCommand(redis);
  let removed = 0;
  let cursor = '0';
  do {
    opts.signal?.throwIfAborted();
    const [next, flat] = await redis.hscan(key, cursor, 'COUNT', BATCH);
    cursor = next;
    const stale: string[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      if (isStaleCreated(flat[i + 1]!, cutoff)) stale.push(flat[i]!, flat[i + 1]!);
    }
    // Deleting fields HSCAN already returned does not make it skip others (SCAN's guarantee).
    if (stale.length) removed += Number(await del.bsLedgerDeleteIfSame(key, ...stale));
  } while (cursor !== '0');
  return removed;
}

function isStaleCreated(value: string, cutoff: number): boolean {
  let e: { state?: unknown; at?: unknown };
  try {
    e = JSON.parse(value) as typeof e;
  } catch {
    return false; // never forget what cannot be read
  }
  return e?.state === 'created' && typeof e.at === 'number' && e.at < cutoff;
}

/** The ledger decides its own key (and, on a cluster, its hash tag): ask it. */
function ledgerKey(redis: Redis, prefix: string, account: string): string {
  return new Ledger(redis, prefix).key(account);
}

/** A parsed line, undefined for a blank line, or a message naming the bad line. */
function parseLine(text: string, n: number, account: string): LedgerLine | string | undefined {
  const line = n === 1 ? text.replace(/^\uFEFF/, '') : text;
  if (line.trim() === '') return undefined;
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (err) {
    return `line ${n}: not JSON (${(err as Error).message.slice(0, 200)})`;
  }
  const r = lineSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const at = issue.path.length ? `${issue.path.join('.')}: ` : '';
    return `line ${n}: ${at}${issue.message}`;
  }
  if (r.data.account !== account) {
    return `line ${n}: the entry belongs to account ${JSON.stringify(r.data.account).slice(0, 80)}, not ${account}; import it with --account ${JSON.stringify(r.data.account).slice(0, 80)}`;
  }
  return r.data;
}

function badLines(source: string, messages: string[], count: number): FileError {
  const more = count > messages.length ? `; and ${count - messages.length} more bad lines` : '';
  return new FileError(
    source,
    `${source}: ${count === 1 ? 'a bad line' : `${count} bad lines`}, nothing imported from it: ${messages.join('; ')}${more}. Each line must be {"account": …, "key": …, "entry": {…}} as buildsync ledger export writes it.`,
  );
}

// lua/merge.lua reads MAX_CONFLICT_KEYS, given here (one home for the number).
const MERGE_LUA = `local MAX_CONFLICT_KEYS = ${MAX_CONFLICT_KEYS}\n${MERGE}`;

type AdminRedis = Redis & {
  bsLedgerMerge(key: string, ...argv: string[]): Promise<Array<number | string>>;
  bsLedgerDeleteIfSame(key: string, ...argv: string[]): Promise<number>;
};

function mergeCommand(redis: Redis): AdminRedis {
  // EVALSHA through ioredis's defineCommand, as the ledger's own scripts.
  if (!('bsLedgerMerge' in redis)) {
    redis.defineCommand('bsLedgerMerge', { numberOfKeys: 1, lua: MERGE_LUA });
    redis.defineCommand('bsLedgerDeleteIfSame', { numberOfKeys: 1, lua: DELETE_IF_SAME_LUA });
  }
  return redis as AdminRedis;
}
