//! Redis for tests: the server URL and a unique key prefix per test.

use rand::Rng;

/// The server tests use: `SWITCHBOARD_TEST_REDIS_URL`, else the local default.
pub fn redis_url() -> String {
    std::env::var("SWITCHBOARD_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned())
}

/// A key prefix no other test uses, so tests share one server without seeing each other.
pub fn unique_prefix(test: &str) -> String {
    format!("sbtest:{test}:{:012x}", rand::rng().random::<u64>() & 0xffff_ffff_ffff)
}
