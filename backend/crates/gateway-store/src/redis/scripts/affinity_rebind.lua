-- affinity_rebind: compare-and-swap the binding from ARGV[1] to ARGV[2].
-- KEYS[1] binding  ARGV[3] idle ttl ms. Reply: 'rebound' | 'moved', current | 'missing'.
local bound = redis.call('GET', KEYS[1])
if not bound then return {'missing'} end
if bound ~= ARGV[1] then return {'moved', bound} end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return {'rebound'}
