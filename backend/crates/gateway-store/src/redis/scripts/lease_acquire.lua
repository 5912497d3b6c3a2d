-- lease_acquire: take a free lease with the next fencing token.
-- KEYS[1] lease  KEYS[2] fence counter  ARGV[1] holder  ARGV[2] ttl ms
if redis.call('EXISTS', KEYS[1]) == 1 then return {'taken'} end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])
return {'acquired', token}
