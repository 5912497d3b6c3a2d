//! The provider's settings, mapped from the process configuration by the composition root.

use std::time::Duration;

use crate::websocket::PrewarmBudget;

/// Where the upstreams are and how the gateway presents itself to them.
#[derive(Debug, Clone)]
pub struct OpenAiSettings {
    /// The ChatGPT backend base, e.g. `https://chatgpt.com/backend-api`.
    pub backend_url: String,
    /// The OAuth issuer, e.g. `https://auth.openai.com`.
    pub auth_url: String,
    pub client_id: String,
    /// `originator` header value.
    pub originator: String,
    /// Client version sent as `version` and in the user agent.
    pub client_version: String,
    /// Full user agent; derived from originator and version when `None` (`request_profile.rs`).
    pub user_agent: Option<String>,
    pub header_timeout: Duration,
    /// Longest silence between two upstream events before the stream counts as broken.
    pub stream_idle_timeout: Duration,
    pub refresh_timeout: Duration,
    /// Allow `http://` upstream URLs on loopback addresses (tests, the simulator).
    pub allow_http_loopback: bool,
    /// The client API's body limit (`server.request_body_limit_bytes`): an upstream WebSocket
    /// reads messages and frames at least this large.
    pub request_body_limit: usize,
    /// Bytes kept for prewarms answered locally (`websocket/prewarm.rs`).
    pub prewarm_budget: PrewarmBudget,
}

impl Default for OpenAiSettings {
    fn default() -> Self {
        Self {
            backend_url: "https://chatgpt.com/backend-api".to_owned(),
            auth_url: "https://auth.openai.com".to_owned(),
            client_id: "app_EMoamEEZ73f0CkXaXp7hrann".to_owned(),
            originator: "codex_cli_rs".to_owned(),
            client_version: "0.135.0".to_owned(),
            user_agent: None,
            header_timeout: Duration::from_secs(90),
            stream_idle_timeout: Duration::from_secs(300),
            refresh_timeout: Duration::from_secs(30),
            allow_http_loopback: false,
            request_body_limit: 32 << 20,
            prewarm_budget: PrewarmBudget::default(),
        }
    }
}
