-- Helpers every script starts with. Numbers go to Redis through string.format: Lua's default
-- number-to-string keeps 14 digits, which would round millisecond timestamps.
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
