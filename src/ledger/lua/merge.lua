-- ARGV: groups of 4 (field, entryJson, state, id or ''). Returns {added, kept, conflicts, conflictKey…}.
-- MAX_CONFLICT_KEYS: a local ledger-admin.ts puts before this file (its constant of that name).
-- An existing value that is not JSON counts as not created (pcall): a created record replaces it.
local added, kept, conflicts = 0, 0, 0
local keys = {}
for i = 1, #ARGV, 4 do
  local field, value, state, id = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local cur = redis.call('HGET', KEYS[1], field)
  if not cur then
    redis.call('HSET', KEYS[1], field, value)
    added = added + 1
  else
    local ok, e = pcall(cjson.decode, cur)
    if ok and type(e) == 'table' and e.state == 'created' then
      local a, b = tonumber(e.id), tonumber(id)
      if state == 'created' and not ((a ~= nil and a == b) or tostring(e.id) == id) then
        conflicts = conflicts + 1
        if #keys < MAX_CONFLICT_KEYS then keys[#keys + 1] = field end
      else
        kept = kept + 1
      end
    elseif state == 'created' then
      redis.call('HSET', KEYS[1], field, value)
      added = added + 1
    else
      kept = kept + 1
    end
  end
end
local out = {added, kept, conflicts}
for _, k in ipairs(keys) do out[#out + 1] = k end
return out
