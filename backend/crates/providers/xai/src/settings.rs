//! The provider's settings, mapped from the process configuration by the composition root.
//! Every xAI address is configurable so the simulator can stand in (PROTOCOL H.12).

use std::time::Duration;

use gateway_transport::upstream_url::{checked_appcast_url, checked_base_url};

/// The Grok CLI's public OAuth client (PROTOCOL G.2).
pub const GROK_CLI_CLIENT_ID: &str = "b1a00492-073a-47ea-816f-4c329264a828";
/// The Grok CLI version presented until the version check finds a newer one (PROTOCOL H.2).
pub const PINNED_GROK_CLI_VERSION: &str = "0.2.120";

#[derive(Debug, Clone)]
pub struct XaiSettings {
    /// The Grok CLI proxy base, e.g. `https://cli-chat-proxy.grok.com/v1`.
    pub inference_url: String,
    /// The OIDC issuer, e.g. `https://auth.x.ai`.
    pub issuer_url: String,
    /// The public API base, e.g. `https://api.x.ai/v1` (reserved for native endpoints).
    pub api_url: String,
    /// The npm registry whose `@xai-official/grok` latest version the gateway presents.
    pub npm_registry_url: Option<String>,
    pub client_id: String,
    /// `x-grok-client-version` until the version check moves it.
    pub client_version: String,
    pub stream_idle_timeout: Duration,
    pub refresh_timeout: Duration,
    /// Allow `http://` upstream URLs on loopback addresses (tests, the simulator).
    pub allow_http_loopback: bool,
    /// A PEM file of extra CA certificates trusted beside the platform roots.
    pub extra_ca_file: Option<std::path::PathBuf>,
    /// The address policy applied to egress proxy hosts when connecting (decision 0244).
    pub proxy_addresses: gateway_transport::AddressCheck,
    /// Models of other providers this provider also serves, as `(requested, grok model)`: the
    /// route plan may fall back to xAI for them (SPEC §4).
    pub model_map: Vec<(String, String)>,
}

impl Default for XaiSettings {
    fn default() -> Self {
        Self {
            inference_url: "https://cli-chat-proxy.grok.com/v1".to_owned(),
            issuer_url: "https://auth.x.ai".to_owned(),
            api_url: "https://api.x.ai/v1".to_owned(),
            npm_registry_url: None,
            client_id: GROK_CLI_CLIENT_ID.to_owned(),
            client_version: PINNED_GROK_CLI_VERSION.to_owned(),
            stream_idle_timeout: Duration::from_secs(300),
            refresh_timeout: Duration::from_secs(30),
            allow_http_loopback: false,
            extra_ca_file: None,
            proxy_addresses: gateway_transport::AddressCheck::allow_all(),
            model_map: Vec::new(),
        }
    }
}

/// A setting of [`XaiSettings`] by name, so the composition root can name its configuration key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XaiSetting {
    InferenceUrl,
    IssuerUrl,
    ApiUrl,
    NpmRegistryUrl,
    ClientVersion,
    ExtraCaFile,
    ModelMap,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct InvalidSetting {
    pub setting: XaiSetting,
    pub reason: String,
}

/// The upstream URLs after [`XaiSettings::check`]: trailing slash removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedUrls {
    pub inference: String,
    pub issuer: String,
    pub api: String,
    pub npm: Option<String>,
}

impl XaiSettings {
    /// The same SSRF guard as every provider's (`gateway_transport::upstream_url`), and a
    /// semver client version. Called at start-up and by [`crate::XaiProvider::new`].
    pub fn check(&self) -> Result<CheckedUrls, InvalidSetting> {
        let url = |setting, value: &str| {
            checked_base_url(value, self.allow_http_loopback)
                .map_err(|e| InvalidSetting { setting, reason: e.to_string() })
        };
        let inference = url(XaiSetting::InferenceUrl, &self.inference_url)?;
        let issuer = url(XaiSetting::IssuerUrl, &self.issuer_url)?;
        let api = url(XaiSetting::ApiUrl, &self.api_url)?;
        let npm = match &self.npm_registry_url {
            Some(value) => Some(
                checked_appcast_url(value, self.allow_http_loopback)
                    .map_err(|e| InvalidSetting { setting: XaiSetting::NpmRegistryUrl, reason: e.to_string() })?,
            ),
            None => None,
        };
        if crate::version_check::semver(&self.client_version).is_none() {
            return Err(InvalidSetting {
                setting: XaiSetting::ClientVersion,
                reason: format!("`{}` is not a MAJOR.MINOR.PATCH version", self.client_version),
            });
        }
        if let Some((from, _)) = self.model_map.iter().find(|(from, to)| from.is_empty() || to.is_empty()) {
            return Err(InvalidSetting {
                setting: XaiSetting::ModelMap,
                reason: format!("entry `{from}` needs the form `requested=grok-model`"),
            });
        }
        Ok(CheckedUrls { inference, issuer, api, npm })
    }
}

/// Parses `requested=grok-model` entries (the configuration's list form).
pub fn parse_model_map(entries: &[String]) -> Result<Vec<(String, String)>, InvalidSetting> {
    entries
        .iter()
        .map(|entry| match entry.split_once('=') {
            Some((from, to)) if !from.trim().is_empty() && !to.trim().is_empty() => {
                Ok((from.trim().to_owned(), to.trim().to_owned()))
            }
            _ => Err(InvalidSetting {
                setting: XaiSetting::ModelMap,
                reason: format!("entry `{entry}` needs the form `requested=grok-model`"),
            }),
        })
        .collect()
}
