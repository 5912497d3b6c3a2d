//! The `metrics` and `tracing` sections: the Prometheus endpoint and the request traces.

use serde::{Deserialize, Serialize};

use super::ConfigError;

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
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.bearer_token.as_deref().is_some_and(|token| token.trim().len() < 16) {
            return Err(ConfigError::invalid("metrics.bearer_token", "must be at least 16 characters"));
        }
        if self.max_models == 0 {
            return Err(ConfigError::invalid("metrics.max_models", "must be at least 1"));
        }
        Ok(())
    }
}

#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TracingConfig {
    /// One `info` line per HTTP request (method, path, status, duration, request id).
    pub access_log: bool,
    /// An OTLP/HTTP (protobuf) collector, `http(s)://host:4318`: the request and phase spans
    /// go to `<endpoint>/v1/traces` (an endpoint already ending so is used as is). Unset: no
    /// exporter, and the phase spans are never built.
    pub otlp_endpoint: Option<String>,
    /// Headers sent with every export, `name=value,name2=value2` (an API key, say): never
    /// logged.
    pub otlp_headers: Option<String>,
    /// The `service.name` resource of the exported spans.
    pub service_name: String,
    /// The share of new traces sampled (0 to 1); a client's `traceparent` decision is followed.
    pub sample_ratio: f64,
}

impl Default for TracingConfig {
    fn default() -> Self {
        Self {
            access_log: false,
            otlp_endpoint: None,
            otlp_headers: None,
            service_name: "switchboard".to_owned(),
            sample_ratio: 1.0,
        }
    }
}

impl std::fmt::Debug for TracingConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TracingConfig")
            .field("access_log", &self.access_log)
            .field("otlp_endpoint", &self.otlp_endpoint.as_deref().map(|url| url.split(['?', '#']).next()))
            .field("otlp_headers", &self.otlp_headers.as_ref().map(|_| "[REDACTED]"))
            .field("service_name", &self.service_name)
            .field("sample_ratio", &self.sample_ratio)
            .finish()
    }
}

impl TracingConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let Some(endpoint) = &self.otlp_endpoint {
            let usable = url::Url::parse(endpoint)
                .is_ok_and(|url| matches!(url.scheme(), "http" | "https") && url.host_str().is_some());
            if !usable {
                return Err(ConfigError::invalid("tracing.otlp_endpoint", "must be an http(s) URL"));
            }
        }
        if self.otlp_headers.as_deref().is_some_and(|headers| self.headers_of(headers).is_none()) {
            return Err(ConfigError::invalid("tracing.otlp_headers", "must be `name=value` pairs separated by commas"));
        }
        if self.service_name.trim().is_empty() {
            return Err(ConfigError::invalid("tracing.service_name", "must not be empty"));
        }
        if !(0.0..=1.0).contains(&self.sample_ratio) {
            return Err(ConfigError::invalid("tracing.sample_ratio", "must be between 0 and 1"));
        }
        Ok(())
    }

    /// The export headers as name/value pairs (`None`: not well formed).
    pub fn otlp_header_pairs(&self) -> Option<Vec<(String, String)>> {
        self.otlp_headers.as_deref().map_or(Some(Vec::new()), |headers| self.headers_of(headers))
    }

    fn headers_of(&self, headers: &str) -> Option<Vec<(String, String)>> {
        headers
            .split(',')
            .filter(|pair| !pair.trim().is_empty())
            .map(|pair| {
                let (name, value) = pair.split_once('=')?;
                let name = name.trim();
                let valid = http::HeaderName::from_bytes(name.as_bytes()).is_ok()
                    && http::HeaderValue::from_str(value.trim()).is_ok();
                valid.then(|| (name.to_ascii_lowercase(), value.trim().to_owned()))
            })
            .collect()
    }

    /// Where the spans are posted: the endpoint with `/v1/traces`, unless it ends so already.
    pub fn traces_url(&self) -> Option<String> {
        let endpoint = self.otlp_endpoint.as_deref()?.trim_end_matches('/');
        Some(if endpoint.ends_with("/v1/traces") { endpoint.to_owned() } else { format!("{endpoint}/v1/traces") })
    }
}

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
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.max_attempts == 0 || self.max_attempts > 20 {
            return Err(ConfigError::invalid("alerts.max_attempts", "must be between 1 and 20"));
        }
        if self.backoff_initial_ms == 0 || self.backoff_max_ms < self.backoff_initial_ms {
            return Err(ConfigError::invalid(
                "alerts.backoff_max_ms",
                "must be at least alerts.backoff_initial_ms (≥ 1)",
            ));
        }
        if self.timeout_seconds == 0 {
            return Err(ConfigError::invalid("alerts.timeout_seconds", "must be at least 1"));
        }
        if self.evaluate_seconds < 1 || self.evaluate_seconds > 86_400 {
            return Err(ConfigError::invalid("alerts.evaluate_seconds", "must be between 1 and 86400"));
        }
        for (index, webhook) in self.webhooks.iter().enumerate() {
            let key = |field: &str| format!("alerts.webhooks[{index}].{field}");
            if webhook.name.trim().is_empty() {
                return Err(ConfigError::invalid(&key("name"), "must not be empty"));
            }
            if webhook.secret.len() < 16 {
                return Err(ConfigError::invalid(&key("secret"), "must be at least 16 characters"));
            }
            for kind in &webhook.kinds {
                if kind.parse::<gateway_core::alerts::AlertKind>().is_err() {
                    return Err(ConfigError::invalid(&key("kinds"), &format!("unknown alert kind `{kind}`")));
                }
            }
        }
        Ok(())
    }
}
