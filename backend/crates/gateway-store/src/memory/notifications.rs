//! `ChangeNotifier` in process: a broadcast channel, forwarded into the bounded subscription.

use async_trait::async_trait;
use gateway_core::coordination::notifications::SUBSCRIPTION_CAPACITY;
use gateway_core::coordination::{ChangeEvent, ChangeNotifier, ChangeSubscription, CoordinationError};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;

use super::MemoryCoordination;

#[async_trait]
impl ChangeNotifier for MemoryCoordination {
    async fn publish_config_revision(&self, revision: i64) -> Result<(), CoordinationError> {
        // No subscriber is not an error: nobody needed to hear it.
        drop(self.changes.send(revision));
        Ok(())
    }

    async fn subscribe(&self) -> Result<ChangeSubscription, CoordinationError> {
        let mut changes = self.changes.subscribe();
        let (events, receiver) = mpsc::channel(SUBSCRIPTION_CAPACITY);
        // Owned by the subscription (aborted when it is dropped); it also returns when the
        // adapter is dropped.
        let forwarder = tokio::spawn(async move {
            loop {
                let event = tokio::select! {
                    () = events.closed() => return,
                    change = changes.recv() => match change {
                        Ok(revision) => ChangeEvent::ConfigRevision(revision),
                        Err(RecvError::Lagged(_)) => ChangeEvent::Resync,
                        Err(RecvError::Closed) => return,
                    },
                };
                if events.send(event).await.is_err() {
                    return;
                }
            }
        });
        Ok(ChangeSubscription::new(receiver, forwarder))
    }
}
