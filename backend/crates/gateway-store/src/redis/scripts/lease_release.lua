-- lease_release: delete only if holder|token still holds the lease. KEYS[1] lease  ARGV[1] holder|token
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {'lost'} end
redis.call('DEL', KEYS[1])
return {'held'}
