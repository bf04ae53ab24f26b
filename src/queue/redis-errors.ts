import type { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { redactUrl } from '../errors/index.ts';

/**
 * What a Redis failure means, in one line with what to do (issue: "calm and precise"). `cause`
 * is a stable key: the same cause is logged at most once per `QUIET_MS` however many connections,
 * queues and workers report it.
 */
export interface RedisProblem {
  cause: 'auth' | 'tls' | 'noperm' | 'refused' | 'readonly' | 'loading' | 'timeout' | 'closed' | 'lock' | 'other';
  message: string;
  /** Known causes print no stack trace; an unforeseen one keeps it (a bug report). */
  known: boolean;
}

/** The ACL category a least-privilege user needs for a command (README "Redis ACL"). */
function aclCategory(command: string): string {
  const c = command.toLowerCase();
  if (c.startsWith('eval') || c.startsWith('script') || c.startsWith('function') || c.startsWith('fcall')) return '+eval +evalsha (in category @scripting)';
  if (c === 'info' || c.startsWith('client') || c === 'ping' || c === 'hello') return `+${c}`;
  if (c.startsWith('config')) return '+config|get (optional: without it the tool assumes appendfsync everysec and warns)';
  if (c.startsWith('b') && /^(bzpopmin|bzpopmax|blpop|brpop|blmove|brpoplpush|bzmpop|blmpop)$/.test(c)) return '+@blocking';
  if (c === 'wait' || c === 'waitaof') return `+${c}`;
  return `+${c}`;
}

export function describeRedisError(err: unknown, url: string): RedisProblem {
  const e = err as NodeJS.ErrnoException & { command?: { name?: string } };
  const msg = String(e?.message ?? err);
  const where = redactUrl(url);
  if (/WRONGPASS|invalid username-password pair|NOAUTH|Authentication required/i.test(msg)) {
    return { cause: 'auth', known: true, message: `Redis at ${where} refused the credentials (${msg.split('\n')[0]!.slice(0, 120)}): check the user and password in REDIS_URL (redis://USER:PASSWORD@host:port)` };
  }
  if (/NOPERM/i.test(msg)) {
    const cmd = /command '([^']+)'|'([^']+)' command|for the '([^']+)'/i.exec(msg);
    const command = (cmd?.[1] ?? cmd?.[2] ?? cmd?.[3] ?? e.command?.name ?? '').toLowerCase();
    return {
      cause: 'noperm',
      known: true,
      message: `the Redis user in REDIS_URL may not run ${command ? `'${command}'` : 'a command the tool needs'} (${msg.slice(0, 160)}): grant it with ACL SETUSER … ${command ? aclCategory(command) : ''} (see the README, "Redis ACL for a least-privilege user")`,
    };
  }
  if (/can't run this command or subcommand script/i.test(msg)) {
    // Redis does not say which command a script was refused: for buildsync's scripts it is the
    // one outside the data categories, TIME (the ledger and the throttle read the server's clock).
    return {
      cause: 'noperm',
      known: true,
      message: `the Redis user in REDIS_URL may not run a command inside buildsync's Lua scripts (most likely TIME, which the ledger and the throttle read): grant it with ACL SETUSER … +time (see the README, "Redis ACL for a least-privilege user")`,
    };
  }
  if (/wrong version number|ssl3_get_record|EPROTO|packet length too long|SSL routines|ERR_SSL|certificate|self.signed/i.test(msg) || /^ERR_SSL|^ERR_TLS/.test(e?.code ?? '')) {
    return { cause: 'tls', known: true, message: `TLS to Redis at ${where} failed (${msg.slice(0, 120)}): use rediss:// only where the server speaks TLS, redis:// where it does not` };
  }
  if (/Protocol error, got "\\u0015"|Protocol error.*\\x15|got "\u0015"/.test(msg)) {
    return { cause: 'tls', known: true, message: `Redis at ${where} answered in TLS to a plain connection: use rediss:// in REDIS_URL` };
  }
  if (/could not renew lock for job|Missing lock for job|Lock mismatch for job/i.test(msg)) {
    return { cause: 'lock', known: true, message: `jobs in hand lost their locks while Redis was away (${msg.replace(/\s+/g, ' ').slice(0, 80)}…): BullMQ hands each back to a worker once its lock expires; the ledger keeps their records from being sent twice` };
  }
  if (/READONLY/.test(msg)) {
    return { cause: 'readonly', known: true, message: `Redis at ${where} is a read-only replica: point REDIS_URL at the primary` };
  }
  if (/LOADING/.test(msg)) {
    return { cause: 'loading', known: true, message: `Redis at ${where} is loading its data set after a restart; the tool waits and carries on` };
  }
  if (e?.code === 'ECONNREFUSED' || e?.code === 'ENOTFOUND' || e?.code === 'EHOSTUNREACH' || /ECONNREFUSED|ENOTFOUND/.test(msg)) {
    return { cause: 'refused', known: true, message: `no Redis answers at ${where} (${e?.code ?? 'connection refused'}); retrying until it is back` };
  }
  if (e?.code === 'ETIMEDOUT' || /ETIMEDOUT|timed? ?out/i.test(msg)) {
    return { cause: 'timeout', known: true, message: `Redis at ${where} does not answer in time (${msg.slice(0, 80)}); retrying` };
  }
  if (/Connection is closed|ECONNRESET|EPIPE|Stream isn't writeable|max retries per request/i.test(msg) || e?.code === 'ECONNRESET') {
    return { cause: 'closed', known: true, message: `the connection to Redis at ${where} was lost (${msg.slice(0, 80)}); retrying until it is back` };
  }
  return { cause: 'other', known: false, message: `Redis at ${where}: ${msg.slice(0, 300)}` };
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
    if (p.known) this.log.warn({ redis: p.cause, where: what }, p.message);
    else this.log.error({ redis: p.cause, where: what, err: (err as Error)?.stack }, p.message);
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
