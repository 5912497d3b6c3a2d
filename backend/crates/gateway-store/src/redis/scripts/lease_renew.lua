-- lease_renew: extend only if holder|token still holds the lease.
-- KEYS[1] lease  ARGV[1] holder|token  ARGV[2] ttl ms
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {'lost'} end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {'held'}
