-- lease_acquire: take a free lease with the next fencing token.
-- KEYS[1] lease  KEYS[2] fence counter  ARGV[1] holder  ARGV[2] ttl ms
if redis.call('EXISTS', KEYS[1]) == 1 then return {'taken'} end
local token = next_fence_counter(KEYS[2], now_ms())
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. int(token), 'PX', ARGV[2])
return {'acquired', token}
