import { describe, expect, it } from 'vitest';
import { configError } from './helpers/config-error.ts';
import { DEFAULT_LIMITS, formatLimits, parseLimits } from '../src/throttle/index.ts';
import { DEFAULTS, loadConfig } from '../src/config.ts';
import { buildProgram } from '../src/cli/program/index.ts';
import { DEFAULT_LIMITS as SANDBOX_DEFAULT_LIMITS } from '../src/sandbox/index.ts';

describe('parseLimits', () => {
  it('gives the published budget when the variable is unset or blank', () => {
    expect(parseLimits(undefined)).toEqual({ hour: 500, day: 10_000, week: 50_000, month: 200_000 });
    expect(parseLimits('  ')).toEqual(DEFAULT_LIMITS);
  });

  it('reads any subset of the six windows, case and spaces aside', () => {
    expect(parseLimits('hour=500,day=10000')).toEqual({ hour: 500, day: 10_000 });
    expect(parseLimits(' Second=5 , MINUTE=60,week=7,month=30 ')).toEqual({ second: 5, minute: 60, week: 7, month: 30 });
  });

  it('reads none as no configured limit', () => {
    expect(parseLimits('none')).toEqual({});
    expect(parseLimits('NONE')).toEqual({});
  });

  it('names the unknown window and lists the valid ones', () => {
    const err = configError(() => parseLimits('hour=500,fortnight=3'));
    expect(err.message).toBe('BUILDSYNC_LIMITS: unknown window "fortnight" in "fortnight=3"; use second, minute, hour, day, week, month, e.g. hour=500,day=10000 or none');
  });

  it('refuses counts that are not whole numbers of at least 1', () => {
    for (const bad of ['hour=0', 'hour=-5', 'hour=1.5', 'hour=10k', 'hour=']) {
      const err = configError(() => parseLimits(bad, 'BUILDSYNC_ACME_LIMITS'));
      expect(err.message).toBe(`BUILDSYNC_ACME_LIMITS: ${JSON.stringify(bad)}: the limit must be a whole number of requests, at least 1, e.g. hour=500,day=10000 or none`);
    }
  });

  it('refuses a missing =, a repeated window, an empty entry and none mixed with limits', () => {
    expect(configError(() => parseLimits('hour500')).message).toBe('BUILDSYNC_LIMITS: "hour500": expected window=count, e.g. hour=500,day=10000 or none');
    expect(configError(() => parseLimits('hour=1,hour=2')).message).toBe('BUILDSYNC_LIMITS: window hour is given twice; give each window once, e.g. hour=500,day=10000 or none');
    expect(configError(() => parseLimits('hour=1,,day=2')).message).toContain('empty entry between commas');
    expect(configError(() => parseLimits('none,hour=5')).message).toBe('BUILDSYNC_LIMITS: "none": "none" cannot be combined with limits, e.g. hour=500,day=10000 or none');
  });

  it('formats limits back, shortest window first', () => {
    expect(formatLimits({ day: 10_000, hour: 500 })).toBe('hour=500,day=10000');
    expect(formatLimits({})).toBe('none');
    expect(parseLimits(formatLimits(DEFAULT_LIMITS))).toEqual(DEFAULT_LIMITS);
  });

  it('DEFAULT_LIMITS is the one default budget: the configuration writes it and an account without BUILDSYNC_LIMITS gets it', () => {
    expect(DEFAULTS.limits).toBe(formatLimits(DEFAULT_LIMITS));
    expect(DEFAULTS.limits).toBe('hour=500,day=10000,week=50000,month=200000');
    const account = loadConfig({ env: {} }).account;
    expect(account.limits).toEqual(DEFAULT_LIMITS);
    expect(account.limitsText).toBe(DEFAULTS.limits);
  });

  it("the sandbox command's --limits default is the sandbox's own default, as written", () => {
    const sandbox = buildProgram('0.0.0').commands.find((c) => c.name() === 'sandbox')!;
    const limits = sandbox.options.find((o) => o.long === '--limits')!;
    expect(limits.defaultValue).toBe(formatLimits(SANDBOX_DEFAULT_LIMITS));
    expect(limits.defaultValue).toBe('hour=500,day=10000,week=50000,month=200000');
  });
});
