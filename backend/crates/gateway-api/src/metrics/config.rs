//! The `metrics` section: whether the engine records and `GET /metrics` serves, the endpoint's
//! bearer token, and the model label's bound. The composition root maps `model_label` and
//! `max_models` onto the engine's `TelemetrySettings`.

use gateway_core::config::InvalidConfig;
use serde::{Deserialize, Serialize};

#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MetricsConfig {
    /// Record request, attempt and pool metrics and serve `GET /metrics`. Off: `/metrics`
    /// answers 404 and the engine records nothing.
    pub enabled: bool,
    /// When set, `GET /metrics` requires `Authorization: Bearer <token>`.
    pub bearer_token: Option<String>,
    /// Label request counters with the model the client asked for (bounded by `max_models`;
    /// later names count as `other`). Off: every model is `other`.
    pub model_label: bool,
    pub max_models: u16,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        Self { enabled: true, bearer_token: None, model_label: true, max_models: 256 }
    }
}

impl std::fmt::Debug for MetricsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsConfig")
            .field("enabled", &self.enabled)
            .field("bearer_token", &self.bearer_token.as_ref().map(|_| "[REDACTED]"))
            .field("model_label", &self.model_label)
            .field("max_models", &self.max_models)
            .finish()
    }
}

impl MetricsConfig {
    pub fn validate(&self) -> Result<(), InvalidConfig> {
        if self.bearer_token.as_deref().is_some_and(|token| token.trim().len() < 16) {
            return Err(InvalidConfig::new("bearer_token", "must be at least 16 characters"));
        }
        if self.max_models == 0 {
            return Err(InvalidConfig::new("max_models", "must be at least 1"));
        }
        Ok(())
    }
}
