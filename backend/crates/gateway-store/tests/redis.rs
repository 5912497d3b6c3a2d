//! The coordination contract against real Redis, plus Redis-only behaviour: key layout and
//! failing closed across a server restart.

mod congestion;
mod key_layout;
mod outage;
mod private_server;
mod round_trips;
mod subscriptions;

use std::sync::Arc;

use gateway_store::redis::{RedisCoordination, RedisSettings};
use test_support::{redis_url, unique_prefix};

/// A fresh adapter on the shared test server, under a prefix no other test uses.
async fn fresh(test: &str) -> anyhow::Result<Arc<RedisCoordination>> {
    let port = RedisCoordination::new(RedisSettings::new(redis_url(), unique_prefix(test)))?;
    port.ping().await.map_err(|e| {
        anyhow::anyhow!("Redis is not reachable at {} ({e}); start it or set SWITCHBOARD_TEST_REDIS_URL", redis_url())
    })?;
    Ok(Arc::new(port))
}

crate::coordination_contract::coordination_contract_suite!(fresh);
