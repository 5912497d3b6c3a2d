//! Reconciliation: each replica polls `config_revision` and reloads the snapshot when it moved
//! (the correctness path of convergence; change notifications only shorten the delay), plus a
//! full reload at a slower pace for facts that do not bump the revision (quota, credentials).

use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{RuntimeSnapshot, SnapshotHolder};
use crate::domain::EgressProxy;
use crate::ports::{SnapshotSource, StorageError};

pub struct Reconciler {
    source: Arc<dyn SnapshotSource>,
    holder: SnapshotHolder,
    full_reload_every: Duration,
    last_full: Mutex<Instant>,
    /// For accounts with neither their own proxy nor a group's (`providers.egress_proxy`).
    default_proxy: Option<EgressProxy>,
}

impl Reconciler {
    pub fn new(source: Arc<dyn SnapshotSource>, holder: SnapshotHolder, full_reload_every: Duration) -> Self {
        Self { source, holder, full_reload_every, last_full: Mutex::new(Instant::now()), default_proxy: None }
    }

    /// Every snapshot this reconciler builds gives `proxy` to accounts with neither their own
    /// egress proxy nor a group's.
    pub fn with_default_proxy(mut self, proxy: Option<EgressProxy>) -> Self {
        self.default_proxy = proxy;
        self
    }

    /// Loads and installs a snapshot now.
    pub async fn reload(&self) -> Result<(), StorageError> {
        let facts = self.source.load_snapshot_facts().await?;
        let revision = facts.config_revision;
        let previous = self.holder.current().config_revision;
        self.holder.install(RuntimeSnapshot::build_with_default_proxy(facts, self.default_proxy.clone()), true);
        *self.last_full.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Instant::now();
        if revision != previous {
            tracing::info!(revision = revision.0, "routing snapshot reloaded");
        }
        Ok(())
    }

    /// One reconciliation step: reload when the revision moved or the full reload is due.
    /// Returns whether a reload happened.
    pub async fn tick(&self) -> Result<bool, StorageError> {
        let current = self.holder.current().config_revision;
        let stored = self.source.current_config_revision().await?;
        let due = self.last_full.lock().unwrap_or_else(std::sync::PoisonError::into_inner).elapsed()
            >= self.full_reload_every;
        if stored != current || due {
            self.reload().await?;
            return Ok(true);
        }
        self.holder.confirm();
        Ok(false)
    }
}
