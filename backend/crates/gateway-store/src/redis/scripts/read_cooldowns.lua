-- read_cooldowns: the deadline in force per account hash (0 = none), by the server clock.
-- KEYS[i] account hash
local now = now_ms()
local reply = {}
for i = 1, #KEYS do
  local until_ms = tonumber(redis.call('HGET', KEYS[i], 'cool_until')) or 0
  if until_ms <= now then until_ms = 0 end
  reply[i] = int(until_ms)
end
return reply
