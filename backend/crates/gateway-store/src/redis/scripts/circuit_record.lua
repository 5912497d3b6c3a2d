-- circuit_record: feed one outcome into a provider circuit.
-- KEYS[1] circuit hash  ARGV[1] 'success' | 'failure'  ARGV[2] failure threshold  ARGV[3] open for ms
-- Reply: state, open_until, consecutive failures, total failures, total successes, times opened.
local now = now_ms()
local f = redis.call('HMGET', KEYS[1], 'state', 'open_until', 'consecutive', 'failures', 'successes', 'opened')
local state = f[1] or 'closed'
local open_until = tonumber(f[2]) or 0
local consecutive = tonumber(f[3]) or 0
local failures = tonumber(f[4]) or 0
local successes = tonumber(f[5]) or 0
local opened = tonumber(f[6]) or 0
if state == 'open' and open_until <= now then state = 'half_open' end
if ARGV[1] == 'success' then
  successes = successes + 1
  consecutive = 0
  state = 'closed'
else
  failures = failures + 1
  consecutive = consecutive + 1
  if state == 'half_open' or (state == 'closed' and consecutive >= tonumber(ARGV[2])) then
    state = 'open'
    open_until = now + tonumber(ARGV[3])
    opened = opened + 1
  end
end
redis.call('HSET', KEYS[1], 'state', state, 'open_until', int(open_until), 'consecutive', int(consecutive),
  'failures', int(failures), 'successes', int(successes), 'opened', int(opened))
return {state, int(open_until), int(consecutive), int(failures), int(successes), int(opened)}
