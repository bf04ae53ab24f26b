-- Writes entries where the ledger has none, `at` now. ARGV: pairs (field, entryJson). Returns how many were written.
local now = now_ms()
local n = 0
for i = 1, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then
    local e = cjson.decode(ARGV[i + 1])
    e.at = now
    redis.call('HSET', KEYS[1], ARGV[i], cjson.encode(e))
    n = n + 1
  end
end
return n
