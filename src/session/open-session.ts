import type { RedisConnection as Redis } from '../redis/layout.ts';
import { ServiceClient, type ResponseInfo } from '../api/index.ts';
import type { ServiceAccount } from '../config.ts';
import { AccountThrottle, type InlineWaitPool } from '../throttle/index.ts';

/** An account's client and the shared budget that gates it. */
export interface ServiceSession {
  account: ServiceAccount;
  client: ServiceClient;
  /** Absent without Redis (a --no-queue export), where only 429s pace the client. */
  throttle?: AccountThrottle;
  close(): Promise<void>;
}

export interface SessionOptions {
  /** Redis for the shared budget; without it the client is paced by 429s alone. */
  redis?: Redis;
  prefix: string;
  /** Requests in flight at once (undici Pool connections). */
  connections: number;
  /** Test knob: divides the budget's window lengths (BUILDSYNC_TIME_SCALE). */
  timeScale?: number;
  onResponse?: (info: ResponseInfo & { account: string }) => void;
  /** AccountThrottleOptions.maxInlineWaiters: `'auto'` in a worker, whose job slots many accounts share. */
  maxInlineWaiters?: number | 'auto';
  /** AccountThrottleOptions.inlineWaits: one pool for every account of a worker process. */
  inlineWaits?: InlineWaitPool;
}

/** Opens the client of one account, throttled by its budget in Redis when Redis is given. */
export function openSession(account: ServiceAccount, opts: SessionOptions): ServiceSession {
  const throttle = opts.redis
    ? new AccountThrottle({
        redis: opts.redis,
        account: account.name,
        limits: account.limits,
        prefix: opts.prefix,
        timeScale: opts.timeScale,
        maxInlineWaiters: opts.maxInlineWaiters,
        inlineWaits: opts.inlineWaits,
      })
    : undefined;
  const client = new ServiceClient({
    baseUrl: account.baseUrl,
    email: account.email,
    password: account.password.reveal(),
    apiKey: account.apiKey.reveal(),
    connections: opts.connections,
    gate: throttle,
    onResponse: opts.onResponse ? (info) => opts.onResponse!({ ...info, account: account.name }) : undefined,
  });
  return {
    account,
    client,
    throttle,
    close: () => client.close(),
  };
}
