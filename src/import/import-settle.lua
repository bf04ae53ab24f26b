-- First outcome wins; the per-status counter moves only when the outcome was new, and the outcome
-- goes on the import's log, which the command following it reads as it grows (`outcomeLog`).
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
  redis.call('RPUSH', KEYS[3], ARGV[1] .. '\n' .. ARGV[2])
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  redis.call('EXPIRE', KEYS[2], ARGV[4])
  redis.call('EXPIRE', KEYS[3], ARGV[4])
  return 1
end
return 0
