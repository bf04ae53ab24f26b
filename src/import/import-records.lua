-- What a record job reads before it sends, in one round trip: the import's meta, then for each of
-- its records (numbers ARGV[1] .. ARGV[1] + ARGV[2] - 1) its plan entry (false when gone) and
-- whether its outcome is settled already (1 or 0: an earlier run of the job settled it, and the
-- first outcome stands). KEYS: meta, plan, outcomes (one import: one hash slot on a cluster).
local first, count = tonumber(ARGV[1]), tonumber(ARGV[2])
local fields = {}
for i = 1, count do fields[i] = tostring(first + i - 1) end
local entries = redis.call('HMGET', KEYS[2], unpack(fields))
-- Each record's key is its entry's first element (encodePlanEntry: `["KEY",...`): the JSON string
-- is found by its closing quote, skipping escapes, and decoded alone.
local keys, at = {}, {}
for i = 1, count do
  local entry = entries[i]
  if entry then
    local from = 3
    while true do
      local q = string.find(entry, '["\\]', from)
      if not q then return redis.error_reply('a plan entry of ' .. KEYS[2] .. ' does not start with a key') end
      if string.sub(entry, q, q) == '"' then
        keys[#keys + 1] = cjson.decode('[' .. string.sub(entry, 2, q) .. ']')[1]
        at[i] = #keys
        break
      end
      from = q + 2
    end
  end
end
local outcomes = #keys > 0 and redis.call('HMGET', KEYS[3], unpack(keys)) or {}
local out = {redis.call('GET', KEYS[1])}
for i = 1, count do
  out[#out + 1] = entries[i]
  out[#out + 1] = (at[i] and outcomes[at[i]]) and 1 or 0
end
return out
