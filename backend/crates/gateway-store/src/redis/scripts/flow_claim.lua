-- flow_claim: claim a pending flow for one completion attempt.
-- KEYS[1] flow hash  ARGV[1] owner fingerprint  ARGV[2] claim id  ARGV[3] claim ttl ms
-- Reply: 'missing' | 'owner_mismatch' (nothing changed) | 'claimed_by_other', until | 'claimed', payload, until.
local now = now_ms()
local f = redis.call('HMGET', KEYS[1], 'owner_fingerprint', 'claim_fingerprint', 'claim_expires_at_epoch_millis',
  'provider_payload')
if not f[1] then return {'missing'} end
if f[1] ~= ARGV[1] then return {'owner_mismatch'} end
local claim_until = tonumber(f[3]) or 0
if f[2] and f[2] ~= ARGV[2] and claim_until > now then return {'claimed_by_other', int(claim_until)} end
claim_until = now + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'claim_fingerprint', ARGV[2], 'claim_expires_at_epoch_millis', int(claim_until))
return {'claimed', f[4] or '', int(claim_until)}
