import { describe, expect, it } from 'vitest';
import { parseRateLimit, parseRetryAfter } from '../src/api/rate-limit-info.ts';

const now = Date.parse('2024-05-01T12:00:00Z');

describe('a 429 says how long to wait and which window it hit', () => {
  it('reads Retry-After as seconds or as an HTTP-date', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
    expect(parseRetryAfter('Wed, 01 May 2024 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 01 May 2024 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });

  it('prefers Retry-After, then RateLimit-Reset, then X-RateLimit-Reset', () => {
    expect(parseRateLimit({ 'retry-after': '5', 'ratelimit-reset': '9' }, undefined, now).retryAfterMs).toBe(5000);
    expect(parseRateLimit({ 'ratelimit-reset': '9' }, undefined, now).retryAfterMs).toBe(9000);
    expect(parseRateLimit({ 'x-ratelimit-reset': String(now / 1000 + 60) }, undefined, now).retryAfterMs).toBe(60_000);
  });

  it.each([
    ['Rate limit exceeded. Try again in 41 minutes.', 41 * 60_000, undefined],
    ['Hourly quota exceeded; try again in 2.5 seconds', 2500, 'hour'],
    ['API calls quota exceeded! maximum admitted 500 per day. Retry after 120 s', 120_000, 'day'],
    ['Weekly limit reached, wait 3 hours', 3 * 3_600_000, 'week'],
    ['Too many requests this month', undefined, 'month'],
    ['Too many requests', undefined, undefined],
  ])('reads the wait and window in %j', (message, wait, window) => {
    expect(parseRateLimit({}, { Message: message }, now)).toEqual({ retryAfterMs: wait, window });
  });

  it('takes the wait from headers and the window from the message', () => {
    expect(parseRateLimit({ 'retry-after': '7' }, { Message: 'hour limit of 500 requests reached' }, now)).toEqual({ retryAfterMs: 7000, window: 'hour' });
    expect(parseRateLimit({}, 'plain text: try again in 10 min', now)).toEqual({ retryAfterMs: 600_000, window: undefined });
  });
});
