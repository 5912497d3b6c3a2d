-- boots_alive: whether each boot's heartbeat is live.  KEYS[i] boot i's alive key
local alive = {}
for i, key in ipairs(KEYS) do alive[i] = redis.call('EXISTS', key) end
return alive
