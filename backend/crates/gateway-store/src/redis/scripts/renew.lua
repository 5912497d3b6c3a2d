-- renew: extend held slots; a lost (expired or removed) slot is not resurrected.
-- KEYS[1] admission slots zset  KEYS[2] account slots zset
-- ARGV[1] request id ('' = none)  ARGV[2] account token ('' = none)  ARGV[3] ttl ms
local now = now_ms()
local ttl = tonumber(ARGV[3])
local function renew(key, member)
  if member == '' then return 'absent' end
  if not slot_held(key, member, now) then return 'lost' end
  redis.call('ZADD', key, 'XX', int(now + ttl), member)
  expire_at_least(key, ttl)
  return 'held'
end
return {renew(KEYS[1], ARGV[1]), renew(KEYS[2], ARGV[2])}
