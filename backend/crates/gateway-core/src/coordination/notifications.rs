//! Change notifications: a replica that committed a configuration change publishes the new
//! `config_revision`; the others reload their snapshot sooner. Periodic reconciliation stays the
//! correctness path: a lost notification only delays convergence.

use async_trait::async_trait;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::task::AbortOnDropHandle;

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
///
/// It owns the adapter's forwarding task: dropping the subscription aborts the task, so no
/// forwarder outlives its subscriber.
pub struct ChangeSubscription {
    events: mpsc::Receiver<ChangeEvent>,
    _forwarder: AbortOnDropHandle<()>,
}

impl ChangeSubscription {
    /// The events `forwarder` sends into `events`' sender.
    pub fn new(events: mpsc::Receiver<ChangeEvent>, forwarder: JoinHandle<()>) -> Self {
        Self { events, _forwarder: AbortOnDropHandle::new(forwarder) }
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
