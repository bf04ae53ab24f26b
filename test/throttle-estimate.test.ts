import { describe, expect, it } from 'vitest';
import { estimateDurationMs } from '../src/throttle/index.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('estimateDurationMs', () => {
  it('is 0 when everything fits in the budget now, or nothing is limited', () => {
    expect(estimateDurationMs({ hour: 500 }, [], 500, 0)).toBe(0);
    expect(estimateDurationMs({}, [], 1_000_000, 0)).toBe(0);
    expect(estimateDurationMs({ hour: 500 }, [], 0, 0)).toBe(0);
  });

  it('counts whole windows of one limit', () => {
    expect(estimateDurationMs({ hour: 500 }, [], 501, 0)).toBe(HOUR);
    expect(estimateDurationMs({ hour: 500 }, [], 1_500, 0)).toBe(2 * HOUR);
  });

  it('counts every window: 12,000 at hour=500,day=10000 ends tomorrow, not in 24 hours', () => {
    // 500 an hour for 20 hours (10,000), then the rolling day blocks until 24 h after the first
    // send; the last 2,000 go at 24, 25, 26 and 27 h: done in the 28th hour.
    const eta = estimateDurationMs({ hour: 500, day: 10_000 }, [], 12_000, 0);
    expect(eta).toBe(27 * HOUR);
    expect(estimateDurationMs({ hour: 500, day: 10_000 }, [], 10_000, 0)).toBe(19 * HOUR);
  });

  it('starts from the sends already made', () => {
    const now = 10 * HOUR;
    // 500 sent half an hour ago: the hour frees at now + 30 min.
    expect(estimateDurationMs({ hour: 500 }, [{ at: now - HOUR / 2, count: 500 }], 1, now)).toBe(HOUR / 2);
    // Single timestamps work too: sends at 1 s, 2 s and 3 s under minute=3 leave at 61 s and 62 s.
    expect(estimateDurationMs({ minute: 3 }, [1_000, 2_000, 3_000], 2, 30_000)).toBe(62_000 - 30_000);
  });

  it('waits out a budget already over its (learned) limit', () => {
    // Sends at 0 s .. 799 s; an hour later 799 are still counted against a limit lowered to 500,
    // so the 300 sent at 1 s .. 300 s must leave first: the last of them at 300 s + 1 h.
    const usage = Array.from({ length: 800 }, (_, i) => ({ at: i * 1_000, count: 1 }));
    expect(estimateDurationMs({ hour: 500 }, usage, 1, HOUR)).toBe(300_000);
  });

  it('applies timeScale to window lengths', () => {
    expect(estimateDurationMs({ hour: 500 }, [], 1_000, 0, { timeScale: 3_600 })).toBe(1_000);
  });

  // A guard against an estimate that walks request by request (hours for a million), not a speed
  // measurement: the bound is far above the milliseconds it takes, so a loaded machine passes.
  it('is fast for a million requests, even after evenly spread sends', () => {
    const limits = { hour: 500, day: 10_000, week: 50_000, month: 200_000 };
    const spread = Array.from({ length: 500 }, (_, i) => i * 7_200);
    const started = performance.now();
    const eta = estimateDurationMs(limits, spread, 1_000_000, HOUR);
    expect(performance.now() - started).toBeLessThan(15_000);
    // 200,000 a month: a million takes just under five months.
    expect(eta).toBeGreaterThan(4 * 30 * DAY);
    expect(eta).toBeLessThan(5 * 30 * DAY);
  });
});
