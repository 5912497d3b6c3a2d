-- login_count: count one password attempt in a fixed window (before the password is checked).
-- KEYS[1] counter  ARGV[1] window ms
-- The first attempt opens the window; a counter found without an expiry gets one, so a counter
-- never outlives its window. Answers {count, ms until the window ends}.
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  ttl = tonumber(ARGV[1])
  redis.call('PEXPIRE', KEYS[1], int(ttl))
end
return {count, ttl}
