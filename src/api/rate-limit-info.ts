/**
 * How long a 429 asks us to wait, and which window it names. The seed says only that limits apply
 * per user over hour, day, week and month and that exceeding one yields 429 (§8); it shows no
 * header or body layout, so every common form is read, most explicit first:
 * `Retry-After` (seconds or an HTTP-date, RFC 9110 §10.2.3), `RateLimit-Reset` /
 * `X-RateLimit-Reset` (seconds from now, or a Unix time when it is that large), then a wait written
 * in the JSON body's message ("Try again in 41 minutes", "retry after 120 s").
 */
type Headers = Record<string, string | string[] | undefined>;

export interface RateLimitInfo {
  retryAfterMs: number | undefined;
  window: string | undefined;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

const WAIT_IN_TEXT =
  /\b(?:in|after|wait|for)\s+(\d+(?:\.\d+)?)\s*(milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)\b/i;

const WINDOW_IN_TEXT = /\b(hourly|daily|weekly|monthly|hours?|days?|weeks?|months?|minutes?|seconds?)\b/i;

const WINDOW_NAMES: Record<string, string> = { hourly: 'hour', daily: 'day', weekly: 'week', monthly: 'month' };

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function unitMs(unit: string): number {
  const u = unit.toLowerCase();
  if (u === 'ms' || u.startsWith('milli')) return UNIT_MS.ms!;
  return UNIT_MS[u[0]!] ?? 1000;
}

/** `Retry-After`: delay-seconds or an HTTP-date. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** `RateLimit-Reset`-style value: seconds from now, or a Unix time in seconds or milliseconds. */
function parseReset(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return undefined;
  const n = Number(value);
  if (n > 1e12) return Math.max(0, n - nowMs);
  if (n > 1e9) return Math.max(0, n * 1000 - nowMs);
  return Math.round(n * 1000);
}

function messageOf(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    const parts = [b.Message, b.message, b.MessageDetail, b.error, b.Error].filter((p): p is string => typeof p === 'string');
    return parts.length > 0 ? parts.join(' ') : JSON.stringify(body);
  }
  return '';
}

export function parseRateLimit(headers: Headers, body: unknown, nowMs = Date.now()): RateLimitInfo {
  let text = messageOf(body);
  let retryAfterMs =
    parseRetryAfter(header(headers, 'retry-after'), nowMs) ??
    parseReset(header(headers, 'ratelimit-reset'), nowMs) ??
    parseReset(header(headers, 'x-ratelimit-reset'), nowMs);
  const wait = WAIT_IN_TEXT.exec(text);
  if (wait) {
    retryAfterMs ??= Math.round(Number(wait[1]) * unitMs(wait[2]!));
    // "in 41 minutes" is a wait, not the window's name.
    text = text.slice(0, wait.index) + text.slice(wait.index + wait[0].length);
  }
  const named = WINDOW_IN_TEXT.exec(text);
  const word = named?.[1]?.toLowerCase();
  const window = word === undefined ? undefined : (WINDOW_NAMES[word] ?? word.replace(/s$/, ''));
  return { retryAfterMs, window };
}
