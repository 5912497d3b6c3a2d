-- login_uncount: take one counted attempt back (it succeeded, or another limit refused it).
-- KEYS[1] counter
-- Never below zero and never creates a counter; at zero the window is closed. Answers {count}.
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 1 then
  return {redis.call('DECR', KEYS[1])}
end
if count == 1 then
  redis.call('DEL', KEYS[1])
end
return {0}
