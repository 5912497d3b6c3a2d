//! Simulator configuration: what a YAML/JSON config file or a test passes to `Simulator::start`.

use std::net::SocketAddr;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::account::AccountSpec;
use crate::tls::TlsFault;

/// Everything the simulator needs at start. Every field has a default, so `SimConfig::default()`
/// is a working simulator on `127.0.0.1:0` with no accounts.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimConfig {
    /// Address to bind; port 0 picks a free port.
    pub listen: SocketAddr,
    /// Address of the TLS listener (test CA, ALPN `h2, http/1.1`); port 0 picks a free port.
    pub tls_listen: SocketAddr,
    /// Path prefix of the ChatGPT backend (`/backend-api`): Codex lives under `{prefix}/codex`.
    pub codex_base_path: String,
    /// Path prefix of the OpenAI OAuth issuer (`""` = root: `/oauth/token`).
    pub oauth_base_path: String,
    /// Path prefix of the xAI upstream (`/xai`): API under `{prefix}/v1`, OIDC issuer at `{prefix}`.
    pub xai_prefix: String,
    /// Accounts present at start.
    pub accounts: Vec<AccountSpec>,
    /// Account `/oauth/authorize` picks when the request names none (default: the first OpenAI account).
    pub default_account: Option<String>,
    /// Runtime-changeable settings (also `PATCH /_sim/settings`).
    pub settings: Settings,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            tls_listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            codex_base_path: "/backend-api".to_owned(),
            oauth_base_path: String::new(),
            xai_prefix: "/xai".to_owned(),
            accounts: Vec::new(),
            default_account: None,
            settings: Settings::default(),
        }
    }
}

impl SimConfig {
    /// Reads a config file: JSON when the name ends in `.json`, YAML otherwise.
    pub fn from_file(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let config = if path.extension().is_some_and(|ext| ext == "json") {
            serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?
        } else {
            serde_norway::from_str(&text).with_context(|| format!("parsing {}", path.display()))?
        };
        Ok(config)
    }

    pub(crate) fn normalized(mut self) -> anyhow::Result<Self> {
        self.codex_base_path = normalize_prefix(&self.codex_base_path);
        self.oauth_base_path = normalize_prefix(&self.oauth_base_path);
        self.xai_prefix = normalize_prefix(&self.xai_prefix);
        anyhow::ensure!(!self.codex_base_path.is_empty(), "codex_base_path must not be the root");
        anyhow::ensure!(!self.xai_prefix.is_empty(), "xai_prefix must not be the root");
        Ok(self)
    }
}

/// `"backend-api/"` → `"/backend-api"`, `"/"` → `""`.
fn normalize_prefix(raw: &str) -> String {
    let trimmed = raw.trim().trim_matches('/');
    if trimmed.is_empty() { String::new() } else { format!("/{trimmed}") }
}

/// Settings a running simulator can change (`PATCH /_sim/settings`, `SimHandle::update_settings`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// `ETag` of `/codex/models` and value of `x-models-etag` on every Codex response.
    pub models_etag: String,
    /// Version string served by the appcast (`/appcast.xml`, `/appcast.json`).
    pub appcast_version: String,
    /// Build number served by the appcast.
    pub appcast_build: String,
    /// Version served as the npm `latest` of the Grok CLI package.
    pub grok_cli_version: String,
    /// Version served as the npm `latest` of `@openai/codex` (the Codex CLI).
    pub codex_cli_version: String,
    /// Lowest `x-grok-client-version` the xAI endpoints accept (426 below it).
    pub grok_min_client_version: String,
    /// Whether xAI inference requires `X-XAI-Token-Auth` + `x-grok-client-version` (426 otherwise).
    pub xai_require_client_headers: bool,
    /// Maximum age of a Codex WebSocket before `websocket_connection_limit_reached`.
    pub ws_max_age_secs: u64,
    /// Largest text message a Codex WebSocket takes; a longer one is answered with close code
    /// 1009 (message too big) after it was read.
    pub ws_max_message_bytes: usize,
    /// Largest frame a Codex WebSocket reads; a longer one drops the connection at its header,
    /// while the client is still sending it.
    pub ws_max_frame_bytes: usize,
    /// Whether the Codex routes' answers are compressed when the request asks for it
    /// (`Accept-Encoding`); off, every answer is plain whatever the request offers.
    pub compress_answers: bool,
    /// Whether requests are recorded for `GET /_sim/requests`.
    pub record_requests: bool,
    /// How many requests are kept (oldest dropped first).
    pub record_limit: usize,
    /// Bytes of each recorded body that are kept.
    pub record_body_limit: usize,
    /// OAuth client id `/oauth/authorize` and `/oauth/token` accept for OpenAI.
    pub openai_client_id: String,
    /// OAuth client id the xAI issuer accepts.
    pub xai_client_id: String,
    /// The TLS listener's certificate for new handshakes: `none` (signed by the test CA) or
    /// `untrusted` (the same names, signed by a CA nobody trusts).
    pub tls_fault: TlsFault,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            models_etag: "\"sim-models-1\"".to_owned(),
            appcast_version: "26.311.21342".to_owned(),
            appcast_build: "2134".to_owned(),
            grok_cli_version: "0.2.120".to_owned(),
            codex_cli_version: "0.172.0".to_owned(),
            grok_min_client_version: "0.1.202".to_owned(),
            xai_require_client_headers: true,
            ws_max_age_secs: 3_600,
            ws_max_message_bytes: 64 << 20,
            ws_max_frame_bytes: 16 << 20,
            compress_answers: true,
            record_requests: true,
            record_limit: 1_000,
            record_body_limit: 1 << 20,
            openai_client_id: "app_EMoamEEZ73f0CkXaXp7hrann".to_owned(),
            xai_client_id: "b1a00492-073a-47ea-816f-4c329264a828".to_owned(),
            tls_fault: TlsFault::None,
        }
    }
}

/// A partial update of [`Settings`]: only the fields that are present change.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SettingsPatch {
    pub models_etag: Option<String>,
    pub appcast_version: Option<String>,
    pub appcast_build: Option<String>,
    pub grok_cli_version: Option<String>,
    pub codex_cli_version: Option<String>,
    pub grok_min_client_version: Option<String>,
    pub xai_require_client_headers: Option<bool>,
    pub ws_max_age_secs: Option<u64>,
    pub ws_max_message_bytes: Option<usize>,
    pub ws_max_frame_bytes: Option<usize>,
    pub compress_answers: Option<bool>,
    pub record_requests: Option<bool>,
    pub record_limit: Option<usize>,
    pub record_body_limit: Option<usize>,
    pub tls_fault: Option<TlsFault>,
}

impl Settings {
    pub(crate) fn apply(&mut self, patch: SettingsPatch) {
        fn set<T>(slot: &mut T, value: Option<T>) {
            if let Some(value) = value {
                *slot = value;
            }
        }
        set(&mut self.models_etag, patch.models_etag);
        set(&mut self.appcast_version, patch.appcast_version);
        set(&mut self.appcast_build, patch.appcast_build);
        set(&mut self.grok_cli_version, patch.grok_cli_version);
        set(&mut self.codex_cli_version, patch.codex_cli_version);
        set(&mut self.grok_min_client_version, patch.grok_min_client_version);
        set(&mut self.xai_require_client_headers, patch.xai_require_client_headers);
        set(&mut self.ws_max_age_secs, patch.ws_max_age_secs);
        set(&mut self.ws_max_message_bytes, patch.ws_max_message_bytes);
        set(&mut self.ws_max_frame_bytes, patch.ws_max_frame_bytes);
        set(&mut self.compress_answers, patch.compress_answers);
        set(&mut self.record_requests, patch.record_requests);
        set(&mut self.record_limit, patch.record_limit);
        set(&mut self.record_body_limit, patch.record_body_limit);
        set(&mut self.tls_fault, patch.tls_fault);
    }
}
