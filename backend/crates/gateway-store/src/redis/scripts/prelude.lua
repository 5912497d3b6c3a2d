-- Shared helpers, prepended to every script (see script.rs).

-- The server clock in milliseconds: every replica compares deadlines against it.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Lua numbers are doubles: print integers without an exponent.
local function int(n)
  return string.format('%d', n)
end

-- Extends the key's expiry to at least `ms` from now (never shortens it).
local function expire_at_least(key, ms)
  if redis.call('PTTL', key) < ms then
    redis.call('PEXPIRE', key, int(ms))
  end
end

-- Account feedback: 'cooldown' (keeps a later deadline) or 'exclude' (model, bounded count).
local function apply_feedback(account_key, exclusions_key, now, kind, ms, model, max_exclusions)
  if kind == 'cooldown' then
    -- `model` carries the cooldown's fault code here; it is kept with the deadline it set.
    local until_ms = now + ms
    local current = tonumber(redis.call('HGET', account_key, 'cool_until')) or 0
    if until_ms > current then
      redis.call('HSET', account_key, 'cool_until', int(until_ms), 'cool_fault', model)
    end
  elseif kind == 'exclude' then
    redis.call('ZADD', exclusions_key, int(now + ms), model)
    redis.call('ZREMRANGEBYSCORE', exclusions_key, '-inf', int(now))
    local count = redis.call('ZCARD', exclusions_key)
    if count > max_exclusions then
      redis.call('ZREMRANGEBYRANK', exclusions_key, 0, count - max_exclusions - 1)
    end
    expire_at_least(exclusions_key, ms)
  end
end

-- Fencing tokens: a counter created fresh (first use, or after Redis lost its data) starts at
-- now_ms * 1000, so tokens issued after a loss are larger than any issued before it (as long as
-- an account takes fewer than 1000 grants per millisecond and the server clock moves forward).
local function next_fence_field(key, field, now)
  if redis.call('HEXISTS', key, field) == 0 then
    redis.call('HSET', key, field, int(now * 1000))
  end
  return redis.call('HINCRBY', key, field, 1)
end

local function next_fence_counter(key, now)
  if redis.call('EXISTS', key) == 0 then
    redis.call('SET', key, int(now * 1000))
  end
  return redis.call('INCR', key)
end

-- Status of a slot member of a lease sorted set (score = expiry ms).
local function slot_held(slots_key, member, now)
  local expiry = tonumber(redis.call('ZSCORE', slots_key, member))
  return expiry ~= nil and expiry > now
end


-- Provider circuit (same transitions as memory/circuit.rs): one outcome ('' = no verdict,
-- 'success', 'failure'); probe '1' gives the half-open probe back. Closed counts consecutive
-- failures and opens at the threshold; while open only the totals move; half-open decides on
-- the next outcome. A decision frees the probe. Reply as circuit_record.
local function circuit_apply(key, now, outcome, probe, threshold, open_ms)
  local f = redis.call('HMGET', key, 'state', 'open_until', 'consecutive', 'failures', 'successes', 'opened')
  local state = f[1] or 'closed'
  local open_until = tonumber(f[2]) or 0
  local consecutive = tonumber(f[3]) or 0
  local failures = tonumber(f[4]) or 0
  local successes = tonumber(f[5]) or 0
  local opened = tonumber(f[6]) or 0
  local half_open = state ~= 'closed' and open_until <= now
  local free_probe = probe == '1'
  if outcome == 'success' then
    successes = successes + 1
    if state == 'closed' or half_open then
      consecutive = 0
      state = 'closed'
      free_probe = true
    end
  elseif outcome == 'failure' then
    failures = failures + 1
    if state == 'closed' or half_open then
      consecutive = consecutive + 1
      if half_open or consecutive >= threshold then
        state = 'open'
        open_until = now + open_ms
        opened = opened + 1
        free_probe = true
      end
    end
  end
  if outcome ~= '' then
    redis.call('HSET', key, 'state', state, 'open_until', int(open_until), 'consecutive', int(consecutive),
      'failures', int(failures), 'successes', int(successes), 'opened', int(opened))
  end
  if free_probe then
    redis.call('HDEL', key, 'probe_until')
  end
  if state == 'open' and open_until <= now then state = 'half_open' end
  return {state, int(open_until), int(consecutive), int(failures), int(successes), int(opened)}
end
