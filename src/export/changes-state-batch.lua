-- KEYS[1] the next state; ARGV[1] entries `ID:LLLLLLLL:VALUE` one after the other (see
-- `addEntry`); ARGV[2] a TTL in ms to set, or 0. HSETs them, 256 fields per call (Lua's unpack
-- has a stack limit). Returns the number of entries.
local data = ARGV[1]
local at, n, size = 1, 0, #data
local fields = {}
while at <= size do
  local colon = string.find(data, ':', at, true)
  local len = tonumber(string.sub(data, colon + 1, colon + 8))
  fields[#fields + 1] = string.sub(data, at, colon - 1)
  fields[#fields + 1] = string.sub(data, colon + 10, colon + 9 + len)
  at = colon + 10 + len
  n = n + 1
  if #fields >= 512 then
    redis.call('HSET', KEYS[1], unpack(fields))
    fields = {}
  end
end
if #fields > 0 then redis.call('HSET', KEYS[1], unpack(fields)) end
if tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return n
