-- settle: KEYS log. ARGV member, shiftMs. Moves a send to the time its attempt ended: the service
-- counted it on arrival, between the grant and now, so counting it from now keeps the next window
-- from opening before the service's does.
--
-- shiftMs > 0 when the service answered: then it has certainly counted the send by now, and the
-- margin (which covers a send still on its way, see AccountThrottleOptions.margin) is no longer
-- needed. The send is put at now - shiftMs, shiftMs being the shortest window's margin less a
-- little slack, so it counts against every window for its length from now at least: exactly that
-- for the shortest window, a little more for the longer ones, whose margins are larger. That may
-- put it before its grant (an answer faster than the margin): it is still counted until the
-- service stops counting it. Only a send still at its grant moves earlier; one already moved
-- (settled before) only ever moves later.
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score then
  local at = clock() - tonumber(ARGV[2])
  local grant = granted_at(ARGV[1])
  if grant and tonumber(score) == grant then
    redis.call('ZADD', KEYS[1], 'XX', fmt(at), ARGV[1])
  else
    redis.call('ZADD', KEYS[1], 'XX', 'GT', fmt(at), ARGV[1])
  end
end
return 1
