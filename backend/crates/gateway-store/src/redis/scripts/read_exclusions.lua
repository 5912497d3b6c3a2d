-- read_exclusions: exclusions in force, soonest ending first: model, until, model, until, ...
-- KEYS[1] exclusions zset
local entries = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. int(now_ms()), '+inf', 'WITHSCORES')
local reply = {}
for i = 1, #entries, 2 do
  table.insert(reply, entries[i])
  table.insert(reply, int(tonumber(entries[i + 1])))
end
return reply
