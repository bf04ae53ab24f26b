-- Redis's clock in whole milliseconds; the ledger's scripts that stamp an entry start with it.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
