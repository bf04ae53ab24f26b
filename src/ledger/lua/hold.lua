-- The owner's claimed (or already sending) entry becomes `sending` with a fresh lease; 0 when
-- the caller no longer holds it, -1 when the ledger's marker is not the expected one (the ledger
-- the import started with is gone). KEYS: ledger, its marker. ARGV: recordKey, owner, leaseMs,
-- state ('sending' or '' to only renew), expected marker ('' for any)
if ARGV[5] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[5] then return -1 end
local now = now_ms()
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then return 0 end
local e = cjson.decode(cur)
if e.owner ~= ARGV[2] or (e.state ~= 'claimed' and e.state ~= 'sending') then return 0 end
if ARGV[4] ~= '' then e.state = ARGV[4] end
e.leaseUntil = now + tonumber(ARGV[3])
e.at = now
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(e))
return 1
