import type { RedisConnection } from '../redis/layout.ts';
import PRELUDE from './lua/prelude.lua';
import ACQUIRE from './lua/acquire.lua';
import SETTLE from './lua/settle.lua';
import WITHDRAW from './lua/withdraw.lua';
import RATE_LIMITED from './lua/rate-limited.lua';
import PROBE_SUCCEEDED_LUA from './lua/probe-succeeded.lua';
import STATUS from './lua/status.lua';
import USAGE from './lua/usage.lua';

/**
 * The Lua scripts that hold an account's shared budget. Every decision runs inside one script so
 * that any number of workers on any number of machines see one consistent state, and every
 * script reads the clock with Redis `TIME` so that machines with skewed clocks still agree.
 *
 * Data, per account (`<prefix>:throttle:<account>:…`; on a Redis Cluster `<prefix>:{<account>}:throttle:…`,
 * one slot per account, see src/redis/layout.ts), every key passed in KEYS:
 * - `log`: a sorted set of sends, member `<grant ms>:<token>` (the gate's ticket), score = the
 *   latest time the service may have counted the send (its grant, then the end of its attempt,
 *   see `settle`), in ms of the Redis clock; once the service answered, less the shortest
 *   window's margin (see `settle`).
 *   A sliding log, not fixed-window counters: it guarantees at most N sends in *every* interval
 *   of the window's length, so the budget holds whether the service counts rolling windows or
 *   aligned ones (a fixed-window counter, as rate-limiter-flexible's RateLimiterRedis keeps, can
 *   let 2N through across an aligned boundary). Kept for the longest window (a month) even with
 *   no configured limit, so that a 429 has usage to learn from.
 * - `pause`: exists (with a PX expiry) while the account is paused by a 429; its value is a JSON
 *   object saying why (`{"kind":"retry-after"|"probe", ...}`).
 * - `probe`: hash `{probing, consecutive, interval}` while 429s without a stated wait are being
 *   probed out; `probelock`: the one worker allowed to send while probing.
 * - `learned`: hash `window -> limit` and `window:at -> ms`, limits a 429 taught, applied on top
 *   of the configured ones (the lower wins).
 * - `refused`: the sends of the log that the service answered 429, with the same members and
 *   scores. They stay in the log, so the budget still counts them (a service may count refused
 *   requests too), but learning does not take them for sends the service accepted.
 * - `episode`: what the first 429 of a burst saw (see `rateLimited`): its time `t0`, per window
 *   the sends then in the window (`<window>`) and how many of those the service turned out not to
 *   count (`gone:<window>`), the window being learned (`window`) and whether the service stated
 *   its limit (`stated`).
 *
 * Window arguments are always all six windows, shortest first: `name, countedMs, lengthMs,
 * configured`, where countedMs is how long a send counts against the budget (the window's length
 * plus the margin, see AccountThrottleOptions.margin), lengthMs the service's window itself, and
 * configured = -1 for none; scripts combine them with `learned`.
 *
 * Each script is a file of lua/ (its KEYS, ARGV and reply in its header), read at build time as
 * text (bin/build.mjs; vitest.config.ts and bin/source-loader.mjs when the sources run as they
 * are); all but probe-succeeded start with lua/prelude.lua's helpers.
 */
const ACQUIRE_LUA = PRELUDE + ACQUIRE;
const SETTLE_LUA = PRELUDE + SETTLE;
const WITHDRAW_LUA = PRELUDE + WITHDRAW;
const RATE_LIMITED_LUA = PRELUDE + RATE_LIMITED;
const STATUS_LUA = PRELUDE + STATUS;
const USAGE_LUA = PRELUDE + USAGE;

type Reply = unknown[];

/** The scripts as ioredis commands on one client (`defineCommand` caches them by SHA). */
export interface ThrottleCommands {
  bsThrottleAcquire(...args: (string | number)[]): Promise<Reply>;
  bsThrottleSettle(...args: (string | number)[]): Promise<number>;
  bsThrottleWithdraw(...args: (string | number)[]): Promise<number>;
  bsThrottleRateLimited(...args: (string | number)[]): Promise<Reply>;
  bsThrottleProbeSucceeded(...args: (string | number)[]): Promise<number>;
  bsThrottleStatus(...args: (string | number)[]): Promise<Reply>;
  bsThrottleUsage(...args: (string | number)[]): Promise<Reply>;
}

const defined = new WeakSet<RedisConnection>();

export function throttleCommands(redis: RedisConnection): ThrottleCommands {
  if (!defined.has(redis)) {
    redis.defineCommand('bsThrottleAcquire', { numberOfKeys: 6, lua: ACQUIRE_LUA });
    redis.defineCommand('bsThrottleSettle', { numberOfKeys: 1, lua: SETTLE_LUA });
    redis.defineCommand('bsThrottleWithdraw', { numberOfKeys: 3, lua: WITHDRAW_LUA });
    redis.defineCommand('bsThrottleRateLimited', { numberOfKeys: 7, lua: RATE_LIMITED_LUA });
    redis.defineCommand('bsThrottleProbeSucceeded', { numberOfKeys: 2, lua: PROBE_SUCCEEDED_LUA });
    redis.defineCommand('bsThrottleStatus', { numberOfKeys: 4, lua: STATUS_LUA });
    redis.defineCommand('bsThrottleUsage', { numberOfKeys: 1, lua: USAGE_LUA });
    defined.add(redis);
  }
  return redis as unknown as ThrottleCommands;
}
