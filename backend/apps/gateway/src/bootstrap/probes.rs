//! Readiness probes. The replica cannot serve without Redis (coordination fails closed) or a
//! loaded routing snapshot: those take it out of rotation. PostgreSQL is not on the request
//! path (the snapshot is in memory, observations are queued and retried): an outage makes the
//! replica `degraded`, not unready (`docs/operations.md`).

use std::sync::Arc;

use async_trait::async_trait;
use gateway_core::snapshot::SnapshotHolder;
use gateway_host::{ProbeRole, ReadinessProbe};
use gateway_store::postgres::PgStore;
use gateway_store::redis::RedisCoordination;
use serde_json::{Map, Value, json};

use super::Storage;

struct Postgres(Arc<PgStore>);

#[async_trait]
impl ReadinessProbe for Postgres {
    fn name(&self) -> &str {
        "postgres"
    }

    fn role(&self) -> ProbeRole {
        ProbeRole::Degrades
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

/// The routing snapshot: loaded at least once, with its revision and how long ago the store
/// last confirmed it.
struct Snapshot(SnapshotHolder);

#[async_trait]
impl ReadinessProbe for Snapshot {
    fn name(&self) -> &str {
        "snapshot"
    }

    async fn check(&self) -> Result<(), String> {
        match self.0.confirmed_ago() {
            Some(_) => Ok(()),
            None => Err("the routing snapshot was never loaded".to_owned()),
        }
    }

    fn details(&self) -> Map<String, Value> {
        let mut details = Map::new();
        details.insert("revision".to_owned(), json!(self.0.current().config_revision.0));
        if let Some(ago) = self.0.confirmed_ago() {
            details.insert("confirmed_ms_ago".to_owned(), json!(u64::try_from(ago.as_millis()).unwrap_or(u64::MAX)));
        }
        details
    }
}

pub fn for_storage(storage: &Storage, snapshots: &SnapshotHolder) -> Vec<Arc<dyn ReadinessProbe>> {
    vec![
        Arc::new(Snapshot(snapshots.clone())),
        Arc::new(Redis(storage.coordination.clone())),
        Arc::new(Postgres(storage.postgres.clone())),
    ]
}
