//! Alerts as the data plane raises them: a closed set of kinds, the [`AlertSink`] the engine and
//! the refresher push into (bounded, never waits: a full queue counts and drops), and the
//! [`WebhookTransport`] port the delivery worker (`gateway-admin::alerting`) posts through.
//!
//! Raising an alert never changes what a client receives. Alerts carry ids and stable codes only:
//! no token, e-mail or upstream body.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use time::OffsetDateTime;
use tokio::sync::mpsc;

use crate::closed_set;
use crate::domain::{AccountId, ClientKeyId, ProviderKind};

closed_set!(
    /// What an alert is about; a webhook subscribes to some of them (none listed: all).
    AlertKind as "alert kind" {
        /// The upstream says the account is banned or deactivated.
        AccountBanned = "account_banned",
        /// A credential refresh failed terminally (the account needs re-authorisation).
        RefreshFailing = "refresh_failing",
        /// No account of a key's pool could take a request.
        PoolEmpty = "pool_empty",
        /// Every account of a provider is at 100 % of one of its quota windows.
        QuotaExhausted = "quota_exhausted",
        /// The share of failed requests over the rule's window is above its threshold.
        ErrorRate = "error_rate",
        /// The last scheduled backup failed.
        BackupFailing = "backup_failing",
    }
);

#[derive(Debug, Clone, PartialEq)]
pub struct Alert {
    pub kind: AlertKind,
    pub occurred_at: OffsetDateTime,
    pub provider: Option<ProviderKind>,
    pub account_id: Option<AccountId>,
    pub client_key_id: Option<ClientKeyId>,
    /// A stable snake_case code (`account_deactivated`, `invalid_grant`, ...).
    pub reason: String,
    pub message: String,
}

impl Alert {
    /// What repeats of the same alert share: the same kind about the same subject.
    pub fn subject(&self) -> (AlertKind, Option<AccountId>, Option<ClientKeyId>) {
        (self.kind, self.account_id, self.client_key_id)
    }
}

/// Where alerts are raised. Cheap to clone; a disabled sink drops everything at no cost.
#[derive(Clone, Default)]
pub struct AlertSink {
    inner: Option<(mpsc::Sender<Alert>, Arc<AtomicU64>)>,
}

/// The delivery worker's end.
pub struct AlertReceiver {
    pub receiver: mpsc::Receiver<Alert>,
    /// Alerts dropped because the queue was full.
    pub dropped: Arc<AtomicU64>,
}

/// A queue of at most `capacity` alerts.
pub fn alert_queue(capacity: usize) -> (AlertSink, AlertReceiver) {
    let (sender, receiver) = mpsc::channel(capacity.max(1));
    let dropped = Arc::new(AtomicU64::new(0));
    (AlertSink { inner: Some((sender, dropped.clone())) }, AlertReceiver { receiver, dropped })
}

impl AlertSink {
    pub fn disabled() -> Self {
        Self { inner: None }
    }

    /// Raises `alert` without waiting; returns `false` when it was dropped.
    pub fn raise(&self, alert: Alert) -> bool {
        let Some((sender, dropped)) = &self.inner else { return false };
        if sender.try_send(alert).is_err() {
            dropped.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        true
    }

    pub fn is_enabled(&self) -> bool {
        self.inner.is_some()
    }
}

/// One webhook POST. `Debug` shows the URL without its query (it may carry a token).
#[derive(Clone)]
pub struct WebhookRequest {
    pub url: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub timeout: Duration,
}

impl std::fmt::Debug for WebhookRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookRequest")
            .field(
                "url",
                &crate::redaction::url_userinfo_redacted(self.url.split(['?', '#']).next().unwrap_or_default()),
            )
            .field("headers", &self.headers)
            .field("body_bytes", &self.body.len())
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Why a POST got no HTTP answer. The message never carries the URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebhookError {
    /// The address the host resolved to is refused by the SSRF guard.
    #[error("the webhook host resolves to a refused address")]
    Refused,
    #[error("the webhook could not be reached: {0}")]
    Unreachable(String),
    #[error("the webhook did not answer in time")]
    Timeout,
}

/// Posts a webhook; implemented over HTTP by the host.
#[async_trait]
pub trait WebhookTransport: Send + Sync {
    /// The HTTP status of the answer.
    async fn post(&self, request: WebhookRequest) -> Result<u16, WebhookError>;
}
