-- flow_create: create a pending OAuth flow unless one exists under this fingerprint.
-- KEYS[1] flow hash  ARGV[1] owner fingerprint  ARGV[2] provider payload  ARGV[3] ttl ms
local now = now_ms()
if redis.call('EXISTS', KEYS[1]) == 1 then return {'exists'} end
local expires_at = now + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'owner_fingerprint', ARGV[1], 'provider_payload', ARGV[2],
  'expires_at_epoch_seconds', int(math.floor(expires_at / 1000)))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {'created', int(expires_at)}
