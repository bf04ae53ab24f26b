import type { Redis } from 'ioredis';
import { ConfigError } from '../errors/index.ts';
import { masterNodes, nodeForKey, type RedisConnection } from '../redis/layout.ts';
import { isReplyError } from '../redis/index.ts';

/**
 * Would the ledger's note "this record is being sent" survive a Redis crash? (docs/operators.md,
 * "Durability"). A record is only sent once it would: otherwise a Redis restart, or a failover to
 * a replica that had not received the note yet, makes a re-run send the record a second time
 * (issue 12, item 5: 119 bills stored twice after a restart, 21 after a failover).
 *
 * Three steps, so that the rule is one pure function a test can walk through:
 * `readDurabilityFacts` asks the server, `durabilityDecision` decides once at start, and
 * `confirmNote` runs after every note the decision asks to confirm, before the request goes out.
 */

/** What the server says about itself. */
export interface RedisDurabilityFacts {
  /** `redis_version` of `INFO server`, e.g. `7.0.15`. */
  redisVersion: string;
  /** `aof_enabled:1` in `INFO persistence`. */
  aofEnabled: boolean;
  /** `CONFIG GET appendfsync`; undefined when the user may not run CONFIG (ACL, renamed command). */
  appendfsync: 'always' | 'everysec' | 'no' | undefined;
  /** `connected_slaves` of `INFO replication` when `role:master`; 0 on a replica. */
  connectedReplicas: number;
  /** `maxmemory_policy` of `INFO memory`; undefined when the server does not report it. */
  maxmemoryPolicy: string | undefined;
}

/**
 * How each note is made durable, decided once per run:
 * - `aof-always`: the server fsyncs the AOF before it answers a write; nothing more per note.
 * - `waitaof`: AOF on a server with `WAITAOF` (7.2+): `WAITAOF 1 0 timeout` after each note.
 * - `aof-everysec`: AOF that fsyncs once a second on a server without `WAITAOF`: send, but warn
 *   once that a crash of the machine may forget up to a second of notes.
 * - `replica`: `WAIT 1 timeout` after each note.
 * - `volatile`: nothing would survive a crash, and the user said that is fine.
 * - `refuse`: send nothing; `message` says how to fix it (exit 2).
 *
 * `replicas`, on `aof-always` and `waitaof`, means a replica must also confirm each note with
 * `WAIT` (see `durabilityDecision` for why). `warning` is to be printed once per run.
 */
export type DurabilityDecision =
  | { mode: 'aof-always'; replicas?: number; warning?: string }
  | { mode: 'waitaof'; replicas?: number; warning?: string }
  | { mode: 'aof-everysec'; warning: string }
  | { mode: 'replica'; replicas: number; warning?: string }
  | { mode: 'volatile'; warning: string }
  | { mode: 'refuse'; message: string };

/**
 * A Redis that would lose or evict the ledger, or a note it did not confirm in time. Exit 2 like
 * any configuration problem ("Redis … refusing", README, Commands); nothing was sent.
 */
export class RedisNotDurableError extends ConfigError {
  /** `refused`: the server's set-up; `unconfirmed`: one note's WAIT/WAITAOF came back short. */
  readonly reason: 'refused' | 'unconfirmed';
  constructor(reason: 'refused' | 'unconfirmed', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

const VOLATILE_VAR = 'BUILDSYNC_ALLOW_VOLATILE_REDIS=1';

const AOF_FIX =
  'Turn AOF on: `redis-cli CONFIG SET appendonly yes` and `redis-cli CONFIG SET appendfsync always` now, ' +
  'and `appendonly yes` and `appendfsync always` in redis.conf so that it stays on after a restart ' +
  '(or start the server with `redis-server --appendonly yes --appendfsync always`)';

const FSYNC_FIX =
  'Make it fsync every write: `redis-cli CONFIG SET appendfsync always`, and `appendfsync always` in redis.conf ' +
  '(or `redis-server --appendonly yes --appendfsync always`)';

const EVICTION_FIX =
  'Run `redis-cli CONFIG SET maxmemory-policy noeviction`, and put `maxmemory-policy noeviction` in redis.conf ' +
  '(or start the server with `--maxmemory-policy noeviction`)';

/**
 * The rule, as a table (first matching row wins; "AOF" means `aof_enabled:1`):
 *
 * | AOF | appendfsync        | server  | replica | decision                              |
 * |-----|--------------------|---------|---------|---------------------------------------|
 * | on  | always             | any     | no      | aof-always                            |
 * | on  | always             | any     | yes     | aof-always + WAIT 1                   |
 * | on  | everysec / unknown | >= 7.2  | no      | waitaof                               |
 * | on  | everysec / unknown | >= 7.2  | yes     | waitaof + WAIT 1                      |
 * | on  | everysec / unknown | < 7.2   | yes     | replica (WAIT 1)                      |
 * | on  | everysec / unknown | < 7.2   | no      | aof-everysec, warning                 |
 * | on  | no                 | any     | yes     | replica (WAIT 1)                      |
 * | off | -                  | any     | yes     | replica (WAIT 1)                      |
 * | on  | no                 | any     | no      | refuse, or volatile with allowVolatile |
 * | off | -                  | any     | no      | refuse, or volatile with allowVolatile |
 *
 * and, on top of any row, `maxmemory-policy` other than `noeviction`: refuse, or a warning with
 * allowVolatile. A refusal names every problem found and every fix.
 *
 * AOF or replica, when the server has both? Both, each against its own loss. AOF that fsyncs
 * each note (`always`, or `WAITAOF`) is what survives this server restarting, of the process or
 * of the machine: a replica does not help there, since a master that comes back resynchronises
 * its replicas to what it reloaded. A replica is what survives a failover (Sentinel, a managed
 * service, a lost machine): the promoted replica has only what it had received, and the master's
 * disk no longer counts. A server with replicas may fail over, so its notes also wait for
 * `WAIT 1`; that costs one round trip to the replica per record, nothing next to the service's
 * rate limits. Where the AOF cannot confirm a note (`everysec` without `WAITAOF`, or `no`), the
 * replica's `WAIT` is the confirmation the contract asks for, and no warning is given.
 *
 * `appendfsync no` leaves the flush to the kernel (about 30 s on Linux): not on disk in any sense
 * the contract means, so it counts as no AOF. Unknown `appendfsync` (CONFIG not permitted) counts
 * as `everysec`, per the contract; with `WAITAOF` that is exact whatever the real setting.
 */
export function durabilityDecision(facts: RedisDurabilityFacts, opts: { allowVolatile: boolean }): DurabilityDecision {
  const warnings: string[] = [];
  const problems: string[] = [];

  const policy = facts.maxmemoryPolicy;
  // Unknown policy (a server that does not report one) is not refused: nothing to tell the user to change.
  if (policy !== undefined && policy !== 'noeviction') {
    const what = `Redis may evict the ledger's keys when it runs out of memory (maxmemory-policy is ${policy}, not noeviction), and a re-run would then send those records again.`;
    if (opts.allowVolatile) warnings.push(`${what} Sending anyway because ${VOLATILE_VAR} is set.`);
    else problems.push(`${what} ${EVICTION_FIX}.`);
  }

  const replicas = Math.max(0, facts.connectedReplicas);
  const fsync = facts.appendfsync ?? 'everysec';
  const hasWaitaof = supportsWaitaof(facts.redisVersion);
  const warning = (): { warning?: string } => (warnings.length ? { warning: warnings.join('\n') } : {});
  let decision: DurabilityDecision | undefined;

  if (facts.aofEnabled && fsync === 'always') {
    decision = { mode: 'aof-always', ...(replicas ? { replicas } : {}), ...warning() };
  } else if (facts.aofEnabled && fsync === 'everysec' && hasWaitaof) {
    decision = { mode: 'waitaof', ...(replicas ? { replicas } : {}), ...warning() };
  } else if (replicas > 0) {
    decision = { mode: 'replica', replicas, ...warning() };
  } else if (facts.aofEnabled && fsync === 'everysec') {
    const unknown = facts.appendfsync === undefined ? ' (its appendfsync could not be read: CONFIG GET is not permitted, so it is taken as everysec)' : '';
    warnings.unshift(
      `Redis ${facts.redisVersion} writes its AOF to disk once a second${unknown} and has no WAITAOF (Redis 7.2 and later): ` +
        `if the machine crashes, the ledger may forget up to a second of records being sent, and a re-run may send those again. ` +
        `${FSYNC_FIX} to close that gap.`,
    );
    decision = { mode: 'aof-everysec', warning: warnings.join('\n') };
  } else {
    const why = facts.aofEnabled
      ? `Redis would lose the ledger in a crash: its AOF is on but never fsynced by Redis (appendfsync no) and no replica is connected, so after a crash a re-run may send records a second time.`
      : `Redis would lose the ledger in a crash: it has no AOF (appendonly no) and no connected replica, so after a restart a re-run may send records a second time.`;
    if (opts.allowVolatile) {
      warnings.unshift(`${why} Sending anyway because ${VOLATILE_VAR} is set; use this for throwaway set-ups only.`);
      decision = { mode: 'volatile', warning: warnings.join('\n') };
    } else {
      problems.unshift(`${why} ${facts.aofEnabled ? FSYNC_FIX : AOF_FIX}.`);
    }
  }

  if (problems.length) {
    return {
      mode: 'refuse',
      message: `${problems.join('\n')}\nNothing was sent. For a throwaway set-up, set ${VOLATILE_VAR} to send anyway.`,
    };
  }
  return decision!;
}

/** `WAITAOF` came with Redis 7.2 (and servers that report 7.2 compatibility, such as Valkey). */
export function supportsWaitaof(redisVersion: string): boolean {
  const [major = 0, minor = 0] = redisVersion.split('.').map((p) => Number.parseInt(p, 10) || 0);
  return major > 7 || (major === 7 && minor >= 2);
}

/**
 * Asks the server. `INFO` is required (an error from it propagates: without it nothing can be
 * known); `CONFIG GET appendfsync` is optional: an ACL user without `+config|get`, or a managed
 * service that renamed CONFIG, leaves it undefined. Only a reply error is swallowed: a lost
 * connection is not a permission problem.
 *
 * On a Redis Cluster these are per node: with `key` (an account's ledger key), the node that owns
 * its slot, where that account's notes are written and confirmed; without, every master, combined
 * into the weakest (`weakestFacts`), since a worker serves whichever accounts come.
 */
export async function readDurabilityFacts(redis: RedisConnection, opts: { key?: string } = {}): Promise<RedisDurabilityFacts> {
  if (!redis.isCluster) return readNodeFacts(redis as Redis);
  if (opts.key !== undefined) return readNodeFacts(nodeForKey(redis, opts.key));
  return weakestFacts(await Promise.all(masterNodes(redis).map((node) => readNodeFacts(node))));
}

/**
 * The facts of several masters as one server that is as weak as the weakest of them on each
 * count: AOF only if every master has it, the laxest appendfsync, the fewest replicas, the
 * oldest version, and an evicting policy if any master evicts.
 */
export function weakestFacts(all: readonly RedisDurabilityFacts[]): RedisDurabilityFacts {
  if (all.length === 0) throw new RangeError('weakestFacts needs at least one node');
  const fsyncRank = (f: RedisDurabilityFacts['appendfsync']): number => (f === 'always' ? 3 : f === 'no' ? 1 : 2);
  const version = (v: string) => v.split('.').map((p) => Number.parseInt(p, 10) || 0);
  const older = (a: string, b: string): string => {
    const [x, y] = [version(a), version(b)];
    for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0) ? a : b;
    return a;
  };
  return all.reduce((w, f) => ({
    redisVersion: older(w.redisVersion, f.redisVersion),
    aofEnabled: w.aofEnabled && f.aofEnabled,
    appendfsync: fsyncRank(f.appendfsync) < fsyncRank(w.appendfsync) || (f.appendfsync === undefined && fsyncRank(w.appendfsync) === 2) ? f.appendfsync : w.appendfsync,
    connectedReplicas: Math.min(w.connectedReplicas, f.connectedReplicas),
    maxmemoryPolicy: w.maxmemoryPolicy !== undefined && w.maxmemoryPolicy !== 'noeviction' ? w.maxmemoryPolicy : (f.maxmemoryPolicy ?? w.maxmemoryPolicy),
  }));
}

async function readNodeFacts(redis: Redis): Promise<RedisDurabilityFacts> {
  const [server, persistence, replication, memory] = await Promise.all([
    redis.info('server'),
    redis.info('persistence'),
    redis.info('replication'),
    redis.info('memory'),
  ]);
  const s = parseInfo(server);
  const p = parseInfo(persistence);
  const r = parseInfo(replication);
  const m = parseInfo(memory);

  let appendfsync: RedisDurabilityFacts['appendfsync'];
  try {
    // CONFIG GET answers [name, value, …]; an unknown parameter answers [].
    const reply = (await redis.config('GET', 'appendfsync')) as unknown;
    const value = Array.isArray(reply) ? reply[1] : undefined;
    if (value === 'always' || value === 'everysec' || value === 'no') appendfsync = value;
  } catch (err) {
    if (!(await isReplyError(err))) throw err;
  }

  return {
    redisVersion: s.redis_version ?? '0.0.0',
    aofEnabled: p.aof_enabled === '1',
    appendfsync,
    connectedReplicas: r.role === 'master' ? Number.parseInt(r.connected_slaves ?? '0', 10) || 0 : 0,
    maxmemoryPolicy: m.maxmemory_policy,
  };
}

/** `key:value` lines of an INFO section; `#` headers and blank lines skipped. */
function parseInfo(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (!line || line.startsWith('#')) continue;
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

/**
 * Makes the note just written durable, as the decision says, or throws `RedisNotDurableError`
 * (`reason: 'unconfirmed'`) so that the caller does not send.
 *
 * WAIT and WAITAOF count the writes of the connection they are sent on: call this on the very
 * connection (ioredis `Redis`) that wrote the note, after the note's reply; on a Redis Cluster,
 * the connection to the node that owns the note's slot (`nodeForKey`, which `Ledger` passes). Both block that
 * connection for up to `timeoutMs`. A timeout of 0 would mean "forever" to Redis; it is never sent.
 */
export async function confirmNote(redis: Redis, decision: DurabilityDecision, timeoutMs: number): Promise<void> {
  const timeout = Math.max(1, Math.ceil(timeoutMs));
  switch (decision.mode) {
    case 'aof-always':
      // The server fsynced before it answered the note's write.
      break;
    case 'waitaof': {
      const reply = await ask(redis, ['WAITAOF', '1', '0', String(timeout)]);
      const local = Array.isArray(reply) ? Number(reply[0]) : 0;
      if (local < 1) {
        throw new RedisNotDurableError(
          'unconfirmed',
          `Redis did not confirm within ${timeout} ms that the ledger's note is on disk (WAITAOF 1 0 answered ${JSON.stringify(reply)}); the record was not sent. ` +
            'Check that AOF is still on (`redis-cli CONFIG GET appendonly`) and that the disk is not stalled, then run the import again.',
        );
      }
      break;
    }
    case 'replica':
    case 'aof-everysec':
    case 'volatile':
      break;
    case 'refuse':
      throw new RedisNotDurableError('refused', decision.message);
  }
  const replicas = 'replicas' in decision ? (decision.replicas ?? 0) : 0;
  if (replicas > 0) {
    const acked = Number(await ask(redis, ['WAIT', '1', String(timeout)]));
    if (!(acked >= 1)) {
      throw new RedisNotDurableError(
        'unconfirmed',
        `no Redis replica confirmed the ledger's note within ${timeout} ms (WAIT 1 answered ${acked}; ${replicas} replica${replicas === 1 ? ' was' : 's were'} connected at start); the record was not sent. ` +
          'Check the replica (`redis-cli INFO replication` on the master should show connected_slaves:1 or more), then run the import again.',
      );
    }
  }
}

/** A refused WAIT/WAITAOF (an ACL without it, a renamed command) is a durability failure too, not a crash. */
async function ask(redis: Redis, [command, ...args]: [string, ...string[]]): Promise<unknown> {
  try {
    return await redis.call(command, ...args);
  } catch (err) {
    if (!(await isReplyError(err))) throw err;
    throw new RedisNotDurableError(
      'unconfirmed',
      `Redis refused ${command}, which confirms that the ledger's note is durable (${(err as Error).message}); the record was not sent. ` +
        `Allow ${command} for this Redis user (ACL \`+${command.toLowerCase()}\`) and run the import again.`,
      { cause: err },
    );
  }
}
