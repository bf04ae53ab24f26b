import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RateLimitError } from '../src/errors/index.ts';
import { AccountThrottle, normalizeWindowName } from '../src/throttle/index.ts';
import { registerBudgetMetrics } from '../src/throttle/budget-metrics.ts';
import { testRedis } from './helpers/redis.ts';

let ctx: Awaited<ReturnType<typeof testRedis>>;
beforeEach(async () => {
  ctx = await testRedis();
});
afterEach(async () => {
  await ctx.cleanup();
});

describe('budget metrics', () => {
  it('expose remaining, limit and used per account and window, and the pause, in one scrape', async () => {
    const acme = new AccountThrottle({ redis: ctx.redis, account: 'acme', limits: { minute: 10, hour: 20 }, prefix: ctx.prefix });
    const globex = new AccountThrottle({ redis: ctx.redis, account: 'globex', limits: { hour: 3 }, prefix: ctx.prefix });
    for (let i = 0; i < 4; i++) await acme.acquire();
    await globex.onRateLimited(new RateLimitError({ status: 429, method: 'GET', path: '/api/v2/Projects', body: null }, 30_000, 'hour'));
    const registry = new Registry();
    registerBudgetMetrics(registry, () => [acme, globex]);
    const text = await registry.metrics();
    expect(text).toContain('buildsync_rate_budget_remaining{account="acme",window="minute"} 6');
    expect(text).toContain('buildsync_rate_budget_remaining{account="acme",window="hour"} 16');
    expect(text).toContain('buildsync_rate_budget_limit{account="globex",window="hour"} 3');
    expect(text).toContain('buildsync_rate_budget_used{account="acme",window="hour"} 4');
    expect(text).toContain('buildsync_rate_paused_seconds{account="acme"} 0');
    expect(text).toMatch(/buildsync_rate_paused_seconds\{account="globex"\} (29\.\d+|30)\n/);
  });
});

describe('normalizeWindowName', () => {
  it('reads the window a 429 names in the words services use', () => {
    expect(normalizeWindowName('hour')).toBe('hour');
    expect(normalizeWindowName('Hourly')).toBe('hour');
    expect(normalizeWindowName('requests per day')).toBe('day');
    expect(normalizeWindowName('WEEK')).toBe('week');
    expect(normalizeWindowName('monthly quota')).toBe('month');
    expect(normalizeWindowName('per minute')).toBe('minute');
    expect(normalizeWindowName('10 per second')).toBe('second');
    expect(normalizeWindowName('quota')).toBeUndefined();
    expect(normalizeWindowName(undefined)).toBeUndefined();
  });
});
