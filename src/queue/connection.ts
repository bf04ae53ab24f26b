import { Redis, type RedisOptions } from 'ioredis';
import { withTimeout } from '../with-timeout.ts';
import { RedisUnavailableError, redactUrl } from '../errors/index.ts';
import { logger } from '../log.ts';
import { describeRedisError, redisErrorLog } from './redis-errors.ts';

/**
 * ioredis connections the way BullMQ wants them: a worker's connection retries forever
 * (`maxRetriesPerRequest: null`, BullMQ docs "Going to production"), a producer's fails fast so
 * that a CLI without Redis says so at once instead of hanging.
 */
export function createRedis(url: string, role: 'worker' | 'producer'): Redis {
  // A producer (a CLI command) rides out a Redis blip: once connected, its commands wait while
  // Redis is away and the connection keeps trying for REDIS_GRACE_MS; past that they fail
  // ("Redis unreachable", exit 2). A worker keeps trying for as long as it runs.
  let lostAt: number | undefined;
  const opts: RedisOptions =
    role === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: true, retryStrategy: (n) => Math.min(n * 200, 2000) }
      : {
          maxRetriesPerRequest: null,
          enableOfflineQueue: true,
          enableReadyCheck: true,
          connectTimeout: 3000,
          retryStrategy: (n) => {
            lostAt ??= Date.now();
            return Date.now() - lostAt > redisGraceMs() ? null : Math.min(n * 200, 1000);
          },
        };
  const redis = new Redis(url, { ...opts, lazyConnect: true });
  if (role === 'producer') redis.on('ready', () => (lostAt = undefined));
  // Every connection has an error listener (ioredis would print each reconnection failure); a
  // producer's gets it once connected (`connectRedis` reports a failure to connect itself).
  if (role === 'worker') redisErrorLog(url, logger()).watch(redis, 'worker connection');
  return redis;
}

/** How long a command waits for a Redis that went away (CONTRACT.md §2: a 30 s grace); BUILDSYNC_REDIS_GRACE_MS is a test knob. */
export function redisGraceMs(): number {
  const v = Number(process.env.BUILDSYNC_REDIS_GRACE_MS);
  return Number.isFinite(v) && v >= 0 ? v : 30_000;
}

/** Connects and pings, or throws RedisUnavailableError with what to do. */
export async function connectRedis(url: string, role: 'worker' | 'producer'): Promise<Redis> {
  const redis = createRedis(url, role);
  let lastError: unknown;
  const onError = (err: unknown) => (lastError = err);
  redis.on('error', onError);
  try {
    await withTimeout(redis.connect().then(() => redis.ping()), 4000);
  } catch (err) {
    redis.disconnect();
    // Say what is wrong: a wrong password or TLS mismatch is not "no Redis answers".
    // ioredis rejects connect() with a bare "Connection is closed."; the cause came on 'error'.
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
  if (role === 'producer') redisErrorLog(url, logger()).watch(redis, 'producer connection');
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

function isTimeout(err: unknown): boolean {
  return /no answer in \d+ ms/.test(String((err as Error)?.message));
}
