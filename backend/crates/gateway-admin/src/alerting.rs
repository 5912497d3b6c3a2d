//! Alert delivery: the alerts the data plane raises (`gateway_core::alerts`) go to the
//! configured webhooks as HMAC-signed JSON, with retries and backoff, and every delivery attempt
//! is recorded as an `ops_events` row (`alert.delivery`).
//!
//! The parts, one job each: [`signature`] (the `X-Switchboard-Signature` header), [`payload`]
//! (the JSON body), [`delivery`] (one alert to one webhook: attempts, backoff, records),
//! [`subscriptions`] (configured and stored webhooks, rules) and the [`AlertDispatcher`] here
//! (repeats of the same alert, the tasks it owns).
//!
//! Webhook URLs pass the SSRF guard (`url_guard`) when configured; the transport checks the
//! address it connects to again.

pub mod config;
pub mod delivery;
pub mod payload;
pub mod rules;
pub mod signature;
pub mod subscriptions;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use gateway_core::alerts::{Alert, AlertKind, AlertReceiver, WebhookTransport};
use gateway_core::domain::{AccountId, ClientKeyId};
use gateway_core::observation::ObservationQueue;
use secrecy::SecretString;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

pub use config::{AlertsConfig, WebhookConfig};
pub use delivery::DeliveryPolicy;
use subscriptions::Subscriptions;

use crate::ports::AlertSettings;

/// One webhook endpoint. `Debug` never shows the secret or the URL's query.
#[derive(Clone)]
pub struct Webhook {
    pub name: String,
    pub url: String,
    pub secret: SecretString,
    /// The kinds it receives; empty: every kind.
    pub kinds: Vec<AlertKind>,
}

impl std::fmt::Debug for Webhook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown = self.url.split(['?', '#']).next().unwrap_or_default();
        f.debug_struct("Webhook")
            .field("name", &self.name)
            .field("url", &shown)
            .field("secret", &"[REDACTED]")
            .field("kinds", &self.kinds)
            .finish()
    }
}

impl Webhook {
    pub fn wants(&self, kind: AlertKind) -> bool {
        self.kinds.is_empty() || self.kinds.contains(&kind)
    }
}

/// Most deliveries running at once; alerts beyond it are dropped and counted.
pub const MAX_RUNNING_DELIVERIES: usize = 64;

type Subject = (AlertKind, Option<AccountId>, Option<ClientKeyId>);

pub struct AlertDispatcher {
    subscriptions: Subscriptions,
    transport: Arc<dyn WebhookTransport>,
    policy: DeliveryPolicy,
    records: ObservationQueue,
    /// The same alert about the same subject is sent again only after this long.
    repeat_after: Duration,
    last_sent: HashMap<Subject, Instant>,
    /// Alerts not delivered because too many deliveries were running.
    pub dropped: Arc<AtomicU64>,
}

impl AlertDispatcher {
    pub fn new(
        webhooks: Vec<Webhook>,
        transport: Arc<dyn WebhookTransport>,
        policy: DeliveryPolicy,
        records: ObservationQueue,
        repeat_after: Duration,
    ) -> Self {
        Self {
            subscriptions: Subscriptions::new(webhooks, None),
            transport,
            policy,
            records,
            repeat_after,
            last_sent: HashMap::new(),
            dropped: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Also delivers to the enabled webhooks the admin API stored, and applies its rules.
    pub fn with_stored(mut self, stored: Arc<dyn AlertSettings>) -> Self {
        let configured = std::mem::replace(&mut self.subscriptions, Subscriptions::new(Vec::new(), None));
        self.subscriptions = configured.with_stored(stored);
        self
    }

    /// Delivers alerts until `stop`; deliveries still retrying then are cancelled (their last
    /// attempt is recorded).
    pub async fn run(mut self, mut alerts: AlertReceiver, stop: CancellationToken) {
        let mut running = JoinSet::new();
        loop {
            tokio::select! {
                _ = stop.cancelled() => break,
                Some(_) = running.join_next(), if !running.is_empty() => {}
                alert = alerts.receiver.recv() => match alert {
                    Some(alert) => self.dispatch(alert, &mut running).await,
                    None => break,
                },
            }
        }
        running.shutdown().await;
    }

    async fn dispatch(&mut self, alert: Alert, running: &mut JoinSet<()>) {
        if !self.subscriptions.rule(alert.kind).await.enabled {
            return;
        }
        let now = Instant::now();
        if self.last_sent.get(&alert.subject()).is_some_and(|at| now.duration_since(*at) < self.repeat_after) {
            return;
        }
        self.last_sent.retain(|_, at| now.duration_since(*at) < self.repeat_after);
        self.last_sent.insert(alert.subject(), now);
        for webhook in self.subscriptions.receivers(alert.kind).await {
            if running.len() >= MAX_RUNNING_DELIVERIES {
                self.dropped.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(webhook = %webhook.name, kind = %alert.kind, "alert dropped: too many deliveries running");
                continue;
            }
            let job = delivery::Delivery {
                webhook,
                alert: alert.clone(),
                transport: self.transport.clone(),
                policy: self.policy,
                records: self.records.clone(),
            };
            running.spawn(job.run());
        }
    }
}
