import { LedgerUnsafeError } from '../errors/index.ts';
import type { RedisConnection } from '../redis/layout.ts';
import { durabilityDecision, readDurabilityFacts, type DurabilityDecision } from './durability.ts';

/** How often persistence and eviction are read again while sending (docs/operators.md, "Durability"). */
export const DURABILITY_RECHECK_MS = 5_000;

/**
 * Redis's persistence and eviction policy, read again while records are sent (docs/operators.md,
 * "Durability"): every `everyMs` (at most 5 s) and after every reconnection, before the next
 * record is handed over. An import notes the decision it was submitted under (`durabilityDecision`'s
 * mode); a record of it is handed over only while the decision read now is the same. AOF switched
 * off, `appendfsync` changed, a replica gone where one was counted on, or an evicting
 * `maxmemory-policy` is a change: sending stops (`LedgerUnsafeError`, exit 2).
 */
export class DurabilityWatch {
  #current: DurabilityDecision;
  #reading: Promise<void> | undefined;
  /** A reconnection happened since the last read: the next hand-over waits for a fresh one. */
  #stale = false;
  #timer: NodeJS.Timeout | undefined;
  readonly #onReady = (): void => {
    this.#stale = true;
    void this.read().catch(() => {});
  };
  readonly #onClose = (): void => {
    this.#stale = true;
  };

  constructor(
    private readonly redis: RedisConnection,
    initial: DurabilityDecision,
    private readonly opts: { allowVolatile: boolean; everyMs?: number; onChange?: (from: DurabilityDecision, to: DurabilityDecision) => void },
  ) {
    this.#current = initial;
  }

  /** The decision as last read. */
  get current(): DurabilityDecision {
    return this.#current;
  }

  start(): this {
    this.#timer = setInterval(() => void this.read().catch(() => {}), this.opts.everyMs ?? DURABILITY_RECHECK_MS);
    this.#timer.unref();
    this.redis.on('ready', this.#onReady);
    this.redis.on('close', this.#onClose);
    return this;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.redis.off('ready', this.#onReady);
    this.redis.off('close', this.#onClose);
  }

  /** Reads the facts again (one read at a time; callers during a read share it). */
  read(): Promise<void> {
    this.#reading ??= (async () => {
      try {
        this.#stale = false;
        const next = durabilityDecision(await readDurabilityFacts(this.redis), { allowVolatile: this.opts.allowVolatile });
        if (describe(next) !== describe(this.#current)) this.opts.onChange?.(this.#current, next);
        this.#current = next;
      } catch (err) {
        this.#stale = true;
        throw err;
      } finally {
        this.#reading = undefined;
      }
    })();
    return this.#reading;
  }

  /**
   * Before a record of an import submitted under `mode` is handed over: throws `LedgerUnsafeError`
   * when the decision now is another (or a refusal). After a reconnection it reads first; a Redis
   * that does not answer throws its own error (the record is not sent, as for any Redis failure).
   */
  async require(mode: string | undefined): Promise<void> {
    if (this.#stale || this.#reading !== undefined) await this.read();
    const unsafe = this.unsafeFor(mode);
    if (unsafe !== undefined) throw new LedgerUnsafeError(unsafe);
  }

  /** Why a record of an import submitted under `mode` may not be sent now, from the last read; undefined when it may. */
  unsafeFor(mode: string | undefined): string | undefined {
    const now = this.#current;
    // The refusal's first sentence says what is wrong; its fix is in docs/operators.md.
    if (now.mode === 'refuse') return `Redis no longer keeps the ledger safely: ${now.message.split(/(?<=\.) /)[0]}`;
    if (mode === undefined || now.mode === mode) return undefined;
    return `Redis's persistence changed while the import was sending (it was ${MODE_WORDS[mode] ?? mode}, it is now ${MODE_WORDS[now.mode] ?? now.mode}), so the ledger's notes may no longer survive a crash as they did when the import started`;
  }
}

const MODE_WORDS: Record<string, string> = {
  'aof-always': 'AOF fsyncing every write',
  waitaof: 'AOF confirmed by WAITAOF',
  'aof-everysec': 'AOF fsyncing once a second',
  replica: 'a replica confirming each note',
  volatile: 'no AOF and no replica (BUILDSYNC_ALLOW_VOLATILE_REDIS)',
};

function describe(d: DurabilityDecision): string {
  return `${d.mode}:${'replicas' in d ? (d.replicas ?? 0) : 0}`;
}
