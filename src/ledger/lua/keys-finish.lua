-- Sets the marker to ARGV[2] only if it still holds ARGV[1] ('' for none): a `ledger import` of
-- old entries that came during the migration leaves a token of its own, and the next claim migrates again.
local cur = redis.call('GET', KEYS[1]) or ''
if cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
