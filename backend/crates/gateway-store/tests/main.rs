//! The one integration test binary of gateway-store.

mod coordination_contract;
mod coordination_values;
mod memory;
mod redis;
