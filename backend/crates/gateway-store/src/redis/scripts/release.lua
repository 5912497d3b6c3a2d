-- release: free slots, apply account feedback (even when the slot already expired).
-- KEYS[1] admission slots zset  KEYS[2] account hash  KEYS[3] account slots zset  KEYS[4] exclusions zset
-- ARGV[1] request id ('' = none)  ARGV[2] account token ('' = none)
-- ARGV[3] feedback kind ('' | 'cooldown' | 'exclude')  ARGV[4] feedback ms  ARGV[5] model  ARGV[6] max exclusions
local now = now_ms()
local function release(key, member)
  if member == '' then return 'absent' end
  local held = slot_held(key, member, now)
  redis.call('ZREM', key, member)
  if held then return 'held' end
  return 'lost'
end
local admission = release(KEYS[1], ARGV[1])
local account = release(KEYS[3], ARGV[2])
if ARGV[3] ~= '' then
  apply_feedback(KEYS[2], KEYS[4], now, ARGV[3], tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6]))
end
return {admission, account}
