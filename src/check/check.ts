/**
 * `buildsync check` (CONTRACT.md §2) as plain functions: each check returns findings, one per
 * problem, each saying what to do; `runChecks` runs them in order and settles the exit code. The
 * CLI only prints. Nothing here writes: Redis commands that would write are only queued inside a
 * MULTI that is discarded (Redis checks ACL permissions when it queues a command, so a refusal
 * shows without anything being executed), and the service gets one GET.
 */
import { withTimeout } from '../with-timeout.ts';
import { createHash, randomUUID } from 'node:crypto';
import { Redis, ReplyError } from 'ioredis';
import { keySlot, masterNodes, newCluster, queuePrefix, type RedisConnection } from '../redis-layout.ts';
import { ServiceClient } from '../api/index.ts';
import { DEFAULTS, allowVolatileRedis, loadConfig, requireService, type AppConfig, type Env, type ServiceAccount } from '../config.ts';
import { knob } from '../knobs.ts';
import {
  AuthError,
  BuildsyncError,
  ConfigError,
  HttpError,
  NetworkError,
  NotFoundError,
  RateLimitError,
  ServerError,
  ThrottledError,
  coerceError,
  formatWait,
  redactUrl,
} from '../errors/index.ts';
import { durabilityDecision, readDurabilityFacts, type DurabilityDecision, type RedisDurabilityFacts } from '../ledger/durability.ts';
import { AccountThrottle, THROTTLE_DEFAULTS, budgetUsedReason, formatLimits, type BudgetStatus } from '../throttle/index.ts';

export type CheckName = 'config' | 'redis' | 'redis-acl' | 'redis-durability' | 'service' | 'budget';
export type CheckLevel = 'ok' | 'warning' | 'error';
/** CONTRACT.md §2: 2 configuration or Redis, 3 credentials refused, 4 service unreachable or failing. */
export type CheckExitCode = 0 | 2 | 3 | 4;

/** One finding: a check that passed, a warning, or one problem with what to do about it. */
export interface CheckFinding {
  name: CheckName;
  /** False only for `error`. */
  ok: boolean;
  level: CheckLevel;
  /** One line (a few for a problem the durability rule words in several); never a secret. */
  message: string;
  /** For an `error`: the exit code it calls for. */
  exitCode?: Exclude<CheckExitCode, 0>;
}

export interface CheckReport {
  /** True when the exit code is 0 (warnings allowed). */
  ok: boolean;
  exitCode: CheckExitCode;
  checks: CheckFinding[];
}

export interface CheckOptions {
  /** `--account NAME`; `default` without it. */
  account?: string;
  allowInsecureHttp?: boolean;
  /** Where the variables are read. @defaultValue readEnv() (the environment over .env) */
  env?: Env;
  /**
   * BUILDSYNC_ALLOW_VOLATILE_REDIS=1: a Redis that would lose the ledger is a warning, not an error.
   * @defaultValue the variable, read as the import and the workers read it
   */
  allowVolatile?: boolean;
  /** BUILDSYNC_TIME_SCALE, the test knob that shortens the budget's windows. @defaultValue the variable (knobs.ts) */
  timeScale?: number;
  signal?: AbortSignal;
  /** Headers and body timeout of the service request. @defaultValue 15_000 */
  serviceTimeoutMs?: number;
}

/** Service request timeout and connect timeout of the check's Redis: a check answers in seconds. */
export const CHECK_DEFAULTS = {
  serviceTimeoutMs: 15_000,
  /** One retry: enough to tell a blip from a failure, and at most two budget tokens. */
  serviceRetries: 1,
  redisConnectTimeoutMs: 3_000,
  redisAnswerTimeoutMs: 5_000,
} as const;

const ok = (name: CheckName, message: string): CheckFinding => ({ name, ok: true, level: 'ok', message });
const warning = (name: CheckName, message: string): CheckFinding => ({ name, ok: true, level: 'warning', message });
const error = (name: CheckName, exitCode: 2 | 3 | 4, message: string): CheckFinding => ({ name, ok: false, level: 'error', message, exitCode });

/** The first of 2, 3, 4 among the errors (they happen to be in numeric order), or 0. */
export function checkExitCode(findings: readonly CheckFinding[]): CheckExitCode {
  const codes = findings.flatMap((f) => (f.level === 'error' && f.exitCode ? [f.exitCode] : []));
  return codes.length ? (Math.min(...codes) as CheckExitCode) : 0;
}

/** Runs every check in order; a check that cannot run for an earlier problem says so as a warning. */
export async function runChecks(opts: CheckOptions): Promise<CheckReport> {
  const findings: CheckFinding[] = [];
  const config = checkConfig(opts);
  findings.push(...config.findings);
  if (!config.cfg) {
    for (const name of ['redis', 'service', 'budget'] as const) findings.push(warning(name, 'not checked: the configuration above cannot be read'));
    return report(findings);
  }
  const cfg = config.cfg;
  // Read once loadConfig has checked them, so that a bad value is the config finding above.
  const allowVolatile = opts.allowVolatile ?? allowVolatileRedis(opts.env);
  const timeScale = opts.timeScale ?? knob('BUILDSYNC_TIME_SCALE', opts.env);

  const redisCheck = await checkRedis(cfg, { allowVolatile });
  findings.push(...redisCheck.findings);
  const redis = redisCheck.redis;
  try {
    let throttle: AccountThrottle | undefined;
    let status: BudgetStatus | undefined;
    let noToken: string | undefined;
    let budgetProblem: CheckFinding | undefined;
    if (redis) {
      throttle = new AccountThrottle({ redis, account: cfg.account.name, limits: cfg.account.limits, prefix: cfg.prefix, timeScale });
      try {
        status = await throttle.status();
      } catch (err) {
        const text = redisReplyText(err);
        budgetProblem =
          /NOPERM/.test(text)
            ? warning('budget', `not checked: Redis refused the budget's script (${text}; see redis-acl)`)
            : error('budget', 2, `cannot read the budget of account ${cfg.account.name} from Redis: ${text}`);
        throttle = undefined;
        noToken = 'no budget token taken: the budget cannot be read from Redis';
      }
    } else {
      noToken = 'no budget token taken: Redis did not answer';
    }

    if (config.account) {
      findings.push(await checkService(config.account, { throttle, status, noToken, signal: opts.signal, timeoutMs: opts.serviceTimeoutMs }));
    } else {
      findings.push(warning('service', 'not checked: the service settings above are incomplete'));
    }

    if (throttle) findings.push(await checkBudget(throttle, cfg.account.limitsText));
    else if (budgetProblem) findings.push(budgetProblem);
    else if (!redis) findings.push(warning('budget', 'not checked: Redis did not answer'));
  } finally {
    redis?.disconnect();
  }
  return report(findings);
}

function report(findings: CheckFinding[]): CheckReport {
  const exitCode = checkExitCode(findings);
  return { ok: exitCode === 0, exitCode, checks: findings };
}

// ---------------------------------------------------------------------------------------------
// 1. configuration

/**
 * The variables of CONTRACT.md §1 for the account: `cfg` when they can be read at all, `account`
 * when the service settings are complete. The messages name variables, never their secret values.
 */
export function checkConfig(opts: Pick<CheckOptions, 'account' | 'allowInsecureHttp' | 'env'>): {
  findings: CheckFinding[];
  cfg?: AppConfig;
  account?: ServiceAccount;
} {
  let cfg: AppConfig;
  try {
    cfg = loadConfig({ account: opts.account, env: opts.env });
  } catch (err) {
    return { findings: [error('config', 2, configMessage(err))] };
  }
  try {
    const account = requireService(cfg.account, { allowInsecureHttp: opts.allowInsecureHttp });
    const limits = formatLimits(cfg.account.limits);
    return {
      cfg,
      account,
      findings: [
        ok('config', `account ${account.name}: the service at ${account.baseUrl} as ${account.email} (password and API key set); budget ${limits}; Redis ${redactUrl(cfg.redisUrl)}, key prefix ${cfg.prefix}`),
      ],
    };
  } catch (err) {
    return { cfg, findings: [error('config', 2, configMessage(err))] };
  }
}

function configMessage(err: unknown): string {
  const e = coerceError(err);
  // ConfigError messages name the variable and what to write; anything else is unexpected.
  return e instanceof ConfigError ? e.message : `cannot read the configuration: ${e.message}`;
}

// ---------------------------------------------------------------------------------------------
// 2. Redis

/** A command buildsync sends (directly, or from a Lua script of BullMQ, the ledger or the budget). */
export interface RedisNeed {
  /** As ACL rules name it: `hset`, `client|list`. */
  command: string;
  /** Arguments that make a valid call; `key` and `other` are keys under the prefix that do not exist. */
  args: (key: string, other: string) => string[];
  /**
   * The ACL category through which the README's least-privilege rule grants it (`@read`,
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
 * Every command buildsync needs on a least-privilege user (README, "Redis ACL for a
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
function durabilityNeeds(decision: DurabilityDecision | undefined): RedisNeed[] {
  if (!decision || decision.mode === 'refuse') return [];
  const out: RedisNeed[] = [];
  if (decision.mode === 'waitaof') out.push({ command: 'waitaof', args: () => ['1', '0', '1'], category: '@connection', usedBy: 'confirming that each ledger note is on disk' });
  if (decision.mode === 'replica' || ('replicas' in decision && (decision.replicas ?? 0) > 0)) {
    out.push({ command: 'wait', args: () => ['1', '1'], category: '@connection', usedBy: 'confirming that each ledger note reached a replica' });
  }
  return out;
}

/**
 * Redis reachable, credentials accepted, every needed command permitted, and a set-up that keeps
 * the ledger (persistence, eviction). `redis` is the open connection when Redis answered; the
 * caller disconnects it.
 */
export async function checkRedis(
  cfg: Pick<AppConfig, 'redisUrl' | 'prefix'> & Partial<Pick<AppConfig, 'redisCluster'>>,
  opts: { allowVolatile: boolean },
): Promise<{ findings: CheckFinding[]; redis?: RedisConnection }> {
  const url = cfg.redisUrl;
  const user = redisUser(url);
  const opened = cfg.redisCluster ? await openCheckCluster(url) : await openCheckRedis(url);
  if ('problem' in opened) return { findings: [error('redis', 2, opened.problem)] };
  const redis = opened.redis;

  let facts: RedisDurabilityFacts | undefined;
  let factsError: unknown;
  try {
    facts = await readDurabilityFacts(redis);
  } catch (err) {
    factsError = err;
  }
  const decision = facts ? durabilityDecision(facts, { allowVolatile: opts.allowVolatile }) : undefined;

  const masters = masterNodes(redis);
  const findings: CheckFinding[] = [
    ok(
      'redis',
      `${redactUrl(url)} answers${facts ? ` (Redis ${facts.redisVersion}${redis.isCluster ? `, the weakest of ${masters.length} masters` : ''})` : ''}${redis.isCluster ? `; a Redis Cluster of ${masters.length} masters` : ''}; user ${user} accepted`,
    ),
  ];
  const needs = [...REDIS_NEEDS, ...durabilityNeeds(decision)];
  if (redis.isCluster) findings.push(...(await checkClusterPermissions(redis, { prefix: cfg.prefix, user, needs })));
  else findings.push(...(await checkRedisPermissions(redis as Redis, { prefix: cfg.prefix, user, needs })));
  if (!facts) {
    const text = redisReplyText(factsError);
    // A refused INFO is already a redis-acl problem; counting it twice would not help.
    findings.push(
      /NOPERM/.test(text)
        ? warning('redis-durability', `not checked: reading persistence and eviction policy needs INFO (${text}; see redis-acl)`)
        : error('redis-durability', 2, `cannot read Redis's persistence and eviction policy (INFO): ${text}`),
    );
  } else {
    findings.push(...durabilityFindings(facts, decision!));
  }
  return { findings, redis };
}

/**
 * A connection of its own for the check: one attempt, no reconnects, no ready check (the INFO of
 * ioredis' ready check would print its own warning for a user without INFO; the permissions check
 * names INFO instead). Every error event is kept, since the one the command fails with ("Connection
 * is closed") hides the cause.
 */
async function openCheckRedis(url: string): Promise<{ redis: Redis } | { problem: string }> {
  const seen: Error[] = [];
  const redis = new Redis(url, {
    lazyConnect: true,
    enableReadyCheck: false,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 0,
    connectTimeout: CHECK_DEFAULTS.redisConnectTimeoutMs,
    retryStrategy: () => null,
  });
  redis.on('error', (err: Error) => seen.push(err));
  try {
    await withTimeout(
      redis.connect().then(() => redis.ping()),
      CHECK_DEFAULTS.redisAnswerTimeoutMs,
    );
    return { redis };
  } catch (err) {
    redis.disconnect();
    return { problem: describeRedisFailure(url, [...seen, coerceError(err)]) };
  }
}

/** What went wrong connecting to Redis, from every error seen, with what to do. */
export function describeRedisFailure(url: string, errors: readonly Error[]): string {
  const where = redactUrl(url);
  const user = redisUser(url);
  const hasPassword = (() => {
    try {
      return new URL(url).password !== '';
    } catch {
      return false;
    }
  })();
  const text = errors.map((e) => `${(e as { code?: unknown }).code ?? ''} ${e.name} ${e.message}`).join('\n');
  const tls = url.startsWith('rediss:');
  if (/WRONGPASS/.test(text)) {
    return `Redis at ${where} refused the user name or password (WRONGPASS): user ${user} does not exist, is disabled, or its password is wrong. Correct REDIS_URL (redis://USER:PASSWORD@HOST:PORT; the password part is URL-encoded).`;
  }
  if (/NOAUTH/.test(text)) {
    return `Redis at ${where} requires a password (NOAUTH)${hasPassword ? '' : ' and REDIS_URL gives none'}. Put it in REDIS_URL: redis://USER:PASSWORD@HOST:PORT (user default when the server only has requirepass).`;
  }
  if (/NOPERM/.test(text)) {
    return `Redis at ${where} lets user ${user} log in but not run PING (NOPERM). Grant it: ACL SETUSER ${user} +@connection (and see the README for everything buildsync needs).`;
  }
  if (/LOADING/.test(text)) return `Redis at ${where} is loading its data set into memory (LOADING); run check again in a moment.`;
  if (/ECONNREFUSED/.test(text)) {
    return `no Redis answers at ${where} (connection refused). Start one (redis-server --daemonize yes) or set REDIS_URL to where it runs.`;
  }
  if (/ENOTFOUND|EAI_AGAIN|EAI_NONAME/.test(text)) return `the host of REDIS_URL (${where}) is not found (DNS). Check the host name in REDIS_URL.`;
  if (/EPROTO|SSL|TLS|certificate|self.signed|UNABLE_TO_VERIFY|ERR_TLS/i.test(text)) {
    const first = errors.find((e) => /EPROTO|SSL|TLS|certificate|self.signed|UNABLE_TO_VERIFY/i.test(`${(e as { code?: unknown }).code ?? ''} ${e.message}`));
    return `the TLS connection to ${where} failed (${first?.message.split('\n')[0] ?? 'TLS error'}). If the server speaks plain Redis, use redis:// instead of rediss://; if it needs TLS, check its certificate.`;
  }
  if (/ParserError|Protocol error/.test(text)) {
    return tls
      ? `something at ${where} answers, but not as Redis over TLS. Check the port in REDIS_URL.`
      : `something at ${where} answers, but not as plain Redis (a TLS-only server, or another service on that port). If the server expects TLS, use rediss://; otherwise check the port in REDIS_URL.`;
  }
  if (/ETIMEDOUT|no answer in/.test(text)) {
    return tls
      ? `Redis at ${where} did not complete a TLS handshake in time: if the server speaks plain Redis (no TLS), use redis:// instead of rediss://; otherwise check the host, port and firewall.`
      : `no Redis answers at ${where} in time (connection timed out). Check the host, the port and the firewall; a server that expects TLS needs rediss://.`;
  }
  if (/ECONNRESET|Connection is closed/.test(text)) {
    return `Redis at ${where} closed the connection before answering${tls ? '' : ' (a server that expects TLS does that to plain connections: then use rediss://)'}. Check REDIS_URL.`;
  }
  const last = errors[errors.length - 1];
  return `no Redis answers at ${where} (${last?.message ?? 'unknown error'}). Check REDIS_URL.`;
}

/**
 * A Redis Cluster connection for the check: the same fail-fast settings as `openCheckRedis` on
 * every node. The cluster's own ready check stays on: it is what says that every slot is served.
 */
async function openCheckCluster(url: string): Promise<{ redis: RedisConnection } | { problem: string }> {
  const seen: Error[] = [];
  let cluster;
  try {
    cluster = newCluster(url, {
      retry: () => null,
      connectTimeoutMs: CHECK_DEFAULTS.redisConnectTimeoutMs,
      maxRedirections: 4,
      nodeOptions: { maxRetriesPerRequest: 0 },
    });
  } catch (err) {
    return { problem: coerceError(err).message };
  }
  cluster.on('error', (err: Error) => seen.push(err));
  try {
    await withTimeout(
      cluster.connect().then(() => cluster.ping()),
      CHECK_DEFAULTS.redisAnswerTimeoutMs,
    );
    return { redis: cluster };
  } catch (err) {
    cluster.disconnect();
    // ioredis wraps a node's failure ("Failed to refresh slots cache") and keeps it as lastNodeError.
    const errors = [...seen, coerceError(err)].flatMap((e) => {
      const node = (e as unknown as { lastNodeError?: Error }).lastNodeError;
      return node ? [e, node] : [e];
    });
    const text = errors.map((e) => e.message).join('\n');
    if (/cluster support disabled/i.test(text)) {
      return { problem: `Redis at ${redactUrl(url)} is not a Redis Cluster (cluster support disabled), but REDIS_CLUSTER=1 is set: unset REDIS_CLUSTER, or point REDIS_URL at a node of the cluster.` };
    }
    return { problem: describeRedisFailure(url, errors) };
  }
}

/**
 * The permission check on every master of a cluster (ACL users are per node: a user created on
 * one node only is refused by the others), with probe keys in that master's slots: the account
 * layout `PREFIX:{tag}:check:…` on each, and the queues' `{PREFIX}:check:…` on the master that
 * holds the queues.
 */
async function checkClusterPermissions(
  cluster: RedisConnection,
  opts: { prefix: string; user: string; needs: readonly RedisNeed[] },
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
      ok('redis-acl', `user ${opts.user} may run the ${opts.needs.length + 1} commands buildsync uses on every master (${okCount}), on keys under ${opts.prefix}: and ${queuePrefix(cluster, opts.prefix)}:`),
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
    user: string;
    needs?: readonly RedisNeed[];
    /** The two probe keys (they must share a slot on a cluster). @defaultValue `PREFIX:check:<random>:a` and `:b` */
    keys?: [string, string];
    /** The key prefix named in a refusal. @defaultValue `PREFIX:` */
    keysShown?: string;
  },
): Promise<CheckFinding[]> {
  const needs = opts.needs ?? REDIS_NEEDS;
  const user = opts.user;
  const base = `${opts.prefix}:check:${randomUUID().slice(0, 8)}`;
  const [key, other] = opts.keys ?? [`${base}:a`, `${base}:b`];
  const shown = opts.keysShown ?? `${opts.prefix}:`;
  const denied = new Map<string, RedisNeed[]>();
  let keysDenied = false;
  let readonly = false;
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
          2,
          `Redis user ${user} may not run MULTI (NOPERM), which BullMQ and the import bookkeeping need (ACL category @transaction). Grant it: ACL SETUSER ${user} +@transaction. The other commands cannot be checked without it.`,
        ),
      ];
    }
    return [error('redis-acl', 2, `Redis refused MULTI (${text}); the permissions could not be checked.`)];
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
        else if (/READONLY/.test(text)) readonly = true;
        else otherErrors.push(`${n.command.toUpperCase()}: ${text}`);
      }
    }
  } finally {
    await redis.call('DISCARD').catch(() => undefined);
  }

  const findings: CheckFinding[] = [];
  const see = 'see the README, "Redis ACL for a least-privilege user"';
  if (readonly) {
    findings.push(error('redis-acl', 2, 'REDIS_URL points at a read-only replica (READONLY): buildsync writes its queues, ledger and budget there. Point REDIS_URL at the primary.'));
  }
  if (keysDenied) {
    findings.push(
      error('redis-acl', 2, `Redis user ${user} may not use the keys buildsync works with (NOPERM for keys under ${shown}, the BUILDSYNC_PREFIX). Grant them: ACL SETUSER ${user} ~${shown}*`),
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
        2,
        `Redis user ${user} may not run ${names.join(', ')} (NOPERM), needed for ${usedBy}. Grant ${them}: ACL SETUSER ${user} ${list.map((n) => `+${n.command}`).join(' ')} (${category}${see})`,
      ),
    );
  }
  if (unknown.length) {
    findings.push(
      error('redis-acl', 2, `Redis does not know ${unknown.join(', ')} (renamed or disabled on this server, or a server older than Redis 7): buildsync needs ${unknown.length > 1 ? 'them' : 'it'}.`),
    );
  }
  if (otherErrors.length) findings.push(error('redis-acl', 2, `Redis refused commands buildsync needs: ${otherErrors.join('; ')}`));
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

/** The durability rule's verdict (CONTRACT.md §2, "Durability") as findings, one line each. */
export function durabilityFindings(facts: RedisDurabilityFacts, decision: DurabilityDecision): CheckFinding[] {
  if (decision.mode === 'refuse') {
    // One finding per problem; the rule's closing line ("Nothing was sent. For a throwaway
    // set-up, …"), worded for an import that stopped, joins the last one as its alternative.
    const lines = decision.message.split('\n').filter((line) => line.trim() !== '');
    const closing = lines.filter((line) => line.startsWith('Nothing was sent.'));
    const problems = lines.filter((line) => !line.startsWith('Nothing was sent.'));
    const alternative = closing.map((line) => line.replace(/^Nothing was sent\.\s*/, '')).join(' ');
    if (alternative && problems.length) problems[problems.length - 1] += ` Until then imports send nothing. ${alternative}`;
    return problems.map((line) => error('redis-durability', 2, line));
  }
  const what: Record<Exclude<DurabilityDecision['mode'], 'refuse'>, string> = {
    'aof-always': 'AOF with appendfsync always: every ledger note is on disk before Redis answers',
    waitaof: 'AOF, each ledger note confirmed on disk with WAITAOF',
    'aof-everysec': 'AOF with appendfsync everysec',
    replica: 'each ledger note confirmed by a replica (WAIT)',
    volatile: 'no AOF and no replica',
  };
  const replicas = 'replicas' in decision && decision.replicas ? `, and by ${decision.replicas} replica${decision.replicas > 1 ? 's' : ''} (WAIT)` : '';
  const policy = facts.maxmemoryPolicy === undefined ? 'maxmemory-policy not reported' : `maxmemory-policy ${facts.maxmemoryPolicy}`;
  const findings: CheckFinding[] = [];
  if (decision.warning) {
    for (const line of decision.warning.split('\n')) if (line.trim()) findings.push(warning('redis-durability', line));
  } else {
    findings.push(ok('redis-durability', `${what[decision.mode]}${replicas}; ${policy}`));
  }
  return findings;
}

// ---------------------------------------------------------------------------------------------
// 3. the service

/**
 * One cheap authenticated read: the first page of GET /api/Projects?skip=0&take=2 (seed §4.1; two
 * is the smallest page the paged reader takes), stopped after its first project. It takes one
 * token from the account's budget when `throttle` is given; when the budget has no room now,
 * nothing is sent and the finding says when it has room again.
 */
export async function checkService(
  account: ServiceAccount,
  opts: { throttle?: AccountThrottle; status?: BudgetStatus; noToken?: string; signal?: AbortSignal; timeoutMs?: number },
): Promise<CheckFinding> {
  // A wait the throttle would sit through inline (a per-second window) is no reason to skip.
  if (opts.throttle && opts.status && opts.status.waitMs > THROTTLE_DEFAULTS.maxInlineWaitMs) return budgetSpent(opts.status);
  const client = new ServiceClient({
    baseUrl: account.baseUrl,
    email: account.email,
    password: account.password.reveal(),
    apiKey: account.apiKey.reveal(),
    connections: 1,
    timeoutMs: opts.timeoutMs ?? CHECK_DEFAULTS.serviceTimeoutMs,
    retries: CHECK_DEFAULTS.serviceRetries,
    gate: opts.throttle,
  });
  const vars = accountVars(account.name);
  try {
    let first: number | undefined;
    for await (const project of client.listProjectsPaged({ pageSize: 2, signal: opts.signal })) {
      first = project.ID;
      break;
    }
    const token = opts.throttle ? 'one token taken from the budget' : (opts.noToken ?? 'no budget token taken');
    return ok(
      'service',
      `${account.baseUrl} accepted the credentials of ${account.email}: GET /api/Projects?skip=0&take=2 answered${first === undefined ? ' (no project visible)' : ''}; ${token}`,
    );
  } catch (err) {
    if (err instanceof ThrottledError) {
      // The budget filled between the status read and the request, or a 429 paused the account.
      const status = opts.throttle ? await opts.throttle.status().catch(() => undefined) : undefined;
      if (status && status.waitMs > 0) return budgetSpent(status);
      return warning('service', `not checked: ${err.message}. Run check again then.`);
    }
    if (err instanceof AuthError) {
      return error(
        'service',
        3,
        `${account.baseUrl} refused the credentials (${err.status}${err.serviceMessage ? `: ${err.serviceMessage}` : ''}). Check ${vars.email}, ${vars.password} and ${vars.apiKey}.`,
      );
    }
    if (err instanceof RateLimitError) {
      return warning('service', `the service answered 429 (rate limit) to the one check request: the credentials were not refused, but the account's limit is spent now. Run check again later, and lower ${vars.limits} if this keeps happening.`);
    }
    if (err instanceof NotFoundError) {
      return error('service', 2, `${account.baseUrl} answered 404 for /api/Projects: it does not look like the service. Check ${vars.baseUrl} (its address, without /api).`);
    }
    if (err instanceof NetworkError) {
      return error('service', 4, `${account.baseUrl} could not be reached: ${err.message}. Check ${vars.baseUrl} and the network, or run check again later.`);
    }
    if (err instanceof ServerError) {
      return error('service', 4, `${account.baseUrl} kept failing: ${err.message}`);
    }
    if (err instanceof HttpError || err instanceof BuildsyncError) {
      if (err instanceof BuildsyncError && err.code === 'BUILDSYNC_INTERRUPTED') throw err;
      return error('service', 4, `${account.baseUrl}: ${err.message}`);
    }
    throw err;
  } finally {
    await client.close().catch(() => undefined);
  }
}

function budgetSpent(status: BudgetStatus): CheckFinding {
  const binding = status.windows.find((w) => w.waitMs > 0 && w.waitMs >= status.waitMs);
  const why = binding ? `the account's ${budgetUsedReason(binding.window, binding.limit)}` : (status.reason ?? 'the account is paused');
  const at = status.pausedUntil ?? new Date(status.at.getTime() + status.waitMs);
  return warning(
    'service',
    `not checked, so as not to send past the budget: ${why}. No request was sent; the budget has room again at ${at.toISOString()} (in ${formatWait(status.waitMs)}). Run check again then.`,
  );
}

// ---------------------------------------------------------------------------------------------
// 4. the budget

/** The budget left in every window (as `jobs show` shows it); a spent window is a warning. */
export async function checkBudget(throttle: AccountThrottle, limitsText: string): Promise<CheckFinding> {
  let status: BudgetStatus;
  try {
    status = await throttle.status();
  } catch (err) {
    return error('budget', 2, `cannot read the budget of account ${throttle.account} from Redis: ${redisReplyText(err)}`);
  }
  if (status.windows.length === 0) {
    return ok('budget', `account ${status.account}: no budget configured (limits: ${limitsText}): only the service's 429s pace the requests`);
  }
  const parts = status.windows.map(
    (w) =>
      `${w.window} ${w.remaining}/${w.limit} left${w.learned ? ` (learned from a 429 at ${w.learned.at.toISOString()}; configured ${w.configured ?? 'none'})` : ''}`,
  );
  const line = `account ${status.account}: ${parts.join(', ')}`;
  if (status.waitMs > 0) {
    const at = status.pausedUntil ?? new Date(status.at.getTime() + status.waitMs);
    return warning('budget', `${line}; ${status.reason ?? 'paused'} (until ${at.toISOString()})`);
  }
  return ok('budget', line);
}

// ---------------------------------------------------------------------------------------------

/** The variable names of an account (CONTRACT.md §1). */
function accountVars(name: string): { baseUrl: string; email: string; password: string; apiKey: string; limits: string } {
  const p = name === DEFAULTS.account ? 'BUILDSYNC_' : `BUILDSYNC_${name.toUpperCase()}_`;
  return { baseUrl: `${p}BASE_URL`, email: `${p}EMAIL`, password: `${p}PASSWORD`, apiKey: `${p}API_KEY`, limits: `${p}LIMITS` };
}

/** The user of a Redis URL (`default` when it names none); a user name is not a secret. */
export function redisUser(url: string): string {
  try {
    return decodeURIComponent(new URL(url).username) || 'default';
  } catch {
    return 'default';
  }
}

function redisReplyText(err: unknown): string {
  const e = coerceError(err);
  return e instanceof ReplyError ? e.message : `${e.message}`;
}
