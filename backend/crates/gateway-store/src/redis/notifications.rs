//! `ChangeNotifier` over Redis pub/sub on `P:changes`. Each subscription owns one pub/sub
//! connection in a forwarding task that the subscription aborts when it is dropped; after a lost
//! connection it resubscribes with backoff and emits `Resync` (notifications may have been
//! missed meanwhile).

use std::time::Duration;

use ::redis::Client;
use ::redis::aio::PubSub;
use async_trait::async_trait;
use futures_util::StreamExt;
use gateway_core::coordination::notifications::SUBSCRIPTION_CAPACITY;
use gateway_core::coordination::{ChangeEvent, ChangeNotifier, ChangeSubscription, CoordinationError};
use tokio::sync::mpsc;

use super::RedisCoordination;

const RESUBSCRIBE_BACKOFF_MIN: Duration = Duration::from_millis(100);
const RESUBSCRIBE_BACKOFF_MAX: Duration = Duration::from_secs(5);

#[async_trait]
impl ChangeNotifier for RedisCoordination {
    async fn publish_config_revision(&self, revision: i64) -> Result<(), CoordinationError> {
        let mut cmd = ::redis::cmd("PUBLISH");
        cmd.arg(self.keys.changes_channel()).arg(revision);
        self.connection.query::<i64>(&cmd).await.map(drop)
    }

    async fn subscribe(&self) -> Result<ChangeSubscription, CoordinationError> {
        let channel = self.keys.changes_channel();
        let client = self.connection.client().clone();
        let timeout = self.connection.connect_timeout();
        let pubsub = open(&client, &channel, timeout).await?;
        let (events, receiver) = mpsc::channel(SUBSCRIPTION_CAPACITY);
        // Owned by the subscription: aborted when it is dropped.
        let forwarder = tokio::spawn(forward(Subscriber { client, channel, timeout, events }, pubsub));
        Ok(ChangeSubscription::new(receiver, forwarder))
    }
}

struct Subscriber {
    client: Client,
    channel: String,
    timeout: Duration,
    events: mpsc::Sender<ChangeEvent>,
}

async fn open(client: &Client, channel: &str, timeout: Duration) -> Result<PubSub, CoordinationError> {
    let subscribe = async {
        let mut pubsub = client.get_async_pubsub().await?;
        pubsub.subscribe(channel).await?;
        Ok::<_, ::redis::RedisError>(pubsub)
    };
    match tokio::time::timeout(timeout, subscribe).await {
        Ok(Ok(pubsub)) => Ok(pubsub),
        Ok(Err(error)) => Err(CoordinationError::Unavailable(error.to_string())),
        Err(_) => Err(CoordinationError::Timeout(timeout)),
    }
}

async fn forward(subscriber: Subscriber, mut pubsub: PubSub) {
    loop {
        if !relay(&subscriber, &mut pubsub).await {
            return;
        }
        match resubscribe(&subscriber).await {
            Some(reopened) => pubsub = reopened,
            None => return,
        }
        if subscriber.events.send(ChangeEvent::Resync).await.is_err() {
            return;
        }
    }
}

/// Relays messages until the connection ends (`true`) or the subscription is dropped (`false`).
async fn relay(subscriber: &Subscriber, pubsub: &mut PubSub) -> bool {
    let mut messages = pubsub.on_message();
    loop {
        let message = tokio::select! {
            () = subscriber.events.closed() => return false,
            message = messages.next() => message,
        };
        let Some(message) = message else {
            tracing::warn!(channel = %subscriber.channel, "change subscription lost its connection");
            return true;
        };
        let event = match message.get_payload::<String>().ok().and_then(|text| text.parse::<i64>().ok()) {
            Some(revision) => ChangeEvent::ConfigRevision(revision),
            None => ChangeEvent::Resync,
        };
        if subscriber.events.send(event).await.is_err() {
            return false;
        }
    }
}

/// Reopens the subscription with backoff; `None` when the subscription was dropped meanwhile.
async fn resubscribe(subscriber: &Subscriber) -> Option<PubSub> {
    let mut backoff = RESUBSCRIBE_BACKOFF_MIN;
    loop {
        tokio::select! {
            () = subscriber.events.closed() => return None,
            () = tokio::time::sleep(backoff) => {}
        }
        match open(&subscriber.client, &subscriber.channel, subscriber.timeout).await {
            Ok(pubsub) => return Some(pubsub),
            Err(error) => {
                tracing::debug!(%error, "change subscription still down");
                backoff = (backoff * 2).min(RESUBSCRIBE_BACKOFF_MAX);
            }
        }
    }
}
