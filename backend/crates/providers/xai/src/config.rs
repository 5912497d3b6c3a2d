//! The `providers.xai` section: where the xAI (Grok) upstreams are and how the gateway presents
//! itself. The composition root maps it onto [`crate::XaiSettings`], whose `check` runs at load.

use gateway_core::config::InvalidConfig;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct XaiConfig {
    /// Grok CLI proxy base (inference, models, billing).
    pub inference_url: String,
    /// OIDC issuer (discovery, token, JWKS, userinfo, device authorization).
    pub issuer_url: String,
    /// Public API base (reserved for native endpoints).
    pub api_url: String,
    pub client_id: String,
    /// `x-grok-client-version` until the version check moves it; not set: the version the
    /// provider pins.
    pub client_version: Option<String>,
    /// npm registry whose `@xai-official/grok` latest version is presented; not set: no check.
    pub npm_registry_url: Option<String>,
    pub version_check_period_seconds: u64,
    /// PEM file of extra CA certificates trusted for upstream TLS beside the platform roots.
    pub extra_ca_file: Option<String>,
    pub stream_idle_timeout_seconds: u64,
    /// Other providers' models xAI also serves, as `requested=grok-model` (provider fallback).
    pub model_map: Vec<String>,
}

impl Default for XaiConfig {
    fn default() -> Self {
        Self {
            inference_url: "https://cli-chat-proxy.grok.com/v1".to_owned(),
            issuer_url: "https://auth.x.ai".to_owned(),
            api_url: "https://api.x.ai/v1".to_owned(),
            client_id: "b1a00492-073a-47ea-816f-4c329264a828".to_owned(),
            client_version: None,
            npm_registry_url: None,
            version_check_period_seconds: 24 * 3600,
            extra_ca_file: None,
            stream_idle_timeout_seconds: 300,
            model_map: Vec::new(),
        }
    }
}

impl XaiConfig {
    /// Rules serde cannot express; keys relative to the section. The URL guard and the model
    /// map are checked on the mapped settings (`XaiSettings::check`).
    pub fn validate(&self) -> Result<(), InvalidConfig> {
        if self.version_check_period_seconds == 0 {
            return Err(InvalidConfig::new("version_check_period_seconds", "must be at least 1"));
        }
        Ok(())
    }
}
