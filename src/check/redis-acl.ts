/**
 * The Redis ACL check: the probe that runs each command of the table of what buildsync needs
 * (`REDIS_NEEDS`, src/redis/acl.ts) inside a MULTI that is then discarded, on the one Redis or on every master of a
 * cluster. Redis checks ACL permissions when it queues a command, so a refusal shows without
 * anything being executed.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { keySlot, masterNodes, queuePrefix, type RedisConnection } from '../redis/layout.ts';
import type { DurabilityDecision } from '../ledger/durability.ts';
import { describeRedisError, redisUser } from '../redis/failures.ts';
import { MULTI_NEED, REDIS_NEEDS, SEE_ACL, WAIT_NEED, WAITAOF_NEED, type RedisNeed } from '../redis/acl.ts';
import { error, ok, redisReplyText, type CheckFinding } from './finding.ts';

/** Whatever Redis refuses is a Redis that refuses: exit 2, like a command that meets it. */
const REDIS = 'BUILDSYNC_REDIS_UNAVAILABLE';

/** Commands the durability decision adds: a replica's WAIT, and WAITAOF on Redis 7.2 and later. */
export function durabilityNeeds(decision: DurabilityDecision | undefined): RedisNeed[] {
  if (!decision || decision.mode === 'refuse') return [];
  const out: RedisNeed[] = [];
  if (decision.mode === 'waitaof') out.push(WAITAOF_NEED);
  if (decision.mode === 'replica' || ('replicas' in decision && (decision.replicas ?? 0) > 0)) out.push(WAIT_NEED);
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
          `Redis user ${user} may not run MULTI (NOPERM), which ${MULTI_NEED.usedBy} need (ACL category ${MULTI_NEED.category}). Grant it: ACL SETUSER ${user} +${MULTI_NEED.category}. The other commands cannot be checked without it.`,
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
        `Redis user ${user} may not run ${names.join(', ')} (NOPERM), needed for ${usedBy}. Grant ${them}: ACL SETUSER ${user} ${list.map((n) => `+${n.command}`).join(' ')} (${category}${SEE_ACL})`,
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

