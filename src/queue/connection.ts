import { Redis, type RedisOptions } from 'ioredis';
import { redisClusterEnabled } from '../config.ts';
import { withTimeout } from '../with-timeout.ts';
import { RedisUnavailableError, redactUrl } from '../errors/index.ts';
import { logger } from '../log.ts';
import { knob } from '../knobs.ts';
import { newCluster, type RedisConnection } from '../redis-layout.ts';
import { describeRedisError, redisErrorLog } from './redis-errors.ts';

export type { RedisConnection } from '../redis-layout.ts';
export type RedisRole = 'worker' | 'producer';

export interface RedisTarget {
  /** REDIS_CLUSTER=1: `url` names one node of a Redis Cluster. @defaultValue REDIS_CLUSTER of the environment (and .env) */
  cluster?: boolean;
}

/**
 * ioredis connections the way BullMQ wants them: a worker's connection retries forever
 * (`maxRetriesPerRequest: null`, BullMQ docs "Going to production"), a producer's fails fast so
 * that a CLI without Redis says so at once instead of hanging.
 */
export function createRedis(url: string, role: RedisRole, target: RedisTarget = {}): RedisConnection {
  // A producer (a CLI command) rides out a Redis blip: once connected, its commands wait while
  // Redis is away and the connection keeps trying for REDIS_GRACE_MS; past that they fail
  // ("Redis unreachable", exit 2). A worker keeps trying for as long as it runs.
  let lostAt: number | undefined;
  const retry =
    role === 'worker'
      ? (n: number) => Math.min(n * 200, 2000)
      : (n: number) => {
          lostAt ??= Date.now();
          return Date.now() - lostAt > redisGraceMs() ? null : Math.min(n * 200, 1000);
        };
  const cluster = target.cluster ?? redisClusterEnabled();
  let redis: RedisConnection;
  if (cluster) {
    redis = newCluster(url, {
      retry,
      connectTimeoutMs: role === 'worker' ? 10_000 : 3000,
      // About 20 s for a worker, which rides out a Redis that went away; well past an election for a producer.
      maxRedirections: role === 'worker' ? 64 : 32,
    });
  } else {
    const opts: RedisOptions =
      role === 'worker'
        ? { maxRetriesPerRequest: null, enableReadyCheck: true, retryStrategy: retry }
        : { maxRetriesPerRequest: null, enableOfflineQueue: true, enableReadyCheck: true, connectTimeout: 3000, retryStrategy: retry };
    redis = new Redis(url, { ...opts, lazyConnect: true });
  }
  if (role === 'producer') redis.on('ready', () => (lostAt = undefined));
  // Every connection has an error listener (ioredis would print each reconnection failure); a
  // producer's gets it once connected (`connectRedis` reports a failure to connect itself).
  if (role === 'worker') redisErrorLog(url, logger()).watch(redis, 'worker connection');
  return redis;
}

/** How long a command waits for a Redis that went away: BUILDSYNC_REDIS_GRACE_MS (knobs.ts; CONTRACT.md §2: a 30 s grace). */
export function redisGraceMs(): number {
  return knob('BUILDSYNC_REDIS_GRACE_MS');
}

/** Connects and pings, or throws RedisUnavailableError with what to do. */
export async function connectRedis(url: string, role: RedisRole, target: RedisTarget = {}): Promise<RedisConnection> {
  const cluster = target.cluster ?? redisClusterEnabled();
  const redis = createRedis(url, role, { cluster });
  let lastError: unknown;
  const onError = (err: unknown) => (lastError = err);
  redis.on('error', onError);
  try {
    // A cluster is ready once every slot is served (its ready check reads CLUSTER INFO); give it
    // the time a fresh cluster or a failover takes.
    await withTimeout(
      redis.connect().then(() => redis.ping()),
      cluster ? 10_000 : 4000,
    );
  } catch (err) {
    redis.disconnect();
    // Say what is wrong: a wrong password or TLS mismatch is not "no Redis answers".
    // ioredis rejects connect() with a bare "Connection is closed."; the cause came on 'error'.
    const clusterProblem = cluster ? describeClusterFailure(url, lastError ?? err) : undefined;
    if (clusterProblem) throw new RedisUnavailableError(url, { cause: err, message: clusterProblem });
    const problem = describeRedisError(lastError ?? err, url);
    if (url.startsWith('rediss:') && (isTimeout(err) || problem.cause === 'timeout' || problem.cause === 'closed')) {
      throw new RedisUnavailableError(url, {
        cause: err,
        message: `no TLS answer from Redis at ${redactUrl(url)} (the TLS handshake never completed): if this Redis does not speak TLS, use redis:// instead of rediss:// in REDIS_URL`,
      });
    }
    if (problem.cause === 'auth' || problem.cause === 'tls' || problem.cause === 'noperm' || problem.cause === 'readonly') {
      throw new RedisUnavailableError(url, { cause: err, message: problem.message });
    }
    throw new RedisUnavailableError(url, { cause: err });
  } finally {
    redis.off('error', onError);
  }
  if (!cluster) {
    try {
      await refuseClusterNode(redis as Redis, url);
    } catch (err) {
      redis.disconnect();
      throw err;
    }
  }
  if (role === 'producer') redisErrorLog(url, logger()).watch(redis, 'producer connection');
  return redis;
}

/**
 * A plain connection to a node of a Redis Cluster would work for the keys of that node's slots
 * and fail with MOVED for the others, half-way through a run: say so at once instead.
 */
async function refuseClusterNode(redis: Redis, url: string): Promise<void> {
  let info: string;
  try {
    info = await redis.info('cluster');
  } catch {
    return; // INFO not permitted: the durability check names that; nothing to decide here
  }
  if (/^cluster_enabled:1\b/m.test(info)) {
    throw new RedisUnavailableError(url, {
      message: `Redis at ${redactUrl(url)} is a node of a Redis Cluster: set REDIS_CLUSTER=1 so that buildsync talks to the whole cluster (and keeps each queue and account in one slot)`,
    });
  }
}

/** Messages for what only a cluster connection runs into; undefined for the ordinary causes. */
function describeClusterFailure(url: string, err: unknown): string | undefined {
  const text = `${(err as Error)?.message ?? err} ${((err as { lastNodeError?: Error })?.lastNodeError as Error | undefined)?.message ?? ''}`;
  if (/cluster support disabled|This instance has cluster support disabled/i.test(text)) {
    return `Redis at ${redactUrl(url)} is not a Redis Cluster (cluster support disabled), but REDIS_CLUSTER=1 is set: unset REDIS_CLUSTER, or point REDIS_URL at a node of the cluster`;
  }
  if (/CLUSTERDOWN|cluster_state:fail|Failed to refresh slots cache|None of startup nodes is available/i.test(text) && !/WRONGPASS|NOAUTH|NOPERM/.test(text)) {
    return `the Redis Cluster at ${redactUrl(url)} is not ready (${text.trim().split('\n')[0]}): check that its nodes run and that every slot is served (redis-cli --cluster check HOST:PORT), or that REDIS_URL names one of its nodes`;
  }
  return undefined;
}

/** True when a Redis answers at url within a short time. */
export async function redisAnswers(url: string, target: RedisTarget = {}): Promise<boolean> {
  try {
    const r = await connectRedis(url, 'producer', target);
    r.disconnect();
    return true;
  } catch {
    return false;
  }
}

function isTimeout(err: unknown): boolean {
  return /no answer in \d+ ms/.test(String((err as Error)?.message));
}
