-- Removes the entry only while the caller still holds it. ARGV: recordKey, owner
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then return 0 end
local e = cjson.decode(cur)
if e.owner ~= ARGV[2] or (e.state ~= 'claimed' and e.state ~= 'sending') then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
