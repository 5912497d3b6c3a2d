-- acquire: circuit, admission, affinity and account choice in one step; all or nothing (the
-- replaced attempt's slot, feedback and circuit report are applied first, whatever follows).
-- KEYS[1] admission slots zset   KEYS[2] admission rpm zset   KEYS[3] affinity binding
-- KEYS[4] provider circuit hash
-- KEYS[5..7] replaced attempt's account hash, slots zset, exclusions zset
-- KEYS[8] the key's spend hash of this UTC day   KEYS[9] of this UTC month
-- KEYS[10] the owner boot's slot index (member '<slots zset key>|<member>' -> slot expiry ms)
-- KEYS[11] the replaced attempt's provider circuit hash
-- KEYS[12+3i..14+3i] candidate i's account hash, slots zset, exclusions zset
-- ARGV[1] request id  ARGV[2] lease ttl ms
-- ARGV[3] admission max concurrency ('' = skip admission, -1 = unlimited)  ARGV[4] rpm (-1 = unlimited)
-- ARGV[5] the strategy's order keys from core, space-separated ('load' 'rank' 'lru' 'mru' 'heavy')
-- ARGV[6] model  ARGV[7] affinity idle ttl ms ('' = none)
-- ARGV[8] replaced account id ('' = none)  ARGV[9] replaced token
-- ARGV[10] feedback kind ('' | 'cooldown' | 'exclude')  ARGV[11] feedback ms  ARGV[12] feedback model
-- ARGV[13] max exclusions per account
-- ARGV[14..17] budgets (-1 = unlimited): daily tokens, monthly tokens, daily cost, monthly cost
-- ARGV[18] half-open probe ttl ms
-- ARGV[19] replaced attempt's circuit report ('' = none | 'none' | 'success' | 'failure')
-- ARGV[20] it held the probe ('1' | '0')  ARGV[21] failure threshold  ARGV[22] open for ms
-- ARGV[23+5i..27+5i] candidate i's account id, cap, interval ms, weight, static rank (from core)
-- This script is gateway_core::coordination::acquire_plan::run (around selection::decide), step
-- for step: the one copy that must run inside Redis. The contract suite's property test
-- (coordination_contract/selection.rs) holds it to the plan's answers.
local now = now_ms()
local ttl = tonumber(ARGV[2])

-- 1. The failed attempt this one replaces: free its slot, apply its feedback.
if ARGV[8] ~= '' then
  redis.call('ZREM', KEYS[6], ARGV[9])
  apply_feedback(KEYS[5], KEYS[7], now, ARGV[10], tonumber(ARGV[11]), ARGV[12], tonumber(ARGV[13]))
end
if ARGV[19] ~= '' then
  local outcome = ARGV[19]
  if outcome == 'none' then outcome = '' end
  circuit_apply(KEYS[11], now, outcome, ARGV[20], tonumber(ARGV[21]), tonumber(ARGV[22]))
end

-- 2. Provider circuit: open refuses; half-open lets one probe through at a time.
local circuit = redis.call('HMGET', KEYS[4], 'state', 'open_until', 'probe_until')
local probe = false
if circuit[1] == 'open' then
  local open_until = tonumber(circuit[2]) or 0
  if open_until > now then
    return {'circuit', int(open_until)}
  end
  local probe_until = tonumber(circuit[3]) or 0
  if probe_until > now then
    return {'circuit', int(math.min(probe_until, now + 5000))}
  end
  probe = true
end

-- 3. Client admission (checked, recorded only once an account is chosen), budgets last.
local admit = ARGV[3] ~= ''
local max_concurrency = tonumber(ARGV[3]) or -1
local rpm = tonumber(ARGV[4]) or -1
if admit and max_concurrency >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', int(now))
  local in_flight = redis.call('ZCARD', KEYS[1])
  if in_flight >= max_concurrency then
    return {'admission', 'concurrency', max_concurrency, in_flight}
  end
end
if admit and rpm >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', int(now - 60000))
  local made = redis.call('ZCARD', KEYS[2])
  if made >= rpm then
    local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    local retry = 60000
    if oldest[2] then retry = tonumber(oldest[2]) + 60000 - now end
    return {'admission', 'rate', rpm, int(retry)}
  end
end

if admit then
  local budgets = {
    {'daily_tokens', KEYS[8], 'tokens', ARGV[14]}, {'monthly_tokens', KEYS[9], 'tokens', ARGV[15]},
    {'daily_cost', KEYS[8], 'cost', ARGV[16]}, {'monthly_cost', KEYS[9], 'cost', ARGV[17]},
  }
  for _, budget in ipairs(budgets) do
    local limit = tonumber(budget[4]) or -1
    if limit >= 0 then
      local spent = tonumber(redis.call('HGET', budget[2], budget[3])) or 0
      if spent >= limit then
        return {'admission', 'budget', int(limit), int(spent), budget[1]}
      end
    end
  end
end

-- 4. Candidate verdicts, first failing check wins: cooldown, exclusion, cap, interval.
local count = (#ARGV - 22) / 5
local model = ARGV[6]
local ids, in_flight, verdict, verdict_a, verdict_b, index_of = {}, {}, {}, {}, {}, {}
local weight, rank, last = {}, {}, {}
for i = 0, count - 1 do
  local account_key, slots_key, excl_key = KEYS[12 + 3 * i], KEYS[13 + 3 * i], KEYS[14 + 3 * i]
  local id, cap, interval = ARGV[23 + 5 * i], tonumber(ARGV[24 + 5 * i]), tonumber(ARGV[25 + 5 * i])
  local n = i + 1
  ids[n] = id
  index_of[id] = n
  weight[n], rank[n] = math.max(tonumber(ARGV[26 + 5 * i]), 1), tonumber(ARGV[27 + 5 * i])
  local facts = redis.call('HMGET', account_key, 'cool_until', 'last_start')
  local cool_until = tonumber(facts[1]) or 0
  local last_start = tonumber(facts[2])
  last[n] = last_start or -1
  local excluded_until = tonumber(redis.call('ZSCORE', excl_key, model)) or 0
  redis.call('ZREMRANGEBYSCORE', slots_key, '-inf', int(now))
  local held = redis.call('ZCARD', slots_key)
  in_flight[n] = held
  if cool_until > now then
    verdict[n], verdict_a[n], verdict_b[n] = 'cooldown', cool_until, 0
  elseif excluded_until > now then
    verdict[n], verdict_a[n], verdict_b[n] = 'excluded', excluded_until, 0
  elseif held >= cap then
    verdict[n], verdict_a[n], verdict_b[n] = 'cap', held, cap
  elseif interval > 0 and last_start ~= nil and math.max(now - last_start, 0) < interval then
    verdict[n], verdict_a[n], verdict_b[n] = 'interval', interval - math.max(now - last_start, 0), 0
  else
    verdict[n] = 'ok'
  end
end

-- 5. Affinity read: a healthy binding wins; a failed/cooling/excluded/vanished one is rebound.
local affinity, affinity_account = 'none', ''
local chosen = nil
if ARGV[7] ~= '' then
  local bound = redis.call('GET', KEYS[3])
  if not bound then
    affinity = 'bound'
  else
    local b = index_of[bound]
    if b and verdict[b] == 'ok' then
      chosen, affinity = b, 'hit'
    elseif bound == ARGV[8] or not b or verdict[b] == 'cooldown' or verdict[b] == 'excluded' then
      affinity, affinity_account = 'rebound', bound
    else
      affinity, affinity_account = 'bypassed', bound
    end
  end
end

-- 6. Strategy: the eligible candidate no other is strictly preferred to (the earliest such),
-- comparing core's order keys in turn.
local order = {}
for key in string.gmatch(ARGV[5], '%S+') do table.insert(order, key) end
local function preferred(x, y)
  for _, key in ipairs(order) do
    local a, b
    if key == 'load' then a, b = in_flight[x] * weight[y], in_flight[y] * weight[x]
    elseif key == 'rank' then a, b = rank[x], rank[y]
    elseif key == 'lru' then a, b = last[x], last[y]
    elseif key == 'mru' then a, b = last[y], last[x]
    else a, b = weight[y], weight[x] end
    if a ~= b then return a < b end
  end
  return false
end
if not chosen then
  for n = 1, count do
    if verdict[n] == 'ok' and (not chosen or preferred(n, chosen)) then chosen = n end
  end
end

if not chosen then
  local reply = {'none', int(now)}
  for n = 1, count do
    table.insert(reply, verdict[n])
    table.insert(reply, int(verdict_a[n]))
    table.insert(reply, int(verdict_b[n]))
  end
  return reply
end

-- 7. Record: account slot with a fresh fencing token, interval start, admission, binding.
local c = chosen - 1
local account_key, slots_key = KEYS[12 + 3 * c], KEYS[13 + 3 * c]
local token = next_fence_field(account_key, 'fence', now)
redis.call('HSET', account_key, 'last_start', int(now))
redis.call('ZADD', slots_key, int(now + ttl), int(token))
expire_at_least(slots_key, ttl)
redis.call('ZADD', KEYS[10], int(now + ttl), slots_key .. '|' .. int(token))
local admission_held = 0
if admit and max_concurrency >= 0 then
  redis.call('ZADD', KEYS[1], int(now + ttl), ARGV[1])
  expire_at_least(KEYS[1], ttl)
  redis.call('ZADD', KEYS[10], int(now + ttl), KEYS[1] .. '|' .. ARGV[1])
  admission_held = 1
end
expire_at_least(KEYS[10], ttl)
if admit and rpm >= 0 then
  redis.call('ZADD', KEYS[2], int(now), ARGV[1])
  expire_at_least(KEYS[2], 60000)
end
if affinity == 'hit' or affinity == 'bypassed' then
  redis.call('PEXPIRE', KEYS[3], ARGV[7])
elseif affinity == 'bound' or affinity == 'rebound' then
  redis.call('SET', KEYS[3], ids[chosen], 'PX', ARGV[7])
end
local probe_held = 0
if probe then
  redis.call('HSET', KEYS[4], 'probe_until', int(now + tonumber(ARGV[18])))
  probe_held = 1
end
return {'ok', int(now), ids[chosen], token, in_flight[chosen] + 1, admission_held, affinity, affinity_account,
  probe_held}
