//! The `update` section: where the self-update finds releases, how it verifies and restarts.

use base64::Engine;
use serde::{Deserialize, Serialize};

use super::ConfigError;

/// How the process restarts into a new binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RestartMode {
    /// The process replaces itself (`exec`, same PID): no supervisor needed, and a supervisor
    /// that watches the PID (systemd) sees the same service.
    #[default]
    Exec,
    /// The process exits with code 75 and a supervisor (systemd `Restart=`) starts the binary.
    Exit,
}

#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UpdateConfig {
    /// The `release.json` of the release channel (what `release/build` writes); archives and
    /// checksums are fetched next to it. Not set: the self-update is off.
    pub release_url: Option<String>,
    /// Ed25519 public key (base64 of 32 bytes) that must have signed the release's
    /// `SHA256SUMS`; not set: releases are verified by checksum only.
    pub public_key: Option<String>,
    pub restart: RestartMode,
    /// How long a new version gets to answer `/readyz` with 200 before it is rolled back.
    pub health_timeout_seconds: u64,
    /// Allow a plain `http://` release URL on a loopback address (tests, a local mirror).
    pub allow_http_loopback: bool,
    /// Update even when the process looks like it runs in a container: for a binary that is not
    /// part of the image (a bind-mounted directory), where replacing it survives the container.
    pub allow_in_container: bool,
}

// A private mirror's URL may carry a token in its user info or query: `Debug` shows neither.
impl std::fmt::Debug for UpdateConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let url = self.release_url.as_deref().map(|raw| {
            let shown = gateway_core::redaction::url_userinfo_redacted(raw);
            match shown.split_once('?') {
                Some((head, _)) => format!("{head}?[REDACTED]"),
                None => shown,
            }
        });
        f.debug_struct("UpdateConfig")
            .field("release_url", &url)
            .field("public_key", &self.public_key)
            .field("restart", &self.restart)
            .field("health_timeout_seconds", &self.health_timeout_seconds)
            .field("allow_http_loopback", &self.allow_http_loopback)
            .field("allow_in_container", &self.allow_in_container)
            .finish()
    }
}

impl Default for UpdateConfig {
    fn default() -> Self {
        Self {
            release_url: None,
            public_key: None,
            restart: RestartMode::Exec,
            health_timeout_seconds: 60,
            allow_http_loopback: false,
            allow_in_container: false,
        }
    }
}

impl UpdateConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let Some(raw) = &self.release_url {
            self.release_url_parsed(raw)?;
        }
        if let Some(key) = &self.public_key {
            decode_public_key(key)?;
        }
        if !(5..=3600).contains(&self.health_timeout_seconds) {
            return Err(ConfigError::invalid("update.health_timeout_seconds", "must be between 5 and 3600"));
        }
        Ok(())
    }

    /// The release URL, checked: `https://`, or `http://` to a loopback address when allowed;
    /// no credentials.
    pub fn release_url_parsed(&self, raw: &str) -> Result<url::Url, ConfigError> {
        let key = "update.release_url";
        let url = url::Url::parse(raw).map_err(|_| ConfigError::invalid(key, "must be an absolute URL"))?;
        if !url.username().is_empty() || url.password().is_some() {
            return Err(ConfigError::invalid(key, "must not carry credentials"));
        }
        let loopback = match url.host() {
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
            None => false,
        };
        match url.scheme() {
            "https" if url.host().is_some() => Ok(url),
            "http" if loopback && self.allow_http_loopback => Ok(url),
            "http" if loopback => {
                Err(ConfigError::invalid(key, "plain http:// needs update.allow_http_loopback (loopback only)"))
            }
            _ => Err(ConfigError::invalid(key, "must be an https:// URL")),
        }
    }

    /// The public key's 32 bytes, when one is configured (call after `validate`).
    pub fn public_key_bytes(&self) -> Option<[u8; 32]> {
        self.public_key.as_deref().and_then(|key| decode_public_key(key).ok())
    }
}

fn decode_public_key(key: &str) -> Result<[u8; 32], ConfigError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(key.trim())
        .map_err(|_| ConfigError::invalid("update.public_key", "must be base64"))?;
    <[u8; 32]>::try_from(bytes.as_slice())
        .map_err(|_| ConfigError::invalid("update.public_key", "must be an Ed25519 public key (32 bytes)"))
}
