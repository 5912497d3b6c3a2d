-- period_claim: take the lease of the current period (server clock), once per period index.
-- KEYS[1] fence counter  ARGV[1] period key base (same hash tag as KEYS[1])  ARGV[2] period ms  ARGV[3] holder
-- The period key lives two periods and is never released early, so nobody runs period N twice.
local now = now_ms()
local period = tonumber(ARGV[2])
local index = math.floor(now / period)
local next_in = (index + 1) * period - now
local key = ARGV[1] .. int(index)
if redis.call('EXISTS', key) == 1 then return {'taken', int(index), int(next_in)} end
local token = next_fence_counter(KEYS[1], now)
redis.call('SET', key, ARGV[3] .. '|' .. int(token), 'PX', int(2 * period))
return {'won', int(index), int(next_in), token}
