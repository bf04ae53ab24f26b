import path from 'node:path';
import { writeFileAtomically, type AtomicFile } from '../atomic-file.ts';
import { PROJECT_CSV_HEADER, projectCsvRowBytes } from './project-writer.ts';
import { RowBatch } from './row-batch.ts';
import type { RedisConnection } from '../redis/layout.ts';
import { HeapTrim } from '../heap-trim.ts';
// copy-row.ts, not the warehouse's index: the index loads the PostgreSQL driver, which `--changes` alone does not need.
import { base64Bits48, copyRow, legacySha1 } from './postgres/copy-row.ts';
import STATE_BATCH_LUA from './changes-state-batch.lua';

/**
 * `--changes` (docs/data-teams.md): what was added, changed or removed since the previous successful
 * export of the same account, source, `--include-client-sub` and `--my-documents`.
 *
 * The comparison state is one Redis hash per account and variant: field = project ID, value =
 * `~HASH NUMLEN:NUMBER NAME` packed into one short string:
 * - HASH: 16 base64 characters (96 bits) of the SHA-1 of the project's fields of the seed's
 *   section 2.1 (as one line of PostgreSQL's COPY format with SCOPE_OF_WORK as sent, which
 *   `--to postgres` hashes too: copy-row.ts), so any change of a field changes it. A value without
 *   the leading `~` was written by the first version, which hashed SCOPE_OF_WORK decoded: it is
 *   compared with that hash (`legacySha1`), so upgrading reports nothing changed that did not;
 * - NUMLEN:NUMBER: PROJECT_NUMBER, length-prefixed so that a name may hold any character;
 * - NAME: the rest, as last seen (a removed project is reported with its number and name).
 * About 120 bytes of Redis memory per project, measured (docs/data-teams.md).
 *
 * The next state is written, while the listing is read, to a key of its own that expires after a
 * day (a crashed export leaves nothing behind for long); only a successful export RENAMEs it over
 * the current one, so a failed or interrupted one leaves the state as it was.
 */
export interface ChangeTrackerOptions {
  redis: RedisConnection;
  /** The current state's key (src/redis/layout.ts `exportStateKeyOf`). */
  key: string;
  /** This export's own key for the next state, in the same Redis Cluster slot as `key`. */
  nextKey: string;
  /** Where the changes file goes; absent: keep the state only (`--to postgres` without `--changes`). */
  changesPath?: string;
}

export interface ChangeCounts {
  added: number;
  changed: number;
  removed: number;
}

/** `projects-2026-11-23.csv` → `projects-2026-11-23-changes.csv`; always `.csv` (docs/data-teams.md). */
export function changesPathFor(exportPath: string): string {
  const ext = path.extname(exportPath);
  const stem = ext ? exportPath.slice(0, -ext.length) : exportPath;
  return `${stem}-changes.csv`;
}

/** Header of the changes file: `change`, then the export's columns. */
export const CHANGES_CSV_HEADER = `change,${PROJECT_CSV_HEADER}`;

/** Projects per batch of the next state (one STATE_BATCH_LUA call), and per HMGET / HDEL of removed ones. */
const HSET_BATCH = 2_000;
/** Bytes of the changes file gathered before a write. */
const FILE_BATCH_BYTES = 256 * 1024;
const ADDED = Buffer.from('added,');
const CHANGED = Buffer.from('changed,');
const REMOVED = Buffer.from('removed,');
/** A next state left by an export that died expires after this long. */
const NEXT_TTL_MS = 24 * 3600_000;
/**
 * Fields per HSCAN page. Small pages: each page's strings die young; with 2,000 per page, reading
 * 200,000 entries raised peak RSS by ~35 MB, with 500 by ~11 MB, in the same time (~0.3 s).
 */
const SCAN_COUNT = 500;
/** Heap growth between two full collections while the state is written (see `heap`). */
const HEAP_SLACK_BYTES = 24 * 1024 * 1024;

export class ChangeTracker {
  readonly counts: ChangeCounts = { added: 0, changed: 0, removed: 0 };
  /** The previous state's IDs and hashes, compact; entries are marked as the listing shows them. */
  private readonly previous: PreviousState;
  /** The next state's entries not yet stored, as STATE_BATCH_LUA reads them (see `addEntry`). */
  private entries = Buffer.allocUnsafe(ENTRY_BATCH_BYTES);
  private entriesUsed = 0;
  private entryCount = 0;
  private pending: Promise<unknown> | undefined;
  private expirySet = false;
  /** Projects in this listing: the next state holds exactly these. */
  private listed = 0;
  /** The changes file's rows not yet written: `added,` and the export's CSV row, and so on. */
  private readonly rows = new RowBatch(FILE_BATCH_BYTES);
  /**
   * The state's fields wait in batches for their HSET, long enough to be promoted to V8's old
   * generation, which then grew to ~85 MB of mostly garbage before a full collection (--trace-gc,
   * bench/export-postgres.ts); collecting every 24 MB of growth keeps it near 55 MB, for a few
   * 10-20 ms collections per 200,000 projects.
   */
  private readonly heap = new HeapTrim(HEAP_SLACK_BYTES);

  private constructor(
    private readonly opts: ChangeTrackerOptions,
    previous: PreviousState,
    private readonly file: AtomicFile | undefined,
    /**
     * The next state started as a server-side copy of the current one (`COPY`, Redis 6.2+): only
     * the projects added or changed are written to it and the removed ones deleted, so a night
     * with few changes writes few fields. Without COPY every project is written.
     */
    private readonly fromCopy: boolean,
  ) {
    this.previous = previous;
    this.expirySet = fromCopy;
    if (file) this.rows.add(CHANGES_CSV_HEADER);
  }

  static async open(opts: ChangeTrackerOptions): Promise<ChangeTracker> {
    const fromCopy = await copyState(opts.redis, opts.key, opts.nextKey);
    // The copy is this export's own snapshot: read from it, nothing else writes it.
    const previous = await loadState(opts.redis, fromCopy ? opts.nextKey : opts.key);
    const file = opts.changesPath === undefined ? undefined : await writeFileAtomically(opts.changesPath);
    return new ChangeTracker(opts, previous, file, fromCopy);
  }

  /**
   * Called once the previous state (and the table's rows, `--to postgres`) are in memory, before
   * the listing starts: reading them left the HSCAN pages and the COPY output as garbage, much of
   * it promoted, and the heap's slack (see `heap`) would otherwise be counted from there.
   */
  collectGarbage(): void {
    this.heap.collect();
  }

  /** The changes file's final path, when one is written. */
  get changesPath(): string | undefined {
    return this.file?.path;
  }

  write(record: Record<string, unknown>): void | Promise<void> {
    // The same line and hash `--to postgres` writes (shared when both run: copy-row.ts).
    const { sha1, hash48: rowHash } = copyRow(record);
    // 16 base64 characters: the first 12 bytes (96 bits) of the SHA-1.
    const digest = sha1.slice(0, 16);
    const at = this.previous.find(Number(record.ID));
    this.listed++;
    // In the copy already, and written the way this version writes it: nothing to store.
    let stored = false;
    if (at < 0) {
      this.counts.added++;
      if (this.file) this.addRow(ADDED, record);
    } else {
      this.previous.seen[at] = 1;
      const before = this.previous.hashes[at]!;
      // A negative hash is a legacy entry's (see loadState).
      const same = before < 0 ? -1 - before === base64Bits48(legacySha1(record)) : before === rowHash;
      if (!same) {
        this.counts.changed++;
        if (this.file) this.addRow(CHANGED, record);
      }
      stored = this.fromCopy && same && before >= 0;
    }
    if (!stored) this.addEntry(record.ID, pack(digest, record.PROJECT_NUMBER, record.NAME));
    if (this.entryCount >= HSET_BATCH) return this.flushState();
    if (this.rows.full) return this.flushFile();
  }

  /** The listing ended: the remaining previous projects are `removed`; everything is written but not yet in place. */
  async prepare(): Promise<void> {
    const ids = this.previous.unseen();
    this.counts.removed = ids.length;
    if (this.file && ids.length > 0) {
      // Only the hashes were kept in memory: the number and name as last seen come from the state.
      for (let i = 0; i < ids.length; i += HSET_BATCH) {
        const some = ids.slice(i, i + HSET_BATCH);
        const packed = await this.opts.redis.hmget(this.fromCopy ? this.opts.nextKey : this.opts.key, ...some.map(String));
        some.forEach((id, j) => {
          const { number, name } = unpack(packed[j] ?? '');
          this.addRow(REMOVED, { ID: id, NAME: name, PROJECT_NUMBER: number });
        });
        await this.flushFile();
      }
    }
    if (this.fromCopy) {
      for (let i = 0; i < ids.length; i += HSET_BATCH) await this.opts.redis.hdel(this.opts.nextKey, ...ids.slice(i, i + HSET_BATCH).map(String));
    }
    await this.flushState();
    await this.pending;
    await this.flushFile();
  }

  /** The changes file appears, then the next state replaces the current one. */
  async commit(): Promise<void> {
    await this.file?.commit();
    const { redis, key, nextKey } = this.opts;
    if (this.listed === 0) {
      // An empty listing: the state is empty (Redis keeps no empty hash).
      await redis.del(key, nextKey);
      return;
    }
    // RENAME keeps the TTL the next state had while being written: PERSIST it in the same MULTI.
    const result = await redis.multi().rename(nextKey, key).persist(key).exec();
    const failed = result?.find(([err]) => err);
    if (failed) throw failed[0]!;
  }

  /** Removes the changes file's temporary file and the next state; never throws. */
  async abort(): Promise<void> {
    await this.file?.abort().catch(() => {});
    await this.pending?.catch(() => {});
    await this.opts.redis.del(this.opts.nextKey).catch(() => {});
  }

  private async flushState(): Promise<void> {
    // At most one HSET in flight: the next batch is gathered while Redis stores this one.
    await this.pending;
    if (this.entryCount === 0) return;
    const batch = this.entries.subarray(0, this.entriesUsed);
    this.entries = Buffer.allocUnsafe(ENTRY_BATCH_BYTES);
    this.entriesUsed = 0;
    this.entryCount = 0;
    this.heap.check();
    const { redis, nextKey } = this.opts;
    const ttl = this.expirySet ? 0 : NEXT_TTL_MS;
    this.expirySet = true;
    this.pending = stateCommands(redis).bsExportStateBatch(nextKey, batch, ttl);
  }

  /**
   * One entry of the next state, written into the batch as `ID:LLLLLLLL:VALUE` (the value's
   * length in bytes, 8 decimal digits), which STATE_BATCH_LUA splits into HSET fields in Redis.
   * Why not HSET with 4,000 arguments: ioredis handles each argument on its own (type checks,
   * length, write), ~0.3 s of the export's one thread for 200,000 projects, and the arrays of
   * short strings were the bulk of the garbage (bench/export-postgres.ts, --cpu-prof).
   */
  private addEntry(id: unknown, value: string): void {
    const idText = String(id);
    // UTF-8 takes at most 3 bytes per UTF-16 unit; the ID is ASCII digits.
    const need = idText.length + 10 + 3 * value.length;
    if (this.entriesUsed + need > this.entries.length) {
      const more = Buffer.allocUnsafe(Math.max(2 * this.entries.length, this.entriesUsed + need));
      this.entries.copy(more, 0, 0, this.entriesUsed);
      this.entries = more;
    }
    let at = this.entriesUsed;
    at += this.entries.write(idText, at, 'latin1');
    this.entries[at++] = COLON;
    const lengthAt = at;
    at += 9;
    const bytes = this.entries.write(value, at, 'utf8');
    this.entries.write(String(bytes).padStart(8, '0'), lengthAt, 'latin1');
    this.entries[lengthAt + 8] = COLON;
    this.entriesUsed = at + bytes;
    this.entryCount++;
  }

  /**
   * A row of the changes file: the change, then the project's CSV row, the same bytes as the export
   * file's (formatted once for both when the export is a CSV file: project-writer.ts).
   */
  private addRow(change: Buffer, record: Record<string, unknown>): void {
    this.rows.add(change);
    this.rows.add(projectCsvRowBytes(record));
  }

  private async flushFile(): Promise<void> {
    if (!this.file || this.rows.bytes === 0) return;
    await this.file.write(this.rows.take());
  }
}

const COLON = 0x3a;
/** Bytes of a batch of entries before it grows (about 75 bytes per entry). */
const ENTRY_BATCH_BYTES = 256 * 1024;

interface StateCommands {
  bsExportStateBatch(key: string, entries: Buffer, ttlMs: number): Promise<number>;
}

const stateDefined = new WeakSet<RedisConnection>();

function stateCommands(redis: RedisConnection): StateCommands {
  if (!stateDefined.has(redis)) {
    redis.defineCommand('bsExportStateBatch', { numberOfKeys: 1, lua: STATE_BATCH_LUA });
    stateDefined.add(redis);
  }
  return redis as unknown as StateCommands;
}

/**
 * The previous state in 17 bytes per project: IDs sorted in a Float64Array (found by binary
 * search), the first 48 bits of each hash beside them, a seen flag. A Map of strings would hold
 * ~100 bytes per project, 20 MB more at 200,000 projects, within an export that streams in ~150 MB.
 * 48 bits decide "changed": a change goes unnoticed with probability 2^-48.
 */
class PreviousState {
  readonly seen: Uint8Array;
  constructor(
    readonly ids: Float64Array,
    /** 48 bits of each hash; -1 - bits for an entry of the first version (its hash taken the legacy way). */
    readonly hashes: Float64Array,
  ) {
    this.seen = new Uint8Array(ids.length);
  }

  /** The index of `id`, or -1. */
  find(id: number): number {
    const ids = this.ids;
    let lo = 0;
    let hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = ids[mid]!;
      if (v === id) return mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  unseen(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.ids.length; i++) if (!this.seen[i]) out.push(this.ids[i]!);
    return out;
  }
}

/**
 * `COPY key nextKey` with the next state's expiry; false when there is no current state or the
 * server has no COPY (before Redis 6.2: the next state is then written whole).
 */
async function copyState(redis: RedisConnection, key: string, nextKey: string): Promise<boolean> {
  try {
    const result = await redis.multi().copy(key, nextKey, 'REPLACE').pexpire(nextKey, NEXT_TTL_MS).exec();
    const failed = result?.find(([err]) => err);
    if (failed) throw failed[0]!;
    return result?.[0]?.[1] === 1;
  } catch (err) {
    // Inside MULTI an unknown command aborts EXEC; ioredis keeps its own error in previousErrors.
    const messages = [err, ...((err as { previousErrors?: unknown[] })?.previousErrors ?? [])].map((e) => String((e as Error)?.message));
    if (messages.some((m) => /unknown command/i.test(m))) return false;
    throw err;
  }
}

async function loadState(redis: RedisConnection, key: string): Promise<PreviousState> {
  // Typed arrays sized once (HLEN), filled as HSCAN pages arrive: no per-project objects survive.
  let capacity = Math.max(16, await redis.hlen(key));
  let ids = new Float64Array(capacity);
  let hashes = new Float64Array(capacity);
  let n = 0;
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(key, cursor, 'COUNT', SCAN_COUNT);
    for (let i = 0; i < flat.length; i += 2) {
      if (n === capacity) {
        // The hash grew since HLEN (another export renamed its state over it): grow too.
        capacity *= 2;
        const moreIds = new Float64Array(capacity);
        moreIds.set(ids);
        ids = moreIds;
        const moreHashes = new Float64Array(capacity);
        moreHashes.set(hashes);
        hashes = moreHashes;
      }
      ids[n] = Number(flat[i]!);
      const packed = flat[i + 1]!;
      hashes[n] = packed.charCodeAt(0) === TILDE ? base64Bits48(packed, 1) : -1 - base64Bits48(packed);
      n++;
    }
    cursor = next;
  } while (cursor !== '0');
  // Sorted by ID for binary search; HSCAN may return a field twice (while the hash is rehashed):
  // sorting puts duplicates side by side, and they are dropped.
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => ids[a]! - ids[b]!);
  const sortedIds = new Float64Array(n);
  const sortedHashes = new Float64Array(n);
  let m = 0;
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    if (m > 0 && sortedIds[m - 1] === ids[i]) continue;
    sortedIds[m] = ids[i]!;
    sortedHashes[m] = hashes[i]!;
    m++;
  }
  return new PreviousState(sortedIds.subarray(0, m), sortedHashes.subarray(0, m));
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v);
}

/** `~` starts every value this version writes (not a base64 character: the first version's values start with their hash). */
const TILDE = 0x7e;

function pack(digest: string, number: unknown, name: unknown): string {
  const n = text(number);
  return `~${digest}${n.length}:${n}${text(name)}`;
}

function unpack(packed: string): { number: string; name: string } {
  const from = packed.charCodeAt(0) === TILDE ? 17 : 16;
  const colon = packed.indexOf(':', from);
  if (colon < 0) return { number: '', name: '' };
  const len = Number(packed.slice(from, colon));
  return { number: packed.slice(colon + 1, colon + 1 + len), name: packed.slice(colon + 1 + len) };
}
