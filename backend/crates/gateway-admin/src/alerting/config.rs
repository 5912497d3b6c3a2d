//! The `alerts` section: the configured webhooks (beside the stored ones, decision 0284) and how
//! deliveries are retried.

use gateway_core::config::InvalidConfig;
use serde::{Deserialize, Serialize};

/// The `alerts` section: webhooks and how deliveries are retried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AlertsConfig {
    /// Where alerts go, besides the webhooks stored through the admin API (decision 0284).
    pub webhooks: Vec<WebhookConfig>,
    /// POSTs per delivery, the first included.
    pub max_attempts: u32,
    /// Wait after the first failed POST; doubles after each further one, up to the maximum.
    pub backoff_initial_ms: u64,
    pub backoff_max_ms: u64,
    /// Per POST.
    pub timeout_seconds: u64,
    /// The same alert about the same account or key is sent again only after this long.
    pub repeat_after_seconds: u64,
    /// How often the evaluated rules (`quota_exhausted`, `error_rate`, `backup_failing`) are
    /// checked, once per period across all replicas.
    pub evaluate_seconds: u64,
}

impl Default for AlertsConfig {
    fn default() -> Self {
        Self {
            webhooks: Vec::new(),
            max_attempts: 5,
            backoff_initial_ms: 1000,
            backoff_max_ms: 60_000,
            timeout_seconds: 10,
            repeat_after_seconds: 600,
            evaluate_seconds: 60,
        }
    }
}

#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookConfig {
    pub name: String,
    /// `https://…` (plain `http` only to a private address with `admin.allow_private_urls`).
    pub url: String,
    /// The HMAC-SHA256 key of `X-Switchboard-Signature` (at least 16 characters).
    pub secret: String,
    /// Alert kinds it receives (`account_banned`, `refresh_failing`, `pool_empty`,
    /// `quota_exhausted`, `error_rate`, `backup_failing`); empty: all.
    #[serde(default)]
    pub kinds: Vec<String>,
}

impl std::fmt::Debug for WebhookConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookConfig")
            .field("name", &self.name)
            .field("url", &self.url.split(['?', '#']).next().unwrap_or_default())
            .field("secret", &"[REDACTED]")
            .field("kinds", &self.kinds)
            .finish()
    }
}

impl AlertsConfig {
    pub fn validate(&self) -> Result<(), InvalidConfig> {
        if self.max_attempts == 0 || self.max_attempts > 20 {
            return Err(InvalidConfig::new("max_attempts", "must be between 1 and 20"));
        }
        if self.backoff_initial_ms == 0 || self.backoff_max_ms < self.backoff_initial_ms {
            return Err(InvalidConfig::new("backoff_max_ms", "must be at least alerts.backoff_initial_ms (≥ 1)"));
        }
        if self.timeout_seconds == 0 {
            return Err(InvalidConfig::new("timeout_seconds", "must be at least 1"));
        }
        if self.evaluate_seconds < 1 || self.evaluate_seconds > 86_400 {
            return Err(InvalidConfig::new("evaluate_seconds", "must be between 1 and 86400"));
        }
        for (index, webhook) in self.webhooks.iter().enumerate() {
            let key = |field: &str| format!("webhooks[{index}].{field}");
            if webhook.name.trim().is_empty() {
                return Err(InvalidConfig::new(&key("name"), "must not be empty"));
            }
            if webhook.secret.len() < 16 {
                return Err(InvalidConfig::new(&key("secret"), "must be at least 16 characters"));
            }
            for kind in &webhook.kinds {
                if kind.parse::<gateway_core::alerts::AlertKind>().is_err() {
                    return Err(InvalidConfig::new(&key("kinds"), &format!("unknown alert kind `{kind}`")));
                }
            }
        }
        Ok(())
    }
}
