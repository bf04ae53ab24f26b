import { randomUUID } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { newCluster } from '../../src/redis/cluster.ts';
import { prefixPatterns, unlinkAll, type RedisConnection } from '../../src/redis/layout.ts';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/**
 * REDIS_CLUSTER=1: this run is the `cluster` vitest project (test/cluster-env.ts points REDIS_URL
 * at the cluster test/cluster-global-setup.ts started), and every connection of a test is a Cluster.
 */
export const REDIS_CLUSTER = process.env.REDIS_CLUSTER === '1';

/**
 * A test's own connection to the Redis of the run: a plain Redis, or a Cluster in the cluster
 * project. Typed `Redis` for the tests that hand it to code taking a connection; both are ioredis
 * Commanders with the same commands (only `scanStream` differs: use `deleteKeys`/`scanAll`).
 */
export function testConnection(): Redis {
  if (!REDIS_CLUSTER) return new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const cluster = newCluster(REDIS_URL, { retry: (n) => Math.min(n * 100, 1000), connectTimeoutMs: 5000, maxRedirections: 32 });
  return cluster as unknown as Redis;
}

/** A Redis connection and a key prefix of the test's own; `cleanup()` deletes every key under it. */
export async function testRedis(): Promise<{ redis: Redis; prefix: string; cleanup: () => Promise<void> }> {
  const redis = testConnection();
  const prefix = `test-${randomUUID().slice(0, 8)}`;
  return {
    redis,
    prefix,
    cleanup: async () => {
      // `PREFIX:*`, and on a cluster the queues' `{PREFIX}:*` too, on every master.
      for (const pattern of prefixPatterns(redis, prefix)) await unlinkAll(redis as unknown as RedisConnection, pattern);
      redis.disconnect();
    },
  };
}

export async function deleteKeys(redis: Redis | Cluster, pattern: string): Promise<void> {
  await unlinkAll(redis as RedisConnection, pattern);
}
