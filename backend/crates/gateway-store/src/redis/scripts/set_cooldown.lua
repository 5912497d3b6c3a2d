-- set_cooldown: cool the account down for ARGV[1] ms, keeping a later deadline.
-- KEYS[1] account hash
local now = now_ms()
apply_feedback(KEYS[1], '', now, 'cooldown', tonumber(ARGV[1]), '', 0)
return {redis.call('HGET', KEYS[1], 'cool_until')}
