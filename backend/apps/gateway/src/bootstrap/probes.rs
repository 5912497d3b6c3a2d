//! Readiness probes. The replica cannot serve without Redis (coordination fails closed) or a
//! loaded routing snapshot: those take it out of rotation. The database (PostgreSQL, or SQLite
//! in the embedded mode) is not on the request path (the snapshot is in memory, observations
//! are queued and retried): an outage makes the replica `degraded`, not unready
//! (`docs/operations.md`). The in-process coordination of the embedded mode has no probe.

use std::sync::Arc;

use async_trait::async_trait;
use gateway_core::snapshot::SnapshotHolder;
use gateway_host::{ProbeRole, ReadinessProbe};
use serde_json::{Map, Value, json};

use super::{Facts, Storage};

struct Database(Arc<dyn Facts>);

#[async_trait]
impl ReadinessProbe for Database {
    fn name(&self) -> &str {
        self.0.kind()
    }

    fn role(&self) -> ProbeRole {
        ProbeRole::Degrades
    }

    async fn check(&self) -> Result<(), String> {
        self.0.ping().await
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
    let mut probes: Vec<Arc<dyn ReadinessProbe>> = vec![Arc::new(Snapshot(snapshots.clone()))];
    probes.extend(storage.coordination_probe.clone());
    probes.push(Arc::new(Database(storage.facts.clone())));
    probes
}
