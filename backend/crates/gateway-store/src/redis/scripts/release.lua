-- release: free slots, apply account feedback (even when the slot already expired), add spend,
-- feed the provider circuit.
-- KEYS[1] admission slots zset  KEYS[2] account hash  KEYS[3] account slots zset  KEYS[4] exclusions zset
-- KEYS[5] the client key's spend hash of the request's UTC day  KEYS[6] of its UTC month
-- ARGV[1] request id ('' = none)  ARGV[2] account token ('' = none)
-- ARGV[3] feedback kind ('' | 'cooldown' | 'exclude')  ARGV[4] feedback ms  ARGV[5] model  ARGV[6] max exclusions
-- ARGV[7] tokens spent ('' = no spend)  ARGV[8] cost spent (nano-USD)
-- ARGV[9] day hash lifetime ms  ARGV[10] month hash lifetime ms
-- KEYS[7] the provider circuit hash  ARGV[11] circuit report ('' = none | 'none' | 'success' | 'failure')
-- ARGV[12] the attempt held the half-open probe ('1' | '0')  ARGV[13] failure threshold  ARGV[14] open for ms
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
if ARGV[7] ~= '' then
  local tokens, cost = tonumber(ARGV[7]), tonumber(ARGV[8])
  for _, spend in ipairs({{KEYS[5], ARGV[9]}, {KEYS[6], ARGV[10]}}) do
    if tokens > 0 then redis.call('HINCRBY', spend[1], 'tokens', ARGV[7]) end
    if cost > 0 then redis.call('HINCRBY', spend[1], 'cost', ARGV[8]) end
    expire_at_least(spend[1], tonumber(spend[2]))
  end
end
if ARGV[11] ~= '' then
  local outcome = ARGV[11]
  if outcome == 'none' then outcome = '' end
  circuit_apply(KEYS[7], now, outcome, ARGV[12], tonumber(ARGV[13]), tonumber(ARGV[14]))
end
return {admission, account}
