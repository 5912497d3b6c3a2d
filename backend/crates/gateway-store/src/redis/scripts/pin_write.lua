-- pin_write: write a continuation pin unless another client key owns the id.
-- KEYS[1] pin hash
-- ARGV[1] client key  ARGV[2] scope  ARGV[3] provider  ARGV[4] account  ARGV[5] '1' if an upstream id follows
-- ARGV[6] upstream response id  ARGV[7] ttl ms
local owner = redis.call('HGET', KEYS[1], 'client_key')
if owner and owner ~= ARGV[1] then return {'conflict'} end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'client_key', ARGV[1], 'scope', ARGV[2], 'provider', ARGV[3], 'account', ARGV[4])
if ARGV[5] == '1' then redis.call('HSET', KEYS[1], 'upstream_response_id', ARGV[6]) end
redis.call('PEXPIRE', KEYS[1], ARGV[7])
return {'written'}
