import type { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { redactUrl } from '../errors/index.ts';
import { knob } from '../knobs.ts';
import { aclAdvice, SEE_ACL } from './acl.ts';

/**
 * The one describer of Redis failures: what `check` says of a Redis it cannot use, what a
 * command that cannot connect says, what a running worker logs, what a command's failure prints
 * (cli/exit.ts, through `redisFailureOf`) and what the dashboard's pages answer all come from
 * `describeRedisError`, one wording per cause, each saying what to do. ACL advice comes from the
 * one table of what buildsync needs (acl.ts).
 */
export interface RedisProblem {
  /**
   * A stable key: the same cause is logged at most once per `QUIET_MS` however many connections,
   * queues and workers report it.
   */
  cause: RedisCause;
  message: string;
  /** Known causes print no stack trace; an unforeseen one keeps it (a bug report). */
  known: boolean;
}

export type RedisCause =
  | 'auth'
  | 'no-password'
  | 'noperm'
  | 'tls'
  | 'tls-handshake'
  | 'protocol'
  | 'dns'
  | 'refused'
  | 'readonly'
  | 'loading'
  | 'timeout'
  | 'closed'
  | 'lost'
  | 'lock'
  | 'not-cluster'
  | 'cluster-node'
  | 'cluster-down'
  | 'other';

/** Causes ioredis rides out by reconnecting: a running process says it keeps trying. */
const TRANSIENT: ReadonlySet<RedisCause> = new Set(['dns', 'refused', 'loading', 'timeout', 'lost', 'cluster-down']);

/** The user of a Redis URL (`default` when it names none); a user name is not a secret. */
export function redisUser(url: string): string {
  try {
    return decodeURIComponent(new URL(url).username) || 'default';
  } catch {
    return 'default';
  }
}

function urlHasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return false;
  }
}

/** Every error given, and the node error a cluster client wraps in its own ("Failed to refresh slots cache"). */
function expand(errors: unknown): Array<Error & { code?: string; command?: { name?: string } }> {
  const list = Array.isArray(errors) ? errors : [errors];
  return list.flatMap((e) => {
    const err = e instanceof Error ? e : new Error(String(e));
    const node = (err as { lastNodeError?: unknown }).lastNodeError;
    return node instanceof Error ? [err, node] : [err];
  });
}

/**
 * What a Redis failure means, in one line with what to do. `errors` is the error, or every error
 * seen (a connection that failed reports its cause on 'error' and then fails with a bare
 * "Connection is closed."). `connecting`: the connection never answered, so a closed connection
 * or a timeout is about the address or TLS rather than a Redis that went away.
 */
export function describeRedisError(errors: unknown, url: string, opts: { connecting?: boolean } = {}): RedisProblem {
  const list = expand(errors);
  const text = list.map((e) => `${e.code ?? ''} ${e.name} ${e.message}`).join('\n');
  const first = (re: RegExp) => list.find((e) => re.test(`${e.code ?? ''} ${e.message}`));
  const where = redactUrl(url);
  const user = redisUser(url);
  const tls = url.startsWith('rediss:');
  const problem = (cause: RedisCause, message: string): RedisProblem => ({ cause, message, known: true });

  if (/cluster support disabled/i.test(text)) {
    return problem('not-cluster', `Redis at ${where} is not a Redis Cluster (cluster support disabled), but REDIS_CLUSTER=1 is set: unset REDIS_CLUSTER, or point REDIS_URL at a node of the cluster.`);
  }
  if (/WRONGPASS|invalid username-password pair/i.test(text)) {
    return problem(
      'auth',
      `Redis at ${where} refused the user name or password (WRONGPASS): user ${user} does not exist, is disabled, or its password is wrong. Correct REDIS_URL (redis://USER:PASSWORD@HOST:PORT; the password part is URL-encoded).`,
    );
  }
  if (/NOAUTH|Authentication required/i.test(text)) {
    return problem(
      'no-password',
      `Redis at ${where} requires a password (NOAUTH)${urlHasPassword(url) ? '' : ' and REDIS_URL gives none'}. Put it in REDIS_URL: redis://USER:PASSWORD@HOST:PORT (user default when the server only has requirepass).`,
    );
  }
  const noperm = first(/NOPERM/);
  if (noperm) {
    const cmd = /command '([^']+)'|'([^']+)' command|for the '([^']+)'/i.exec(noperm.message);
    const command = (cmd?.[1] ?? cmd?.[2] ?? cmd?.[3] ?? noperm.command?.name ?? '').toLowerCase();
    return problem(
      'noperm',
      `Redis user ${user} may not run ${command ? `'${command}'` : 'a command buildsync needs'} (${noperm.message.slice(0, 160)}). Grant it: ACL SETUSER ${user} ${command ? aclAdvice(command) : `… (${SEE_ACL})`}.`,
    );
  }
  if (/can't run this command or subcommand script/i.test(text)) {
    // Redis does not say which command a script was refused: for buildsync's scripts it is the
    // one outside the data categories, TIME (the ledger and the throttle read the server's clock).
    return problem(
      'noperm',
      `Redis user ${user} may not run a command inside buildsync's Lua scripts (most likely TIME, which the ledger and the throttle read). Grant it: ACL SETUSER ${user} ${aclAdvice('time')}.`,
    );
  }
  const lock = first(/could not renew lock for job|Missing lock for job|Lock mismatch for job/i);
  if (lock) {
    return problem(
      'lock',
      `jobs in hand lost their locks while Redis was away (${lock.message.replace(/\s+/g, ' ').slice(0, 80)}…): BullMQ hands each back to a worker once its lock expires; the ledger keeps their records from being sent twice.`,
    );
  }
  if (/READONLY/.test(text)) {
    return problem('readonly', `Redis at ${where} is a read-only replica (READONLY): buildsync writes its queues, ledger and budget there. Point REDIS_URL at the primary.`);
  }
  if (/LOADING/.test(text)) return problem('loading', `Redis at ${where} is loading its data set into memory (LOADING); it answers once that is done.`);
  // A name that does not resolve, whether DNS said so (ENOTFOUND) or did not answer (EAI_AGAIN).
  const dns = first(/ENOTFOUND|EAI_AGAIN|EAI_NONAME/);
  if (dns) {
    const code = /ENOTFOUND|EAI_AGAIN|EAI_NONAME/.exec(`${dns.code ?? ''} ${dns.message}`)![0];
    return problem('dns', `the host name of REDIS_URL (${where}) does not resolve (${code}). Check the host name in REDIS_URL.`);
  }
  const refused = first(/ECONNREFUSED|EHOSTUNREACH|ENETUNREACH/);
  if (refused) {
    const why = /ECONNREFUSED/.test(`${refused.code ?? ''} ${refused.message}`) ? 'connection refused' : 'host unreachable';
    return problem('refused', noRedisAnswers(url, why).message);
  }
  const tlsError = first(/EPROTO|SSL|TLS|certificate|self.signed|UNABLE_TO_VERIFY|wrong version number|packet length too long/i);
  if (tlsError) {
    return problem(
      'tls',
      `the TLS connection to ${where} failed (${tlsError.message.split('\n')[0]!.slice(0, 120)}). If the server speaks plain Redis, use redis:// instead of rediss://; if it needs TLS, check its certificate.`,
    );
  }
  if (/ParserError|Protocol error/.test(text)) {
    return problem(
      'protocol',
      tls
        ? `something at ${where} answers, but not as Redis over TLS. Check the port in REDIS_URL.`
        : `something at ${where} answers, but not as plain Redis (a TLS-only server, or another service on that port). If the server expects TLS, use rediss://; otherwise check the port in REDIS_URL.`,
    );
  }
  if (/CLUSTERDOWN|cluster_state:fail|Failed to refresh slots cache|None of startup nodes is available/i.test(text)) {
    return problem(
      'cluster-down',
      `the Redis Cluster at ${where} is not ready (${list[0]!.message.split('\n')[0]}): check that its nodes run and that every slot is served (redis-cli --cluster check HOST:PORT), or that REDIS_URL names one of its nodes.`,
    );
  }
  const timeout = /ETIMEDOUT|no answer in|timed? ?out/i.test(text);
  const closed = /Connection is closed|ECONNRESET|EPIPE|Stream isn't writeable|max retries per request/i.test(text);
  if (opts.connecting && tls && (timeout || closed)) {
    return problem(
      'tls-handshake',
      `no TLS answer from Redis at ${where} (the TLS handshake never completed): if this Redis does not speak TLS, use redis:// instead of rediss:// in REDIS_URL; otherwise check the host, the port and the firewall.`,
    );
  }
  if (timeout) {
    return problem('timeout', `no Redis answers at ${where} in time (connection timed out). Check the host, the port and the firewall; a server that expects TLS needs rediss://.`);
  }
  if (closed && opts.connecting) {
    return problem('closed', `Redis at ${where} closed the connection before answering (a server that expects TLS does that to plain connections: then use rediss://). Check REDIS_URL.`);
  }
  if (closed) return problem('lost', `the connection to Redis at ${where} was lost (${list[0]!.message.slice(0, 80)}).`);
  return { cause: 'other', known: false, message: `Redis at ${where} failed: ${(list.at(-1)?.message ?? 'unknown error').slice(0, 300)}. Check REDIS_URL.` };
}

/** No Redis at `url` (nothing listens, or none could be started), and what to do. */
export function noRedisAnswers(url: string, why?: string): RedisProblem {
  return {
    cause: 'refused',
    known: true,
    message: `no Redis answers at ${redactUrl(url)}${why ? ` (${why})` : ''}. Start one (redis-server --daemonize yes) or set REDIS_URL to where it runs; --dry-run and --no-queue need none.`,
  };
}

/** How long a command waits for a Redis that went away: BUILDSYNC_REDIS_GRACE_MS (knobs.ts; README, Commands: a 30 s grace). */
export function redisGraceMs(): number {
  return knob('BUILDSYNC_REDIS_GRACE_MS');
}

/**
 * A command's failure that is Redis's, described; undefined for any other failure. Redis refused
 * a command or the credentials (a `ReplyError`: ACL, password, read-only replica), or ioredis gave
 * up on a Redis that stayed away past the grace (connection.ts): both are the user's set-up, told
 * without a stack trace.
 */
export function redisFailureOf(err: Error, url: string = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'): RedisProblem | undefined {
  if (err.name === 'ReplyError' || /^(NOPERM|WRONGPASS|NOAUTH|READONLY)\b/.test(err.message)) {
    const p = describeRedisError(err, url);
    if (p.known) return p;
  }
  if (err.name === 'MaxRetriesPerRequestError' || /^Connection is closed\.?$|Stream isn't writeable/.test(err.message)) {
    return {
      cause: 'lost',
      known: true,
      message: `lost Redis and it did not come back within ${Math.round(redisGraceMs() / 1000)} s; start it again (or check REDIS_URL) and run the command again`,
    };
  }
  return undefined;
}

/**
 * The connection to a cluster node went away under a command (ioredis' words), or no node serves
 * the slot yet: worth trying again on the node that serves the slot after a failover.
 */
export function isNodeLost(err: unknown): boolean {
  return /Connection is closed|Too many Cluster redirections|CLUSTERDOWN|TRYAGAIN|ECONNREFUSED|ECONNRESET/.test(String((err as Error)?.message));
}

/**
 * A plain connection to a node of a Redis Cluster would work for the keys of that node's slots
 * and fail with MOVED for the others, half-way through a run.
 */
export function clusterNodeProblem(url: string): RedisProblem {
  return {
    cause: 'cluster-node',
    known: true,
    message: `Redis at ${redactUrl(url)} is a node of a Redis Cluster: set REDIS_CLUSTER=1 so that buildsync talks to the whole cluster (and keeps each queue and account in one slot)`,
  };
}

/** A known cause is logged at most once in this long, whatever emits it. */
const QUIET_MS = 10_000;

/**
 * Logs Redis errors of one process calmly: one line per cause every `QUIET_MS` across every
 * connection, queue and worker given to `watch` (BullMQ objects without an `error` listener fall
 * back to `console.error` with a stack trace per event).
 */
export class RedisErrorLog {
  readonly #last = new Map<string, number>();
  constructor(
    private readonly log: Logger,
    private readonly url: string,
  ) {}

  /** Adds the listener to an emitter (ioredis connection, BullMQ Queue, Worker, QueueEvents, FlowProducer). */
  watch<T extends Pick<EventEmitter, 'on'>>(emitter: T, what: string): T {
    emitter.on('error', (err: unknown) => this.report(err, what));
    return emitter;
  }

  report(err: unknown, what: string): void {
    const p = describeRedisError(err, this.url);
    const now = Date.now();
    const key = p.known ? p.cause : `${p.cause}:${p.message}`;
    if (now - (this.#last.get(key) ?? -Infinity) < QUIET_MS) return;
    this.#last.set(key, now);
    if (this.#last.size > 100) this.#last.delete(this.#last.keys().next().value!);
    // ioredis reconnects on its own: the line says so, where a command that gave up would not.
    const message = TRANSIENT.has(p.cause) ? `${p.message} Retrying until it is back.` : p.message;
    if (p.known) this.log.warn({ redis: p.cause, where: what }, message);
    else this.log.error({ redis: p.cause, where: what, err: (err as Error)?.stack }, message);
  }
}

const perUrl = new Map<string, RedisErrorLog>();

/**
 * The process's error log for the Redis at `url`: every connection, queue and worker of the
 * process reports into the same one, so a Redis that goes away gives one line per cause every
 * 10 s, not one per object and retry.
 */
export function redisErrorLog(url: string, log: Logger): RedisErrorLog {
  let l = perUrl.get(url);
  if (l === undefined) {
    l = new RedisErrorLog(log, url);
    perUrl.set(url, l);
  }
  return l;
}
