-- replica_claim: record a boot as its replica's current one; answer the boot it replaces.
-- KEYS[1] the replica's record  ARGV[1] boot id  ARGV[2] record lifetime ms
local previous = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if previous and previous ~= ARGV[1] then return {'replaced', previous} end
return {'first'}
