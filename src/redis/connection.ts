import { Redis, ReplyError, type RedisOptions } from 'ioredis';
import { redisClusterEnabled } from '../config.ts';
import { withTimeout } from '../with-timeout.ts';
import { RedisUnavailableError } from '../errors/index.ts';
import { logger } from '../log.ts';
import { newCluster } from './cluster.ts';
import type { RedisConnection } from './layout.ts';
import { batchWrites } from './write-batching.ts';
import { clusterNodeProblem, describeRedisError, redisErrorLog, redisGraceMs } from './failures.ts';

export type { RedisConnection } from './layout.ts';
/** `probe`: `buildsync check`'s connection (one attempt, no reconnects, no ready check). */
export type RedisRole = 'worker' | 'producer' | 'probe';

export interface RedisTarget {
  /** REDIS_CLUSTER=1: `url` names one node of a Redis Cluster. @defaultValue REDIS_CLUSTER of the environment (and .env) */
  cluster?: boolean;
}

/**
 * ioredis connections the way BullMQ wants them: a worker's connection retries forever
 * (`maxRetriesPerRequest: null`, BullMQ docs "Going to production"), a producer's fails fast so
 * that a CLI without Redis says so at once instead of hanging. A probe (`buildsync check`) makes
 * one attempt and never reconnects, and skips ioredis' ready check: its INFO would print a
 * warning of its own for a user without INFO, where the check names INFO among the permissions.
 */
export function createRedis(url: string, role: RedisRole, target: RedisTarget = {}): RedisConnection {
  // A producer (a CLI command) rides out a Redis blip: once connected, its commands wait while
  // Redis is away and the connection keeps trying for REDIS_GRACE_MS; past that they fail
  // ("Redis unreachable", exit 2). A worker keeps trying for as long as it runs.
  let lostAt: number | undefined;
  const retry =
    role === 'worker'
      ? (n: number) => Math.min(n * 200, 2000)
      : role === 'probe'
        ? () => null
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
      // About 20 s for a worker, which rides out a Redis that went away; well past an election for a
      // producer; a probe only needs to reach every master once.
      maxRedirections: role === 'worker' ? 64 : role === 'probe' ? 4 : 32,
      ...(role === 'probe' ? { nodeOptions: { maxRetriesPerRequest: 0 } } : {}),
    });
    // Each node's connection, as ioredis opens it (write-batching.ts).
    redis.on('+node', (node: Redis) => batchWrites(node));
  } else {
    const opts: RedisOptions =
      role === 'worker'
        ? { maxRetriesPerRequest: null, enableReadyCheck: true, retryStrategy: retry }
        : role === 'probe'
          ? { maxRetriesPerRequest: 0, enableOfflineQueue: true, enableReadyCheck: false, connectTimeout: 3000, retryStrategy: retry }
          : { maxRetriesPerRequest: null, enableOfflineQueue: true, enableReadyCheck: true, connectTimeout: 3000, retryStrategy: retry };
    redis = new Redis(url, { ...opts, lazyConnect: true });
    batchWrites(redis);
  }
  if (role === 'producer') redis.on('ready', () => (lostAt = undefined));
  // Every connection has an error listener (ioredis would print each reconnection failure); a
  // producer's and a probe's get it once connected (`connectRedis` reports a failure to connect itself).
  if (role === 'worker') redisErrorLog(url, logger()).watch(redis, 'worker connection');
  return redis;
}

/** Connects and pings, or throws RedisUnavailableError saying what is wrong (failures.ts) and what to do. */
export async function connectRedis(url: string, role: RedisRole, target: RedisTarget = {}): Promise<RedisConnection> {
  const cluster = target.cluster ?? redisClusterEnabled();
  const redis = createRedis(url, role, { cluster });
  // ioredis rejects connect() with a bare "Connection is closed."; the cause came on 'error'.
  const seen: unknown[] = [];
  const onError = (err: unknown) => seen.push(err);
  redis.on('error', onError);
  try {
    // A cluster is ready once every slot is served (its ready check reads CLUSTER INFO); give it
    // the time a fresh cluster or a failover takes. A probe answers in seconds or says why not.
    await withTimeout(
      redis.connect().then(() => redis.ping()),
      role === 'probe' ? 5000 : cluster ? 10_000 : 4000,
    );
  } catch (err) {
    redis.disconnect();
    throw new RedisUnavailableError(url, { cause: err, message: describeRedisError([...seen, err], url, { connecting: true }).message });
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
  if (role !== 'worker') redisErrorLog(url, logger()).watch(redis, `${role} connection`);
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
  if (/^cluster_enabled:1\b/m.test(info)) throw new RedisUnavailableError(url, { message: clusterNodeProblem(url).message });
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

/** The server refused the command: ioredis' `ReplyError` (ACL, a read-only replica, an unknown command). */
export function isReplyError(err: unknown): boolean {
  return err instanceof ReplyError;
}
