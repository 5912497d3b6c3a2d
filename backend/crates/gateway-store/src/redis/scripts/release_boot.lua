-- release_boot: free every slot a boot was granted (its process is gone) and end its heartbeat.
-- KEYS[1] the boot's alive key  KEYS[2] the boot's slot index
-- Index members are '<slots zset key>|<member>'; the zsets share the index's hash tag.
local now = now_ms()
local freed = 0
for _, entry in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  local cut = string.find(entry, '|[^|]*$')
  if cut then
    local key, member = string.sub(entry, 1, cut - 1), string.sub(entry, cut + 1)
    if slot_held(key, member, now) then freed = freed + 1 end
    redis.call('ZREM', key, member)
  end
end
redis.call('DEL', KEYS[1], KEYS[2])
return {freed}
