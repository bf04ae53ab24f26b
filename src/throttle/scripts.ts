import type { RedisConnection } from '../redis/layout.ts';

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
 */

/** Helpers every script starts with. Numbers go to Redis through string.format: Lua's default
 * number-to-string keeps 14 digits, which would round millisecond timestamps. */
const PRELUDE = `
local function fmt(x) return string.format('%.3f', x) end
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
local function read_windows(first, learnedKey)
  local learned = {}
  local flat = redis.call('HGETALL', learnedKey)
  for i = 1, #flat, 2 do learned[flat[i]] = tonumber(flat[i + 1]) end
  local ws = {}
  for i = first, first + 23, 4 do
    local w = { name = ARGV[i], counted = tonumber(ARGV[i + 1]), length = tonumber(ARGV[i + 2]), configured = tonumber(ARGV[i + 3]) }
    if w.configured < 0 then w.configured = nil end
    w.learned = learned[w.name]
    w.limit = w.configured
    if w.learned and (not w.limit or w.learned < w.limit) then w.limit = w.learned end
    table.insert(ws, w)
  end
  return ws
end
-- The wait until window w has room for one more send, 0 when it has room now.
local function window_wait(logKey, w, now, count)
  if not w.limit or count < w.limit then return 0 end
  -- The window's sends are the newest 'count' members; once the limit-th newest has left the
  -- window, fewer than 'limit' remain in it.
  local e = redis.call('ZRANGE', logKey, -w.limit, -w.limit, 'WITHSCORES')
  return tonumber(e[2]) + w.counted - now
end
-- When a send was granted: the ticket (log member) starts with it.
local function granted_at(member)
  return tonumber(string.match(member, '^([%d%.]+):'))
end
-- A send of the episode's snapshot that the service did not count after all (it answered 429, or
-- the send never left). score: the send's score in the log, or nil when not known (every window).
local function episode_gone(ws, episodeKey, t0, score)
  for _, w in ipairs(ws) do
    if not score or score > t0 - w.length then redis.call('HINCRBY', episodeKey, 'gone:' .. w.name, 1) end
  end
end
-- What the service accepted in window 'name' by the episode's first 429.
local function episode_accepted(episodeKey, name)
  local v = redis.call('HMGET', episodeKey, name, 'gone:' .. name)
  return tonumber(v[1] or '0') - tonumber(v[2] or '0')
end
-- Learns the episode's window from its counts, unless the service stated the limit. Only ever
-- lowers a limit, and never to 0: a 429 that what was sent does not explain (another client of
-- the same key, a longer window than ours) must not stall the account for good.
local function learn_from_episode(ws, episodeKey, learnedKey, now)
  local target = redis.call('HGET', episodeKey, 'window')
  if not target or redis.call('HGET', episodeKey, 'stated') == '1' then return '', -1 end
  for _, w in ipairs(ws) do
    if w.name == target then
      local accepted = episode_accepted(episodeKey, target)
      if accepted >= 1 and (not w.limit or accepted < w.limit) then
        redis.call('HSET', learnedKey, target, accepted, target .. ':at', math.floor(now))
        w.learned, w.limit = accepted, accepted
        return target, accepted
      end
    end
  end
  return '', -1
end
`;

/**
 * acquire: KEYS log, pause, probe, probelock, learned, refused.
 * ARGV token, keepMs, cap, probeLockMaxMs, then the six windows.
 * Returns {0, '', 0, member} sent, {0, 'probe', 0, member} sent as the one probe, or
 * {waitMs, reason, limit} where reason is 'pause', 'probe' (another worker is probing) or the
 * binding window's name. `member` names the send in the log: the ticket for `settle`,
 * `withdraw` and `rateLimited`.
 */
export const ACQUIRE_LUA = `${PRELUDE}
local now = clock()
local pausePttl = redis.call('PTTL', KEYS[2])
if pausePttl > 0 then return {pausePttl, 'pause', 0} end
local keep = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', fmt(now - keep))
redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', fmt(now - keep))
local ws = read_windows(5, KEYS[5])
local worstWait, worstName, worstLimit = 0, '', 0
for _, w in ipairs(ws) do
  if w.limit then
    local count = redis.call('ZCOUNT', KEYS[1], '(' .. fmt(now - w.counted), '+inf')
    local wait = window_wait(KEYS[1], w, now, count)
    if wait > worstWait then worstWait, worstName, worstLimit = wait, w.name, w.limit end
  end
end
if worstWait > 0 then return {math.ceil(worstWait), worstName, worstLimit} end
local kind = ''
if redis.call('HGET', KEYS[3], 'probing') == '1' then
  local interval = tonumber(redis.call('HGET', KEYS[3], 'interval') or ARGV[4])
  local lockMs = math.max(1, math.min(interval, tonumber(ARGV[4])))
  if not redis.call('SET', KEYS[4], ARGV[1], 'NX', 'PX', lockMs) then
    return {math.max(1, redis.call('PTTL', KEYS[4])), 'probe', 0}
  end
  kind = 'probe'
end
local member = fmt(now) .. ':' .. ARGV[1]
redis.call('ZADD', KEYS[1], fmt(now), member)
local cap = tonumber(ARGV[3])
if redis.call('ZCARD', KEYS[1]) > cap then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -cap - 1) end
redis.call('PEXPIRE', KEYS[1], math.ceil(keep))
return {0, kind, 0, member}
`;

/**
 * settle: KEYS log. ARGV member, shiftMs. Moves a send to the time its attempt ended: the service
 * counted it on arrival, between the grant and now, so counting it from now keeps the next window
 * from opening before the service's does.
 *
 * shiftMs > 0 when the service answered: then it has certainly counted the send by now, and the
 * margin (which covers a send still on its way, see AccountThrottleOptions.margin) is no longer
 * needed. The send is put at now - shiftMs, shiftMs being the shortest window's margin less a
 * little slack, so it counts against every window for its length from now at least: exactly that
 * for the shortest window, a little more for the longer ones, whose margins are larger. That may
 * put it before its grant (an answer faster than the margin): it is still counted until the
 * service stops counting it. Only a send still at its grant moves earlier; one already moved
 * (settled before) only ever moves later.
 */
export const SETTLE_LUA = `${PRELUDE}
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score then
  local at = clock() - tonumber(ARGV[2])
  local grant = granted_at(ARGV[1])
  if grant and tonumber(score) == grant then
    redis.call('ZADD', KEYS[1], 'XX', fmt(at), ARGV[1])
  else
    redis.call('ZADD', KEYS[1], 'XX', 'GT', fmt(at), ARGV[1])
  end
end
return 1
`;

/**
 * withdraw: KEYS log, learned, episode. ARGV member, then the six windows.
 * The send never left (its ticket went stale while it waited for a send slot): removes it from
 * the log. When the first 429 of a burst had counted it as sent, the episode's window is learned
 * again without it.
 */
export const WITHDRAW_LUA = `${PRELUDE}
local score = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
if not score then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
local t0 = tonumber(redis.call('HGET', KEYS[3], 't0') or '')
local grant = granted_at(ARGV[1])
if t0 and grant and grant <= t0 then
  local ws = read_windows(2, KEYS[2])
  episode_gone(ws, KEYS[3], t0, score)
  learn_from_episode(ws, KEYS[3], KEYS[2], clock())
end
return 1
`;

/**
 * rateLimited: KEYS log, pause, probe, probelock, learned, episode, refused.
 * ARGV retryAfterMs (-1 unknown), probeInitialMs, probeMaxMs, stateTtlMs, named window ('' none),
 * candidate windows for an unnamed 429 (comma list, shortest first), the window and limit the
 * 429's message stated ('' and -1 when it stated none), the refused send's ticket ('' unknown),
 * keepMs, then the six windows.
 * Returns {pausePttl, learnedWindow, learnedLimit (-1 none)}.
 *
 * A burst of 429s is one event: the sends granted before the first 429 reached us (in flight, or
 * waiting for a send slot in any worker) were made without knowing of it, and come back 429 too.
 * So the first 429 (an episode) snapshots, per window, the sends in the service's window (its
 * length, without our margin: sends older than that the service no longer counts), less those it
 * already refused before. Each 429 of a send granted before the episode began, and each such
 * send withdrawn unsent (see `withdraw`), is one the service did not count: the service's limit
 * is what was sent less those, learned anew after each (only ever lower). A burst's 429s neither
 * move the pause nor double the probe interval: they say nothing new about the service. Without
 * a ticket, a 429 is taken as part of the burst while the burst's pause lasts.
 *
 * A 429 of a send granted after the episode began (the limit learned from it did not hold) starts
 * a new episode, except the probe's: while probing, the window only empties with time, and a limit
 * learned from it would fall towards 0.
 */
export const RATE_LIMITED_LUA = `${PRELUDE}
local now = clock()
local retryAfter = tonumber(ARGV[1])
local pausePttl = redis.call('PTTL', KEYS[2])
local paused = pausePttl > 0
local probing = redis.call('HGET', KEYS[3], 'probing') == '1'
local stateTtl = tonumber(ARGV[4])
local ticket = ARGV[9]
local keep = tonumber(ARGV[10])
local ws = read_windows(11, KEYS[5])
local score, grant = nil, nil
if ticket ~= '' then
  score = tonumber(redis.call('ZSCORE', KEYS[1], ticket))
  grant = granted_at(ticket)
end
local t0 = tonumber(redis.call('HGET', KEYS[6], 't0') or '')
local inBurst
if score and grant then inBurst = t0 ~= nil and grant <= t0 else inBurst = paused and t0 ~= nil end
local learning = inBurst or not probing
local learnedName, learnedLimit = '', -1
if learning then
  if not inBurst then
    t0 = now
    redis.call('DEL', KEYS[6])
    redis.call('HSET', KEYS[6], 't0', fmt(now))
    for _, w in ipairs(ws) do
      local since = '(' .. fmt(now - w.length)
      local sent = redis.call('ZCOUNT', KEYS[1], since, '+inf') - redis.call('ZCOUNT', KEYS[7], since, '+inf')
      redis.call('HSET', KEYS[6], w.name, sent)
    end
  end
  episode_gone(ws, KEYS[6], t0, score)
  redis.call('PEXPIRE', KEYS[6], stateTtl)
  local target = ARGV[5]
  if target == '' then target = redis.call('HGET', KEYS[6], 'window') or '' end
  if target == '' then
    for name in string.gmatch(ARGV[6], '[^,]+') do
      for _, w in ipairs(ws) do
        if w.name == name and target == '' then
          local accepted = episode_accepted(KEYS[6], name)
          if accepted >= 1 and (not w.limit or w.limit > accepted) then target = name end
        end
      end
    end
  end
  local statedName, statedLimit = ARGV[7], tonumber(ARGV[8])
  if statedName ~= '' and statedLimit >= 1 then
    -- The service named its limit: take its word over any count (and over an earlier guess).
    redis.call('HSET', KEYS[6], 'window', statedName, 'stated', '1')
    for _, w in ipairs(ws) do
      if w.name == statedName then
        if not w.configured or statedLimit < w.configured then
          redis.call('HSET', KEYS[5], statedName, statedLimit, statedName .. ':at', math.floor(now))
          learnedName, learnedLimit = statedName, statedLimit
        else
          redis.call('HDEL', KEYS[5], statedName, statedName .. ':at')
        end
      end
    end
  elseif target ~= '' then
    redis.call('HSET', KEYS[6], 'window', target)
    learnedName, learnedLimit = learn_from_episode(ws, KEYS[6], KEYS[5], now)
  end
end
if score then
  -- Refused: the budget keeps counting it, learning never takes it for an accepted send.
  redis.call('ZADD', KEYS[7], fmt(score), ticket)
  redis.call('PEXPIRE', KEYS[7], math.ceil(keep))
end
local window = ARGV[5]
if retryAfter >= 0 then
  -- The service said how long: obey it, and resume fully afterwards (no probing).
  local ms = math.max(1, math.ceil(retryAfter), pausePttl)
  redis.call('SET', KEYS[2], cjson.encode({kind = 'retry-after', waitMs = math.ceil(retryAfter), window = window, at = math.floor(now)}), 'PX', ms)
  redis.call('DEL', KEYS[3], KEYS[4])
elseif not paused and not inBurst then
  local consecutive = redis.call('HINCRBY', KEYS[3], 'consecutive', 1)
  local interval = math.min(tonumber(ARGV[2]) * 2 ^ (consecutive - 1), tonumber(ARGV[3]))
  interval = math.max(1, math.ceil(interval))
  redis.call('HSET', KEYS[3], 'probing', '1', 'interval', interval)
  redis.call('PEXPIRE', KEYS[3], stateTtl)
  redis.call('SET', KEYS[2], cjson.encode({kind = 'probe', intervalMs = interval, window = window, at = math.floor(now)}), 'PX', interval)
  redis.call('DEL', KEYS[4])
end
return {math.max(0, redis.call('PTTL', KEYS[2])), learnedName, learnedLimit}
`;

/**
 * probeSucceeded: KEYS probe, probelock. ARGV token.
 * Ends probe mode when the request that succeeded was this worker's probe. The episode stays:
 * 429s of sends granted before it still belong to its burst.
 */
export const PROBE_SUCCEEDED_LUA = `
if redis.call('GET', KEYS[2]) == ARGV[1] or redis.call('HGET', KEYS[1], 'probing') ~= '1' then
  redis.call('DEL', KEYS[1], KEYS[2])
  return 1
end
return 0
`;

/**
 * status: KEYS log, pause, probe, learned. ARGV the six windows.
 * Returns {now, pausePttl, pauseJson, probing, probeInterval, learnedFlat, rows} where rows has,
 * per window: name, count, oldestScore ('' none), waitMs.
 */
export const STATUS_LUA = `${PRELUDE}
local now = clock()
local ws = read_windows(1, KEYS[4])
local rows = {}
for _, w in ipairs(ws) do
  local count = redis.call('ZCOUNT', KEYS[1], '(' .. fmt(now - w.counted), '+inf')
  local oldest = ''
  if count > 0 then
    local e = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. fmt(now - w.counted), '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
    oldest = e[2]
  end
  table.insert(rows, w.name)
  table.insert(rows, count)
  table.insert(rows, oldest)
  table.insert(rows, fmt(window_wait(KEYS[1], w, now, count)))
end
return {fmt(now), redis.call('PTTL', KEYS[2]), redis.call('GET', KEYS[2]) or '',
  redis.call('HGET', KEYS[3], 'probing') or '', redis.call('HGET', KEYS[3], 'interval') or '',
  redis.call('HGETALL', KEYS[4]), rows}
`;

/**
 * usage: KEYS log. ARGV sinceMs-ago (the longest limited window), bucketMs.
 * Returns {now, flat [bucketTime, count, ...]}: the sends still inside the longest limited window,
 * grouped in buckets whose time is rounded *up* (a send is taken to leave its window a little
 * later than it does, so an estimate errs long, never short).
 */
export const USAGE_LUA = `${PRELUDE}
local now = clock()
local q = tonumber(ARGV[2])
local scores = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. fmt(now - tonumber(ARGV[1])), '+inf', 'WITHSCORES')
local out, lastT, lastN = {}, nil, 0
for i = 2, #scores, 2 do
  local t = math.ceil(tonumber(scores[i]) / q) * q
  if t == lastT then lastN = lastN + 1 else
    if lastT then table.insert(out, fmt(lastT)); table.insert(out, lastN) end
    lastT, lastN = t, 1
  end
end
if lastT then table.insert(out, fmt(lastT)); table.insert(out, lastN) end
return {fmt(now), out}
`;

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
