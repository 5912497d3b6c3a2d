-- pin_read: the pin if ARGV[1] owns it; another key learns nothing but 'not_yours'.
-- KEYS[1] pin hash. Reply: 'missing' | 'not_yours' | 'found', scope, provider, account, has upstream, upstream id.
local f = redis.call('HMGET', KEYS[1], 'client_key', 'scope', 'provider', 'account', 'upstream_response_id')
if not f[1] then return {'missing'} end
if f[1] ~= ARGV[1] then return {'not_yours'} end
if f[5] then return {'found', f[2], f[3], f[4], '1', f[5]} end
return {'found', f[2], f[3], f[4], '0', ''}
