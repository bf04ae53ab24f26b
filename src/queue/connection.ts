import { Redis, type RedisOptions } from 'ioredis';
import { RedisUnavailableError } from '../errors/index.ts';

/**
 * ioredis connections the way BullMQ wants them: a worker's connection retries forever
 * (`maxRetriesPerRequest: null`, BullMQ docs "Going to production"), a producer's fails fast so
 * that a CLI without Redis says so at once instead of hanging.
 */
export function createRedis(url: string, role: 'worker' | 'producer'): Redis {
  const opts: RedisOptions =
    role === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: true }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: true, connectTimeout: 3000, retryStrategy: (n) => (n > 2 ? null : 200 * n) };
  return new Redis(url, { ...opts, lazyConnect: true });
}

/** Connects and pings, or throws RedisUnavailableError with what to do. */
export async function connectRedis(url: string, role: 'worker' | 'producer'): Promise<Redis> {
  const redis = createRedis(url, role);
  // A refused connection would otherwise be logged by ioredis as an unhandled 'error' event.
  const onError = () => {};
  redis.on('error', onError);
  try {
    await withTimeout(redis.connect().then(() => redis.ping()), 4000);
  } catch (err) {
    redis.disconnect();
    throw new RedisUnavailableError(url, { cause: err });
  }
  return redis;
}

/** True when a Redis answers at url within a short time. */
export async function redisAnswers(url: string): Promise<boolean> {
  try {
    const r = await connectRedis(url, 'producer');
    r.disconnect();
    return true;
  } catch {
    return false;
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}
