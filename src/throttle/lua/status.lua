-- status: KEYS log, pause, probe, learned. ARGV the six windows.
-- Returns {now, pausePttl, pauseJson, probing, probeInterval, learnedFlat, rows} where rows has,
-- per window: name, count, oldestScore ('' none), waitMs.
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
