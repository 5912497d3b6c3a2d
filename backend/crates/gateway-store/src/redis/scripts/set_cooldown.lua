-- set_cooldown: cool the account down for ARGV[1] ms because of fault ARGV[2], keeping a later
-- deadline (and its fault).
-- KEYS[1] account hash
local now = now_ms()
apply_feedback(KEYS[1], '', now, 'cooldown', tonumber(ARGV[1]), ARGV[2], 0)
return {redis.call('HGET', KEYS[1], 'cool_until')}
