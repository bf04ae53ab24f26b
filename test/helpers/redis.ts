import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A Redis connection and a key prefix of the test's own; `cleanup()` deletes every key under it. */
export async function testRedis(): Promise<{ redis: Redis; prefix: string; cleanup: () => Promise<void> }> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const prefix = `test-${randomUUID().slice(0, 8)}`;
  return {
    redis,
    prefix,
    cleanup: async () => {
      await deleteKeys(redis, `${prefix}:*`);
      redis.disconnect();
    },
  };
}

export async function deleteKeys(redis: Redis, pattern: string): Promise<void> {
  const stream = redis.scanStream({ match: pattern, count: 1000 });
  for await (const keys of stream as AsyncIterable<string[]>) {
    if (keys.length) await redis.unlink(...keys);
  }
}
