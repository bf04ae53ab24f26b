-- ARGV: oldField, newField, … pairs. Returns how many were copied.
local n = 0
local function state(v)
  local ok, e = pcall(cjson.decode, v)
  if ok and type(e) == 'table' then return e.state end
  return nil
end
for i = 1, #ARGV, 2 do
  local old = redis.call('HGET', KEYS[1], ARGV[i])
  if old then
    local cur = redis.call('HGET', KEYS[1], ARGV[i + 1])
    if (not cur) or (state(old) == 'created' and state(cur) ~= 'created') then
      redis.call('HSET', KEYS[1], ARGV[i + 1], old)
      n = n + 1
    end
  end
end
return n
