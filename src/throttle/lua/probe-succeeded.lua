-- probeSucceeded: KEYS probe, probelock. ARGV token.
-- Ends probe mode when the request that succeeded was this worker's probe. The episode stays:
-- 429s of sends granted before it still belong to its burst.
if redis.call('GET', KEYS[2]) == ARGV[1] or redis.call('HGET', KEYS[1], 'probing') ~= '1' then
  redis.call('DEL', KEYS[1], KEYS[2])
  return 1
end
return 0
