//! The one integration-test binary of gateway-store; modules mirror `src/`.
//! PostgreSQL tests each run in their own schema (`test_support::TestDatabase`).

mod coordination_contract;
mod coordination_values;
mod crypto;
mod memory;
mod postgres;
mod redis;
