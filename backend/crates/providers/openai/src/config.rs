//! The `providers.openai` section: where the ChatGPT/Codex upstreams are, how the gateway
//! presents itself, and the provider's own timeouts and budgets. The composition root maps it
//! onto [`crate::OpenAiSettings`]; the URL guard runs on those at load (`OpenAiSettings::check`).

use gateway_core::config::InvalidConfig;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OpenAiConfig {
    /// ChatGPT backend base URL.
    pub backend_url: String,
    /// OAuth issuer base URL.
    pub auth_url: String,
    pub client_id: String,
    /// `originator` header sent upstream.
    pub originator: String,
    /// Codex client version sent as `version` and in the user agent; not set: the Codex version
    /// the OpenAI provider pins (`request_profile.rs`, the one place to bump it).
    pub client_version: Option<String>,
    /// PEM file of extra CA certificates trusted for upstream TLS beside the platform roots.
    pub extra_ca_file: Option<String>,
    /// Longest wait for the first frame of an upstream WebSocket exchange (the wait for an HTTP
    /// response head is the engine's, `engine.header_timeout_seconds`).
    pub header_timeout_seconds: u64,
    pub stream_idle_timeout_seconds: u64,
    /// Appcast (Sparkle RSS or `{"version"}` JSON) whose newest version the request profile
    /// follows; not set: the configured `client_version` stays.
    pub appcast_url: Option<String>,
    pub version_check_period_seconds: u64,
    /// Bytes the prewarms answered locally (upstream socket refused) may hold per client key.
    pub prewarm_key_budget_bytes: usize,
    /// Bytes they may hold in total.
    pub prewarm_total_budget_bytes: usize,
}

impl Default for OpenAiConfig {
    fn default() -> Self {
        Self {
            backend_url: "https://chatgpt.com/backend-api".to_owned(),
            auth_url: "https://auth.openai.com".to_owned(),
            client_id: "app_EMoamEEZ73f0CkXaXp7hrann".to_owned(),
            originator: "codex_cli_rs".to_owned(),
            client_version: None,
            extra_ca_file: None,
            header_timeout_seconds: 90,
            stream_idle_timeout_seconds: 300,
            appcast_url: None,
            version_check_period_seconds: 6 * 3600,
            prewarm_key_budget_bytes: 8 * 1024 * 1024,
            prewarm_total_budget_bytes: 64 * 1024 * 1024,
        }
    }
}

impl OpenAiConfig {
    /// Rules serde cannot express; keys relative to the section (`backend_url`).
    pub fn validate(&self) -> Result<(), InvalidConfig> {
        for (key, url) in [("backend_url", &self.backend_url), ("auth_url", &self.auth_url)] {
            if !is_http_url(url) {
                return Err(InvalidConfig::new(key, "must be an http(s) URL"));
            }
        }
        if let Some(url) = &self.appcast_url
            && !is_http_url(url)
        {
            return Err(InvalidConfig::new("appcast_url", "must be an http(s) URL"));
        }
        if self.prewarm_key_budget_bytes < 1024 || self.prewarm_key_budget_bytes > self.prewarm_total_budget_bytes {
            return Err(InvalidConfig::new(
                "prewarm_key_budget_bytes",
                "must be at least 1024 and not above providers.openai.prewarm_total_budget_bytes",
            ));
        }
        if self.version_check_period_seconds == 0 {
            return Err(InvalidConfig::new("version_check_period_seconds", "must be at least 1"));
        }
        Ok(())
    }
}

fn is_http_url(url: &str) -> bool {
    url.starts_with("https://") || url.starts_with("http://")
}
