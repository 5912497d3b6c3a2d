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
    /// A PEM file of extra CA certificates trusted beside the platform roots (a private
    /// upstream, a test CA).
    pub extra_ca_file: Option<std::path::PathBuf>,
    /// The address policy applied to egress proxy hosts when connecting (decision 0244).
    pub proxy_addresses: gateway_transport::AddressCheck,
    /// Derives the per-account conversation identifiers sent upstream (decision 0233): from the
    /// master key in the binary, random without one.
    pub identity_key: crate::identity::IdentityKey,
}

impl Default for OpenAiSettings {
    fn default() -> Self {
        Self {
            backend_url: "https://chatgpt.com/backend-api".to_owned(),
            auth_url: "https://auth.openai.com".to_owned(),
            client_id: "app_EMoamEEZ73f0CkXaXp7hrann".to_owned(),
            originator: crate::request_profile::CODEX_ORIGINATOR.to_owned(),
            client_version: crate::request_profile::PINNED_CODEX_VERSION.to_owned(),
            user_agent: None,
            header_timeout: Duration::from_secs(90),
            stream_idle_timeout: Duration::from_secs(300),
            refresh_timeout: Duration::from_secs(30),
            allow_http_loopback: false,
            request_body_limit: 32 << 20,
            prewarm_budget: PrewarmBudget::default(),
            extra_ca_file: None,
            proxy_addresses: gateway_transport::AddressCheck::allow_all(),
            identity_key: crate::identity::IdentityKey::random(),
        }
    }
}

/// A setting of [`OpenAiSettings`] (or the appcast address) by name, so that the composition
/// root can name the configuration key it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenAiSetting {
    BackendUrl,
    AuthUrl,
    AppcastUrl,
    Originator,
    ClientVersion,
    UserAgent,
    ExtraCaFile,
}

/// A setting the provider cannot run with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct InvalidSetting {
    pub setting: OpenAiSetting,
    pub reason: String,
}

/// The upstream URLs after [`OpenAiSettings::check`]: trailing slash removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedUrls {
    pub backend: String,
    pub auth: String,
}

impl OpenAiSettings {
    /// Every check the provider makes before it runs: the upstream URLs pass the SSRF guard and
    /// are usable by the upstream clients as written, and the request profile's values are valid
    /// header values. Called at start-up (before storage is opened) and by
    /// [`crate::OpenAiProvider::new`], so a bad value is a start-up error, never a provider that
    /// fails every call.
    pub fn check(&self) -> Result<CheckedUrls, InvalidSetting> {
        let url = |setting, value: &str| {
            crate::upstream_url::checked_base_url(value, self.allow_http_loopback)
                .map_err(|e| InvalidSetting { setting, reason: e.to_string() })
        };
        let backend = url(OpenAiSetting::BackendUrl, &self.backend_url)?;
        let auth = url(OpenAiSetting::AuthUrl, &self.auth_url)?;
        let header = |setting, value: &str| {
            http::HeaderValue::from_str(value)
                .map(drop)
                .map_err(|_| InvalidSetting { setting, reason: format!("`{value}` is not a valid header value") })
        };
        header(OpenAiSetting::Originator, &self.originator)?;
        header(OpenAiSetting::ClientVersion, &self.client_version)?;
        if let Some(user_agent) = &self.user_agent {
            header(OpenAiSetting::UserAgent, user_agent)?;
        }
        Ok(CheckedUrls { backend, auth })
    }

    /// The appcast address under the same rule (a query is allowed).
    pub fn check_appcast_url(&self, url: &str) -> Result<String, InvalidSetting> {
        crate::upstream_url::checked_appcast_url(url, self.allow_http_loopback)
            .map_err(|e| InvalidSetting { setting: OpenAiSetting::AppcastUrl, reason: e.to_string() })
    }
}
