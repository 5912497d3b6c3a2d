-- heartbeat: keep a boot alive and extend its live slots; a lost slot is not resurrected.
-- KEYS[1] the boot's alive key  KEYS[2] the boot's slot index
-- KEYS[3+2i] lease i's admission slots zset  KEYS[4+2i] lease i's account slots zset
-- ARGV[1] ttl ms  ARGV[2+2i] lease i's request id ('' = none)  ARGV[3+2i] its account token ('' = none)
local now = now_ms()
local ttl = tonumber(ARGV[1])
local renewed, lost = 0, 0
local function renew(key, member)
  if member == '' then return end
  if slot_held(key, member, now) then
    redis.call('ZADD', key, 'XX', int(now + ttl), member)
    expire_at_least(key, ttl)
    redis.call('ZADD', KEYS[2], int(now + ttl), key .. '|' .. member)
    renewed = renewed + 1
  else
    lost = lost + 1
  end
end
for i = 0, (#KEYS - 2) / 2 - 1 do
  renew(KEYS[3 + 2 * i], ARGV[2 + 2 * i])
  renew(KEYS[4 + 2 * i], ARGV[3 + 2 * i])
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', int(now))
if redis.call('EXISTS', KEYS[2]) == 1 then expire_at_least(KEYS[2], ttl) end
redis.call('SET', KEYS[1], '1', 'PX', int(ttl))
return {renewed, lost}
