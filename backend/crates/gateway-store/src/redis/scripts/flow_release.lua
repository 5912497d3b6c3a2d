-- flow_release: give the claim back; only the claim owner can. KEYS[1] flow hash  ARGV[1] claim id
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
if redis.call('HGET', KEYS[1], 'claim_fingerprint') ~= ARGV[1] then return {'not_claim_owner'} end
redis.call('HDEL', KEYS[1], 'claim_fingerprint', 'claim_expires_at_epoch_millis')
return {'released'}
