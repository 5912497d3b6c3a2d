//! Test support shared by every package's `tests/`: free ports, waiting on a condition with a
//! deadline, a per-test PostgreSQL schema and a per-test Redis key prefix, and a TCP proxy a test
//! can cut to cause an outage of one service for one process, and small HTTP CONNECT / SOCKS5
//! egress proxies.
//!
//! Services come from `SWITCHBOARD_TEST_DATABASE_URL` / `SWITCHBOARD_TEST_REDIS_URL` (set by
//! `scripts/test`), else the local defaults. A missing service is a test failure with a clear
//! message, never a silent skip.

pub mod egress_proxy;
pub mod ports;
pub mod postgres;
pub mod prometheus;
pub mod redis;
pub mod s3;
pub mod tcp_proxy;
pub mod wait;

pub use ports::free_port;
pub use postgres::TestDatabase;
pub use prometheus::{prometheus_names, prometheus_sample, prometheus_series};
pub use redis::{redis_url, unique_prefix};
pub use s3::TestS3;
pub use tcp_proxy::TcpProxy;
pub use wait::wait_until;
