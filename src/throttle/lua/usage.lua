-- usage: KEYS log. ARGV sinceMs-ago (the longest limited window), bucketMs.
-- Returns {now, flat [bucketTime, count, ...]}: the sends still inside the longest limited window,
-- grouped in buckets whose time is rounded *up* (a send is taken to leave its window a little
-- later than it does, so an estimate errs long, never short).
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
