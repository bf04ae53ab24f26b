-- withdraw: KEYS log, learned, episode. ARGV member, then the six windows.
-- The send never left (its ticket went stale while it waited for a send slot): removes it from
-- the log. When the first 429 of a burst had counted it as sent, the episode's window is learned
-- again without it.
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
