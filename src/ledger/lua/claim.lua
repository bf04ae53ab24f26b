-- One round trip, atomic: two senders racing on one key cannot both get 'send'.
-- KEYS: ledger, its keys marker, its own marker. ARGV: recordKey, owner, importId, contentHash, leaseMs,
-- allowResend, reasonIfExpiredSending, keysVersion, expected marker ('' for any), resend lease ms ('' for
-- none: an estimate). 'lost': the marker is not the one the import started with; nothing is claimed.
-- 'migrate': the ledger holds entries keyed the old way; migrate, then claim.
if ARGV[9] ~= '' then
  local marker = redis.call('GET', KEYS[3])
  if marker ~= ARGV[9] then return {'lost', marker or ''} end
end
if redis.call('GET', KEYS[2]) ~= ARGV[8] then return {'migrate', ''} end
local now = now_ms()
local cur = redis.call('HGET', KEYS[1], ARGV[1])
local function claim(resend)
  local e = {state = 'claimed', owner = ARGV[2], importId = ARGV[3], contentHash = ARGV[4], leaseUntil = now + tonumber(ARGV[5]), at = now}
  if resend and ARGV[10] ~= '' then
    e.resentBy = ARGV[3]
    e.resendUntil = now + tonumber(ARGV[10])
  end
  redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(e))
end
if not cur then
  claim()
  return {'send', ''}
end
local e = cjson.decode(cur)
if e.state == 'created' then return {'skip', cur} end
if (e.state == 'claimed' or e.state == 'sending') and e.owner ~= ARGV[2] and (tonumber(e.leaseUntil) or 0) > now then
  return {'busy', cur}
end
if e.state == 'claimed' then
  claim()
  return {'send', cur}
end
-- A bill another import resent a moment ago (its lease): not resent again by this one.
local leased = ARGV[10] ~= '' and e.resentBy ~= nil and e.resentBy ~= ARGV[3] and (tonumber(e.resendUntil) or 0) > now
if ARGV[6] == '1' and not leased then
  claim(true)
  return {'resend', cur}
end
if e.state == 'sending' then
  e.state = 'unknown'
  e.reason = ARGV[7]
  e.owner = nil
  e.leaseUntil = nil
  e.at = now
  cur = cjson.encode(e)
  redis.call('HSET', KEYS[1], ARGV[1], cur)
end
return {'unknown', cur}
