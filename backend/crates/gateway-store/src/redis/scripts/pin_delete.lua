-- pin_delete: delete the pin only for its owner. KEYS[1] pin hash  ARGV[1] client key
local owner = redis.call('HGET', KEYS[1], 'client_key')
if owner and owner == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return {'deleted'}
end
return {'kept'}
