//! Change notifications: a replica that committed a configuration change publishes the new
//! `config_revision`; the others reload their snapshot sooner. Periodic reconciliation stays the
//! correctness path: a lost notification only delays convergence.

use async_trait::async_trait;
use tokio::sync::mpsc;

use super::CoordinationError;

/// Bound of the per-subscriber event queue; a slow subscriber applies backpressure to its own
/// forwarding task, never to publishers.
pub const SUBSCRIPTION_CAPACITY: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeEvent {
    /// Some replica committed `config_revision`.
    ConfigRevision(i64),
    /// Notifications may have been missed (reconnect, lag): reconcile now.
    Resync,
}

/// A stream of change events; dropping it ends the subscription.
pub struct ChangeSubscription {
    events: mpsc::Receiver<ChangeEvent>,
}

impl ChangeSubscription {
    pub fn new(events: mpsc::Receiver<ChangeEvent>) -> Self {
        Self { events }
    }

    /// The next event; `None` once the adapter stopped (shutdown).
    pub async fn next(&mut self) -> Option<ChangeEvent> {
        self.events.recv().await
    }
}

#[async_trait]
pub trait ChangeNotifier: Send + Sync {
    async fn publish_config_revision(&self, revision: i64) -> Result<(), CoordinationError>;

    /// Subscribes; events published after this returns are delivered.
    async fn subscribe(&self) -> Result<ChangeSubscription, CoordinationError>;
}
