//! Readiness probes: PostgreSQL and Redis answer.

use std::sync::Arc;

use async_trait::async_trait;
use gateway_host::ReadinessProbe;
use gateway_store::postgres::PgStore;
use gateway_store::redis::RedisCoordination;

use super::Storage;

struct Postgres(Arc<PgStore>);

#[async_trait]
impl ReadinessProbe for Postgres {
    fn name(&self) -> &str {
        "postgres"
    }

    async fn check(&self) -> Result<(), String> {
        self.0.ping().await.map_err(|e| e.to_string())
    }
}

struct Redis(Arc<RedisCoordination>);

#[async_trait]
impl ReadinessProbe for Redis {
    fn name(&self) -> &str {
        "redis"
    }

    async fn check(&self) -> Result<(), String> {
        self.0.ping().await.map_err(|e| e.to_string())
    }
}

pub fn for_storage(storage: &Storage) -> Vec<Arc<dyn ReadinessProbe>> {
    vec![Arc::new(Postgres(storage.postgres.clone())), Arc::new(Redis(storage.coordination.clone()))]
}
