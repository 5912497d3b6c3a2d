-- circuit_read: the circuit as of the server clock (an ended open period reads half_open).
-- KEYS[1] circuit hash. Reply as circuit_record.
local now = now_ms()
local f = redis.call('HMGET', KEYS[1], 'state', 'open_until', 'consecutive', 'failures', 'successes', 'opened')
local state = f[1] or 'closed'
local open_until = tonumber(f[2]) or 0
if state == 'open' and open_until <= now then state = 'half_open' end
return {state, int(open_until), int(tonumber(f[3]) or 0), int(tonumber(f[4]) or 0), int(tonumber(f[5]) or 0),
  int(tonumber(f[6]) or 0)}
