//! The one integration-test binary of gateway-store; modules mirror `src/`.
//! PostgreSQL tests each run in their own schema (`test_support::TestDatabase`).

mod crypto;
mod postgres;
