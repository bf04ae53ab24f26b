-- rateLimited: KEYS log, pause, probe, probelock, learned, episode, refused.
-- ARGV retryAfterMs (-1 unknown), probeInitialMs, probeMaxMs, stateTtlMs, named window ('' none),
-- candidate windows for an unnamed 429 (comma list, shortest first), the window and limit the
-- 429's message stated ('' and -1 when it stated none), the refused send's ticket ('' unknown),
-- keepMs, then the six windows.
-- Returns {pausePttl, learnedWindow, learnedLimit (-1 none)}.
--
-- A burst of 429s is one event: the sends granted before the first 429 reached us (in flight, or
-- waiting for a send slot in any worker) were made without knowing of it, and come back 429 too.
-- So the first 429 (an episode) snapshots, per window, the sends in the service's window (its
-- length, without our margin: sends older than that the service no longer counts), less those it
-- already refused before. Each 429 of a send granted before the episode began, and each such
-- send withdrawn unsent (see `withdraw`), is one the service did not count: the service's limit
-- is what was sent less those, learned anew after each (only ever lower). A burst's 429s neither
-- move the pause nor double the probe interval: they say nothing new about the service. Without
-- a ticket, a 429 is taken as part of the burst while the burst's pause lasts.
--
-- A 429 of a send granted after the episode began (the limit learned from it did not hold) starts
-- a new episode, except the probe's: while probing, the window only empties with time, and a limit
-- learned from it would fall towards 0.
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
