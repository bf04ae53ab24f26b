import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/errors/index.ts';
import { DEFAULT_LIMITS, parseSandboxLimits, startSandbox } from '../src/sandbox/index.ts';

describe('sandbox options', () => {
  it('parses limits like "hour=500,day=10000" and "none"', () => {
    expect(parseSandboxLimits('hour=500,day=10000')).toEqual({ hour: 500, day: 10_000 });
    expect(parseSandboxLimits(' Second = 2 , month=200000 ')).toEqual({ second: 2, month: 200_000 });
    expect(parseSandboxLimits('none')).toBe('none');
    expect(parseSandboxLimits('NONE')).toBe('none');
  });

  it.each([
    ['', /empty value/],
    ['hour', /cannot read "hour"/],
    ['fortnight=3', /unknown window "fortnight"/],
    ['hour=5,hour=6', /given twice/],
    ['hour=0', /at least 1/],
    ['hour=-1', /cannot read/],
    ['hour=1.5', /cannot read/],
  ])('refuses %j with a ConfigError saying what to write', (text, message) => {
    try {
      parseSandboxLimits(text);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).code).toBe('BUILDSYNC_CONFIG_INVALID');
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).toMatch(/hour=500,day=10000/);
    }
  });

  it('defaults to the limits the real service publishes', () => {
    expect(DEFAULT_LIMITS).toEqual({ hour: 500, day: 10_000, week: 50_000, month: 200_000 });
  });

  it.each([
    [{ projects: -1 }, /projects/],
    [{ timeScale: 0 }, /timeScale/],
    [{ faults: { failAfterStore: 2 } }, /failAfterStore/],
    [{ limits: { hour: 0 } }, /limits.hour/],
    [{ counting: 'sliding' as 'rolling' }, /counting/],
    [{ prerender: 'yes' as unknown as boolean }, /sandbox prerender: got "yes"/],
  ])('refuses bad options at start-up: %j', async (opts, message) => {
    await expect(startSandbox(opts)).rejects.toThrow(message);
    await expect(startSandbox(opts)).rejects.toBeInstanceOf(ConfigError);
  });
});
