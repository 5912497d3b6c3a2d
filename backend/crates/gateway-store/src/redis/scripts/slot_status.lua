-- slot_status: is this account slot (fencing token) still live?
-- KEYS[1] account slots zset  ARGV[1] token
if slot_held(KEYS[1], ARGV[1], now_ms()) then return {'held'} end
return {'lost'}
