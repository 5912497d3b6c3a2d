-- circuit_record: feed one outcome into a provider circuit (circuit_apply in the prelude).
-- KEYS[1] circuit hash  ARGV[1] 'success' | 'failure'  ARGV[2] failure threshold  ARGV[3] open for ms
-- Reply: state, open_until, consecutive failures, total failures, total successes, times opened.
return circuit_apply(KEYS[1], now_ms(), ARGV[1], '0', tonumber(ARGV[2]), tonumber(ARGV[3]))
