-- acquire: KEYS log, pause, probe, probelock, learned, refused.
-- ARGV token, keepMs, cap, probeLockMaxMs, then the six windows.
-- Returns {0, '', 0, member} sent, {0, 'probe', 0, member} sent as the one probe, or
-- {waitMs, reason, limit} where reason is 'pause', 'probe' (another worker is probing) or the
-- binding window's name. `member` names the send in the log: the ticket for `settle`,
-- `withdraw` and `rateLimited`.
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
