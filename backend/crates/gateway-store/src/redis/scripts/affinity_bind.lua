-- affinity_bind: bind only if no binding exists; reply the binding in force.
-- KEYS[1] binding  ARGV[1] account id  ARGV[2] idle ttl ms
local bound = redis.call('GET', KEYS[1])
if bound then return {bound} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {ARGV[1]}
