/**
 * The one table of what buildsync needs of a Redis user (docs/operators.md, "Redis ACL for a
 * least-privilege user"): every command it sends, the ACL category through which the documented
 * rule grants it, and what needs it. `buildsync check` probes each (src/check/redis-acl.ts); a
 * command refused at run time is advised from the same rows (`aclAdvice`, used by
 * `describeRedisError`), so the check and the failure never disagree.
 *
 * A category is the one the documented rule grants the command through, which is one of those
 * Redis lists for it (`COMMAND INFO`): BZPOPMIN is in @write, @sortedset, @fast and @blocking,
 * and the rule grants it with `+@write`.
 */
import { createHash } from 'node:crypto';

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

/**
 * Commands outside `REDIS_NEEDS` that a refusal may still name: MULTI (checked first by the probe
 * itself), WAIT and WAITAOF (added by the durability decision), CONFIG GET (optional).
 */
export const MULTI_NEED: RedisNeed = { command: 'multi', args: () => [], category: '@transaction', usedBy: 'BullMQ and the import bookkeeping' };
export const WAIT_NEED: RedisNeed = { command: 'wait', args: () => ['1', '1'], category: '@connection', usedBy: 'confirming that each ledger note reached a replica' };
export const WAITAOF_NEED: RedisNeed = { command: 'waitaof', args: () => ['1', '0', '1'], category: '@connection', usedBy: 'confirming that each ledger note is on disk' };
const CONFIG_GET_NEED: RedisNeed = {
  command: 'config|get',
  args: () => ['appendfsync'],
  usedBy: 'reading appendfsync (optional: without it the tool takes it as everysec and warns)',
};

const EVERY_NEED: readonly RedisNeed[] = [...REDIS_NEEDS, MULTI_NEED, WAIT_NEED, WAITAOF_NEED, CONFIG_GET_NEED];

/** Where the least-privilege rule is explained, for every piece of ACL advice. */
export const SEE_ACL = 'see docs/operators.md, "Redis ACL for a least-privilege user"';

/**
 * The ACL rule that grants `command` (as Redis names it in a refusal: `hset`, `config|get`, or
 * `config` alone), with the category the documented rule grants it through and what needs it:
 * `+bzpopmin (ACL category @write; needed for …; see docs/operators.md, …)`.
 */
export function aclAdvice(command: string): string {
  const c = command.toLowerCase();
  const n = EVERY_NEED.find((x) => x.command === c) ?? EVERY_NEED.find((x) => x.command.split('|')[0] === c);
  if (!n) return `+${c} (${SEE_ACL})`;
  return `+${n.command} (${n.category ? `ACL category ${n.category}; ` : ''}needed for ${n.usedBy}; ${SEE_ACL})`;
}
