//! Who receives an alert: the configured webhooks (`alerts.webhooks`) plus the enabled ones the
//! admin API stored, and whether the alert's rule is enabled. The stored part is re-read at most
//! every [`SETTINGS_MAX_AGE`]; when the database does not answer, the last good read is kept.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use gateway_core::alerts::AlertKind;
use tokio::time::Instant;

use super::Webhook;
use crate::alert_settings::AlertRule;
use crate::ports::AlertSettings;

/// How long a read of the stored webhooks and rules is used before the next alert re-reads it.
pub const SETTINGS_MAX_AGE: Duration = Duration::from_secs(5);

pub struct Subscriptions {
    configured: Vec<Webhook>,
    stored: Option<Arc<dyn AlertSettings>>,
    read_at: Option<Instant>,
    webhooks: Vec<Webhook>,
    rules: HashMap<AlertKind, AlertRule>,
}

impl Subscriptions {
    pub fn new(configured: Vec<Webhook>, stored: Option<Arc<dyn AlertSettings>>) -> Self {
        Self { configured, stored, read_at: None, webhooks: Vec::new(), rules: HashMap::new() }
    }

    pub fn with_stored(mut self, stored: Arc<dyn AlertSettings>) -> Self {
        self.stored = Some(stored);
        self
    }

    /// Whether alerts of `kind` are raised (a kind without a stored rule is).
    pub async fn rule(&mut self, kind: AlertKind) -> AlertRule {
        self.refresh().await;
        self.rules.get(&kind).copied().unwrap_or_else(|| AlertRule::default_for(kind))
    }

    /// The webhooks that want `kind`: configured first, then stored.
    pub async fn receivers(&mut self, kind: AlertKind) -> Vec<Webhook> {
        self.refresh().await;
        self.configured.iter().chain(self.webhooks.iter()).filter(|w| w.wants(kind)).cloned().collect()
    }

    async fn refresh(&mut self) {
        let Some(stored) = &self.stored else { return };
        if self.read_at.is_some_and(|at| at.elapsed() < SETTINGS_MAX_AGE) {
            return;
        }
        self.read_at = Some(Instant::now());
        match stored.enabled_alert_webhooks().await {
            Ok(webhooks) => self.webhooks = webhooks,
            Err(error) => tracing::warn!(%error, "alert webhooks could not be read; the last read is used"),
        }
        match stored.list_alert_rules().await {
            Ok(rules) => self.rules = rules.into_iter().map(|rule| (rule.kind, rule)).collect(),
            Err(error) => tracing::warn!(%error, "alert rules could not be read; the last read is used"),
        }
    }
}
