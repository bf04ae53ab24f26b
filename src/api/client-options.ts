import { ConfigError } from '../errors/index.ts';
import type { ResponseInfo } from './http-transport.ts';
import type { RequestGate } from './request-retry.ts';

export interface ClientOptions {
  /** The service's base address, e.g. `https://api.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** HTTP Basic user name (docs/service.md, Authentication). */
  email: string;
  password: string;
  /** Value of the `APIKey` header (docs/service.md, Authentication). */
  apiKey: string;
  /** undici Pool connections. @defaultValue 8 */
  connections?: number;
  /** Headers timeout and body (between chunks) timeout. @defaultValue 60_000 */
  timeoutMs?: number;
  /** @defaultValue 'gzip, deflate, br' */
  acceptEncoding?: string;
  /** Optional throttle (src/throttle): `acquire()` before every attempt, `onRateLimited()` on 429. */
  gate?: RequestGate;
  /** Retries after the first attempt for failures that are safe to retry. @defaultValue 3 */
  retries?: number;
  /** Metrics hook, called once per HTTP answer (not for connection failures). */
  onResponse?: (info: ResponseInfo) => void;
  /** First backoff ceiling of the full-jitter backoff. @defaultValue 200 */
  retryBaseMs?: number;
  /** Largest backoff. @defaultValue 10_000 */
  retryCapMs?: number;
  /**
   * Without a gate, a 429 asking for a longer wait than this is thrown at once instead of slept
   * through (a queue can reschedule; a process should not sit silent for 41 minutes).
   * @defaultValue 60_000
   */
  maxRetryAfterMs?: number;
}

export type ResolvedClientOptions = Required<Omit<ClientOptions, 'gate' | 'onResponse'>> & Pick<ClientOptions, 'gate' | 'onResponse'>;

export const CLIENT_DEFAULTS = {
  connections: 8,
  timeoutMs: 60_000,
  acceptEncoding: 'gzip, deflate, br',
  retries: 3,
  retryBaseMs: 200,
  retryCapMs: 10_000,
  maxRetryAfterMs: 60_000,
} as const;

function count(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`client option ${name} must be an integer of at least ${min}, got ${value}`);
  return value;
}

export function resolveClientOptions(opts: ClientOptions): ResolvedClientOptions {
  let url: URL;
  try {
    url = new URL(opts.baseUrl);
  } catch {
    throw new ConfigError(`the base URL is not a URL; write it like https://api.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`the base URL must start with http:// or https://, got ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new ConfigError('the base URL must not carry credentials; set the e-mail and password separately');
  }
  const r: ResolvedClientOptions = { ...CLIENT_DEFAULTS, ...opts };
  count('connections', r.connections, 1);
  count('timeoutMs', r.timeoutMs, 1);
  count('retries', r.retries, 0);
  count('retryBaseMs', r.retryBaseMs, 0);
  count('retryCapMs', r.retryCapMs, 0);
  count('maxRetryAfterMs', r.maxRetryAfterMs, 0);
  return r;
}
