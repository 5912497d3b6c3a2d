-- exclude_model: exclude the account for a model.
-- KEYS[1] exclusions zset  ARGV[1] model  ARGV[2] ttl ms  ARGV[3] max exclusions
apply_feedback('', KEYS[1], now_ms(), 'exclude', tonumber(ARGV[2]), ARGV[1], tonumber(ARGV[3]))
return {'ok'}
