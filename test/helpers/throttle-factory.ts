import type { Redis } from 'ioredis';
import { afterEach, beforeEach } from 'vitest';
import { AccountThrottle, type AccountThrottleOptions } from '../../src/throttle/index.ts';
import { testConnection, testRedis } from './redis.ts';

export interface ThrottleFactory {
  /** The current test's own connection and key prefix (testRedis). */
  readonly redis: Redis;
  readonly prefix: string;
  /**
   * A throttle on the test's prefix, over the file's defaults and `opts`: on a connection of its
   * own, as separate worker processes would have, unless `opts.redis` names one.
   */
  throttle(opts?: Partial<AccountThrottleOptions>): AccountThrottle;
}

/**
 * The AccountThrottles of a test file. Call it at the top of the file: it registers the hooks that
 * give each test a prefix of its own and, after it, close the throttles' connections and delete
 * the prefix's keys. `defaults` apply to every throttle (account 'acme' and no limits unless named).
 */
export function throttlesPerTest(defaults: Partial<Omit<AccountThrottleOptions, 'redis' | 'prefix'>> = {}): ThrottleFactory {
  let ctx: Awaited<ReturnType<typeof testRedis>> | undefined;
  let own: Redis[] = [];
  beforeEach(async () => {
    ctx = await testRedis();
    own = [];
  });
  afterEach(async () => {
    for (const r of own) r.disconnect();
    await ctx?.cleanup();
    ctx = undefined;
  });
  const current = () => {
    if (!ctx) throw new Error('throttlesPerTest: a throttle is made inside a test (its prefix exists from beforeEach to afterEach)');
    return ctx;
  };
  return {
    get redis() {
      return current().redis;
    },
    get prefix() {
      return current().prefix;
    },
    throttle(opts = {}) {
      let redis = opts.redis;
      if (!redis) {
        redis = testConnection();
        own.push(redis);
      }
      return new AccountThrottle({ account: 'acme', limits: {}, ...defaults, ...opts, redis, prefix: current().prefix });
    },
  };
}
