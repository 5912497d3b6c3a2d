//! The one integration-test binary of gateway-store; modules mirror `src/`.
//! PostgreSQL tests each run in their own schema (`test_support::TestDatabase`), SQLite tests in
//! their own temporary directory; `storage_contract` runs against both.

mod backup;
mod coordination_contract;
mod coordination_values;
mod crypto;
mod memory;
mod postgres;
mod redis;
mod sqlite;
mod storage_contract;
mod transfer;
