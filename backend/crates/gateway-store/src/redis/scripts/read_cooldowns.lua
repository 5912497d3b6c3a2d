-- read_cooldowns: the deadline in force per account hash (0 = none), by the server clock, and
-- the fault that set it ('' = none known).
-- KEYS[i] account hash
local now = now_ms()
local reply = {}
for i = 1, #KEYS do
  local facts = redis.call('HMGET', KEYS[i], 'cool_until', 'cool_fault')
  local until_ms = tonumber(facts[1]) or 0
  local fault = facts[2] or ''
  if until_ms <= now then until_ms, fault = 0, '' end
  table.insert(reply, int(until_ms))
  table.insert(reply, fault)
end
return reply
