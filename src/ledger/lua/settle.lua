-- Writes an outcome (created / unknown) unless a created entry is already there; an unknown one
-- keeps the resend lease of the entry it replaces. ARGV: recordKey, entryJson
local now = now_ms()
local cur = redis.call('HGET', KEYS[1], ARGV[1])
local before = cur and cjson.decode(cur)
if before and before.state == 'created' then return 0 end
local e = cjson.decode(ARGV[2])
if before and e.state == 'unknown' and before.resentBy then
  e.resentBy = before.resentBy
  e.resendUntil = before.resendUntil
end
e.at = now
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(e))
return 1
