-- The marker there, or `fresh` written as the marker when there is none. KEYS: the marker. ARGV: fresh
local m = redis.call('GET', KEYS[1])
if m then return m end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
