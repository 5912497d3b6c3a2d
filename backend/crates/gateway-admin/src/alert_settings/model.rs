//! The stored shapes of alert webhooks and rules.

use gateway_core::alerts::AlertKind;
use secrecy::SecretString;
use time::OffsetDateTime;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AlertWebhookId(pub i64);

impl std::fmt::Display for AlertWebhookId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A webhook as the admin API shows it: never its secret. `Debug` hides the URL's query.
#[derive(Clone, PartialEq)]
pub struct StoredWebhook {
    pub id: AlertWebhookId,
    pub name: String,
    pub url: String,
    /// Empty: every kind.
    pub kinds: Vec<AlertKind>,
    pub enabled: bool,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

impl std::fmt::Debug for StoredWebhook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredWebhook")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("url", &shown_url(&self.url))
            .field("kinds", &self.kinds)
            .field("enabled", &self.enabled)
            .finish_non_exhaustive()
    }
}

/// A webhook as the admin sends it. `Debug` shows whether a secret was given, never its value.
#[derive(Clone, Default)]
pub struct AlertWebhookInput {
    pub name: String,
    pub url: String,
    /// Alert kinds by name; empty: every kind.
    pub kinds: Vec<String>,
    pub enabled: bool,
    /// Required on create; `None` on update keeps the stored one.
    pub secret: Option<String>,
}

impl std::fmt::Debug for AlertWebhookInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AlertWebhookInput")
            .field("name", &self.name)
            .field("url", &shown_url(&self.url))
            .field("kinds", &self.kinds)
            .field("enabled", &self.enabled)
            .field("secret", &self.secret.as_ref().map(|_| "[REDACTED]"))
            .finish()
    }
}

/// A validated webhook write; the adapter seals the secret.
#[derive(Clone)]
pub struct AlertWebhookWrite {
    pub name: String,
    pub url: String,
    pub kinds: Vec<AlertKind>,
    pub enabled: bool,
    /// `None`: keep the stored secret (update only).
    pub secret: Option<SecretString>,
}

impl std::fmt::Debug for AlertWebhookWrite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AlertWebhookWrite")
            .field("name", &self.name)
            .field("url", &shown_url(&self.url))
            .field("kinds", &self.kinds)
            .field("enabled", &self.enabled)
            .field("secret", &self.secret.as_ref().map(|_| "[REDACTED]"))
            .finish()
    }
}

/// One rule: whether its kind is raised, and the thresholds of `error_rate`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AlertRule {
    pub kind: AlertKind,
    pub enabled: bool,
    /// `error_rate`: the share of failed requests (percent) above which it fires.
    pub threshold_percent: f64,
    /// `error_rate`: the window the share is taken over.
    pub window_seconds: u32,
    /// `error_rate`: fewer requests than this in the window never fire.
    pub min_requests: u32,
}

impl AlertRule {
    /// The rule of `kind` when none is stored: enabled, `error_rate` at 25 % of at least 20
    /// requests over 5 minutes (the migration's defaults).
    pub fn default_for(kind: AlertKind) -> Self {
        match kind {
            AlertKind::ErrorRate => {
                Self { kind, enabled: true, threshold_percent: 25.0, window_seconds: 300, min_requests: 20 }
            }
            _ => Self { kind, enabled: true, threshold_percent: 0.0, window_seconds: 300, min_requests: 1 },
        }
    }
}

/// The URL without its query or fragment (they may carry a token) and without user info.
pub fn shown_url(url: &str) -> String {
    gateway_core::redaction::url_userinfo_redacted(url.split(['?', '#']).next().unwrap_or_default())
}
