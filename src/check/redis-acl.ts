/**
 * The Redis ACL check: the table of every command buildsync needs (`REDIS_NEEDS`), and the probe
 * that runs each inside a MULTI that is then discarded, on the one Redis or on every master of a
 * cluster. Redis checks ACL permissions when it queues a command, so a refusal shows without
 * anything being executed.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { keySlot, masterNodes, queuePrefix, type RedisConnection } from '../redis-layout.ts';
import type { DurabilityDecision } from '../ledger/durability.ts';
import { describeRedisError, redisUser } from '../queue/redis-errors.ts';
import { error, ok, redisReplyText, type CheckFinding } from './finding.ts';

/** Whatever Redis refuses is a Redis that refuses: exit 2, like a command that meets it. */
const REDIS = 'BUILDSYNC_REDIS_UNAVAILABLE';

/** A command buildsync sends (directly, or from a Lua script of BullMQ, the ledger or the budget). */
export interface RedisNeed {
  /** As ACL rules name it: `hset`, `client|list`. */
  command: string;
  /** Arguments that make a valid call; `key` and `other` are keys under the prefix that do not exist. */
  args: (key: string, other: string) => string[];
  /**
   * The ACL category through which the least-privilege rule of docs/operators.md grants it (`@read`,
   * `@write`, `@transaction`, …); none for a command granted alone because every category it is
   * in holds far more (INFO and CLIENT LIST are @dangerous, TIME only @fast).
   */
  category?: string;
  /** What needs it, for the message. */
  usedBy: string;
}

const SCRIPT = 'return 1';
const SCRIPT_SHA = createHash('sha1').update(SCRIPT).digest('hex');

const need = (category: string | undefined, usedBy: string, list: Array<[string, RedisNeed['args']]>): RedisNeed[] =>
  list.map(([command, args]) => ({ command, args, usedBy, ...(category ? { category } : {}) }));

const DATA = 'BullMQ, the ledger and the budget';
const DATA_USE = 'the queues, the ledger and the budget';

/**
 * Every command buildsync needs on a least-privilege user (docs/operators.md, "Redis ACL for a
 * least-privilege user"): the ones BullMQ's Lua scripts and client call, the ledger's and the
 * budget's scripts and reads, and the connection and server commands around them. Scripts run
 * with the caller's ACL, so the commands inside them count as much as EVALSHA itself.
 */
export const REDIS_NEEDS: readonly RedisNeed[] = [
  ...need('@connection', 'checking that Redis answers', [['ping', () => []]]),
  ...need(undefined, "BullMQ's version check, ioredis' ready check and the durability check", [['info', () => ['persistence']]]),
  ...need(undefined, 'counting running workers (BullMQ)', [['client|list', () => []]]),
  ...need('@connection', 'naming worker connections (BullMQ)', [['client|setname', () => ['buildsync-check']]]),
  ...need(undefined, "the server clock in the ledger's and the budget's scripts", [['time', () => []]]),
  ...need('@scripting', `the Lua scripts of ${DATA} (called by SHA, sent whole when the server lacks them)`, [
    ['evalsha', (k) => [SCRIPT_SHA, '1', k]],
    ['eval', (k) => [SCRIPT, '1', k]],
  ]),
  ...need('@read', DATA_USE, [
    ['hget', (k) => [k, 'f']],
    ['hmget', (k) => [k, 'f', 'g']],
    ['hgetall', (k) => [k]],
    ['hscan', (k) => [k, '0', 'COUNT', '10']],
    ['hexists', (k) => [k, 'f']],
    ['hlen', (k) => [k]],
    ['get', (k) => [k]],
    ['exists', (k) => [k]],
    ['type', (k) => [k]],
    ['pttl', (k) => [k]],
    ['scan', (k) => ['0', 'MATCH', `${k}*`, 'COUNT', '10']],
    ['zrange', (k) => [k, '0', '-1']],
    ['zrangebyscore', (k) => [k, '-inf', '+inf']],
    ['zrevrangebyscore', (k) => [k, '+inf', '-inf']],
    ['zrevrange', (k) => [k, '0', '-1']],
    ['zrangebylex', (k) => [k, '-', '+']],
    ['zlexcount', (k) => [k, '-', '+']],
    ['zcount', (k) => [k, '-inf', '+inf']],
    ['zcard', (k) => [k]],
    ['zscore', (k) => [k, 'm']],
    ['lrange', (k) => [k, '0', '-1']],
    ['llen', (k) => [k]],
    ['lindex', (k) => [k, '0']],
    ['lpos', (k) => [k, 'x']],
    ['smembers', (k) => [k]],
    ['scard', (k) => [k]],
    ['sismember', (k) => [k, 'm']],
    ['xread', (k) => ['COUNT', '1', 'STREAMS', k, '0']],
    ['xrange', (k) => [k, '-', '+', 'COUNT', '1']],
    ['xlen', (k) => [k]],
  ]),
  ...need('@write', DATA_USE, [
    ['hset', (k) => [k, 'f', 'v']],
    ['hsetnx', (k) => [k, 'f', 'v']],
    ['hmset', (k) => [k, 'f', 'v']],
    ['hincrby', (k) => [k, 'f', '1']],
    ['hdel', (k) => [k, 'f']],
    ['set', (k) => [k, 'v', 'PX', '1000', 'NX']],
    ['incr', (k) => [k]],
    ['incrby', (k) => [k, '1']],
    ['del', (k) => [k]],
    ['unlink', (k) => [k]],
    ['expire', (k) => [k, '60']],
    ['pexpire', (k) => [k, '60000']],
    ['pexpireat', (k) => [k, String(Date.now() + 60_000)]],
    ['persist', (k) => [k]],
    ['rename', (k, o) => [k, o]],
    ['copy', (k, o) => [k, o, 'REPLACE']],
    ['zadd', (k) => [k, '1', 'm']],
    ['zrem', (k) => [k, 'm']],
    ['zremrangebyscore', (k) => [k, '-inf', '0']],
    ['zremrangebyrank', (k) => [k, '0', '0']],
    ['zpopmin', (k) => [k]],
    ['bzpopmin', (k) => [k, '1']],
    ['lpush', (k) => [k, 'x']],
    ['rpush', (k) => [k, 'x']],
    ['lpop', (k) => [k]],
    ['rpop', (k) => [k]],
    ['rpoplpush', (k, o) => [k, o]],
    ['lrem', (k) => [k, '0', 'x']],
    ['ltrim', (k) => [k, '0', '-1']],
    ['lset', (k) => [k, '0', 'x']],
    ['sadd', (k) => [k, 'm']],
    ['srem', (k) => [k, 'm']],
    ['xadd', (k) => [k, 'MAXLEN', '~', '10', '*', 'f', 'v']],
    ['xtrim', (k) => [k, 'MAXLEN', '~', '10']],
    ['xdel', (k) => [k, '0-1']],
  ]),
];

/** Commands the durability decision adds: a replica's WAIT, and WAITAOF on Redis 7.2 and later. */
export function durabilityNeeds(decision: DurabilityDecision | undefined): RedisNeed[] {
  if (!decision || decision.mode === 'refuse') return [];
  const out: RedisNeed[] = [];
  if (decision.mode === 'waitaof') out.push({ command: 'waitaof', args: () => ['1', '0', '1'], category: '@connection', usedBy: 'confirming that each ledger note is on disk' });
  if (decision.mode === 'replica' || ('replicas' in decision && (decision.replicas ?? 0) > 0)) {
    out.push({ command: 'wait', args: () => ['1', '1'], category: '@connection', usedBy: 'confirming that each ledger note reached a replica' });
  }
  return out;
}


/**
 * The permission check on every master of a cluster (ACL users are per node: a user created on
 * one node only is refused by the others), with probe keys in that master's slots: the account
 * layout `PREFIX:{tag}:check:…` on each, and the queues' `{PREFIX}:check:…` on the master that
 * holds the queues.
 */
export async function checkClusterPermissions(
  cluster: RedisConnection,
  opts: { prefix: string; url: string; needs: readonly RedisNeed[] },
): Promise<CheckFinding[]> {
  const findings: CheckFinding[] = [];
  const queueHead = `${queuePrefix(cluster, opts.prefix)}:check:${randomUUID().slice(0, 8)}`;
  const queueNode = nodeOfSlot(cluster, keySlot(queueHead));
  let okCount = 0;
  for (const node of masterNodes(cluster)) {
    const where = `${node.options.host}:${node.options.port}`;
    const tag = tagOnNode(cluster, where);
    const base = `${opts.prefix}:{${tag}}:check:${randomUUID().slice(0, 8)}`;
    const found = await checkRedisPermissions(node, { ...opts, keys: [`${base}:a`, `${base}:b`] });
    if (where === queueNode) {
      const queueKeys = await checkRedisPermissions(node, {
        ...opts,
        needs: opts.needs.filter((n) => n.command === 'hset' || n.command === 'rename'),
        keys: [`${queueHead}:a`, `${queueHead}:b`],
        keysShown: `${queuePrefix(cluster, opts.prefix)}:`,
      });
      found.push(...queueKeys.filter((f) => f.level !== 'ok'));
    }
    if (found.every((f) => f.level === 'ok')) okCount++;
    else for (const f of found) if (f.level !== 'ok') findings.push({ ...f, message: `cluster node ${where}: ${f.message}` });
  }
  if (findings.length === 0) {
    findings.push(
      ok('redis-acl', `user ${redisUser(opts.url)} may run the ${opts.needs.length + 1} commands buildsync uses on every master (${okCount}), on keys under ${opts.prefix}: and ${queuePrefix(cluster, opts.prefix)}:`),
    );
  }
  return findings;
}

/** The master (`host:port`) that serves `slot`, as the cluster client knows it. */
function nodeOfSlot(cluster: RedisConnection, slot: number): string | undefined {
  return 'slots' in cluster ? cluster.slots[slot]?.[0] : undefined;
}

/** A hash tag whose slot the master `where` serves, so that probe keys land on that node. */
function tagOnNode(cluster: RedisConnection, where: string): string {
  for (let i = 0; i < 100_000; i++) {
    const tag = `check-${i}`;
    if (nodeOfSlot(cluster, keySlot(`{${tag}}`)) === where) return tag;
  }
  return 'check';
}

/**
 * Runs every need inside a MULTI that is then discarded: Redis refuses a command it may not run
 * (NOPERM, for the command or for a key) when it is queued, and nothing queued is executed.
 * Returns one finding per ACL category with missing commands (and one per command granted alone).
 */
export async function checkRedisPermissions(
  redis: Redis,
  opts: {
    prefix: string;
    /** REDIS_URL: it names the user, and the read-only replica in a refusal. */
    url: string;
    needs?: readonly RedisNeed[];
    /** The two probe keys (they must share a slot on a cluster). @defaultValue `PREFIX:check:<random>:a` and `:b` */
    keys?: [string, string];
    /** The key prefix named in a refusal. @defaultValue `PREFIX:` */
    keysShown?: string;
  },
): Promise<CheckFinding[]> {
  const needs = opts.needs ?? REDIS_NEEDS;
  const user = redisUser(opts.url);
  const base = `${opts.prefix}:check:${randomUUID().slice(0, 8)}`;
  const [key, other] = opts.keys ?? [`${base}:a`, `${base}:b`];
  const shown = opts.keysShown ?? `${opts.prefix}:`;
  const denied = new Map<string, RedisNeed[]>();
  let keysDenied = false;
  let readonly: unknown;
  const unknown: string[] = [];
  const otherErrors: string[] = [];

  try {
    await redis.call('MULTI');
  } catch (err) {
    const text = redisReplyText(err);
    if (/NOPERM/.test(text)) {
      return [
        error(
          'redis-acl',
          REDIS,
          `Redis user ${user} may not run MULTI (NOPERM), which BullMQ and the import bookkeeping need (ACL category @transaction). Grant it: ACL SETUSER ${user} +@transaction. The other commands cannot be checked without it.`,
        ),
      ];
    }
    return [error('redis-acl', REDIS, `Redis refused MULTI (${text}); the permissions could not be checked.`)];
  }
  try {
    for (const n of needs) {
      try {
        const [command, ...sub] = commandWords(n.command);
        await redis.call(command, ...sub, ...n.args(key, other));
      } catch (err) {
        const text = redisReplyText(err);
        // Redis checks the command before the keys: a key refusal means the command itself is allowed.
        if (/NOPERM/.test(text) && /\bkeys?\b/i.test(text)) keysDenied = true;
        else if (/NOPERM/.test(text)) {
          const group = n.category ?? `+${n.command}`;
          denied.set(group, [...(denied.get(group) ?? []), n]);
        } else if (/unknown command|unknown subcommand/i.test(text)) unknown.push(n.command.toUpperCase());
        else if (/READONLY/.test(text)) readonly = err;
        else otherErrors.push(`${n.command.toUpperCase()}: ${text}`);
      }
    }
  } finally {
    await redis.call('DISCARD').catch(() => undefined);
  }

  const findings: CheckFinding[] = [];
  const see = 'see docs/operators.md, "Redis ACL for a least-privilege user"';
  if (readonly) {
    findings.push(error('redis-acl', REDIS, describeRedisError(readonly, opts.url).message));
  }
  if (keysDenied) {
    findings.push(
      error('redis-acl', REDIS, `Redis user ${user} may not use the keys buildsync works with (NOPERM for keys under ${shown}, the BUILDSYNC_PREFIX). Grant them: ACL SETUSER ${user} ~${shown}*`),
    );
  }
  for (const [group, list] of denied) {
    const names = list.map((n) => n.command.toUpperCase().replace('|', ' '));
    const usedBy = [...new Set(list.map((n) => n.usedBy))].join('; ');
    const them = list.length > 1 ? 'them' : 'it';
    const category = group.startsWith('@') ? `ACL category ${group}; ` : '';
    findings.push(
      error(
        'redis-acl',
        REDIS,
        `Redis user ${user} may not run ${names.join(', ')} (NOPERM), needed for ${usedBy}. Grant ${them}: ACL SETUSER ${user} ${list.map((n) => `+${n.command}`).join(' ')} (${category}${see})`,
      ),
    );
  }
  if (unknown.length) {
    findings.push(
      error('redis-acl', REDIS, `Redis does not know ${unknown.join(', ')} (renamed or disabled on this server, or a server older than Redis 7): buildsync needs ${unknown.length > 1 ? 'them' : 'it'}.`),
    );
  }
  if (otherErrors.length) findings.push(error('redis-acl', REDIS, `Redis refused commands buildsync needs: ${otherErrors.join('; ')}`));
  if (findings.length === 0) {
    findings.push(ok('redis-acl', `user ${user} may run the ${needs.length + 1} commands buildsync uses (BullMQ, the ledger, the budget) on keys under ${opts.prefix}:`));
  }
  return findings;
}

/** `client|list` → ['CLIENT', 'LIST']. */
function commandWords(command: string): [string, ...string[]] {
  const [first = command, ...rest] = command.toUpperCase().split('|');
  return [first, ...rest];
}

