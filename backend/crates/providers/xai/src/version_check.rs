//! The Grok CLI version the gateway presents (`x-grok-client-version`) and its check against a
//! configurable npm registry (`GET {registry}/@xai-official%2Fgrok/latest` → `{"version"}`,
//! PROTOCOL H.1). The version only moves forward; a failed check keeps the current one. A 426
//! from the upstream asks for an early check ([`ClientVersion::request_check`]).

use std::sync::{Arc, RwLock};
use std::time::Duration;

use gateway_transport::{HttpClient, HttpRequest};
use tokio::sync::Notify;

/// The npm package of the official Grok CLI.
pub const GROK_CLI_PACKAGE: &str = "@xai-official%2Fgrok";
const MAX_BODY: usize = 256 * 1024;

/// Parses `MAJOR.MINOR.PATCH` (a `-pre` or `+build` suffix is ignored).
pub fn semver(value: &str) -> Option<(u64, u64, u64)> {
    let core = value.trim().split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    let version = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some(version)
}

/// The version presented upstream, shared by every call of the provider.
#[derive(Clone)]
pub struct ClientVersion {
    current: Arc<RwLock<String>>,
    check_requested: Arc<Notify>,
}

impl ClientVersion {
    pub fn new(version: &str) -> Self {
        Self { current: Arc::new(RwLock::new(version.to_owned())), check_requested: Arc::new(Notify::new()) }
    }

    pub fn current(&self) -> String {
        self.current.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Moves to `version` if it is a newer semver; returns whether it moved.
    pub fn advance(&self, version: &str) -> bool {
        let Some(next) = semver(version) else { return false };
        let mut current = self.current.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        if semver(&current).is_some_and(|c| c >= next) {
            return false;
        }
        *current = version.trim().to_owned();
        true
    }

    /// The upstream refused the version: wake the version check now.
    pub fn request_check(&self) {
        self.check_requested.notify_one();
    }

    /// Resolves when a check was requested.
    pub async fn check_requested(&self) {
        self.check_requested.notified().await;
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionCheckOutcome {
    Updated { from: String, to: String },
    Unchanged { current: String, latest: String },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VersionCheckError {
    #[error("the npm registry is unreachable: {0}")]
    Unreachable(String),
    #[error("the npm registry answered {0}")]
    Status(u16),
    #[error("the npm registry names no semver version")]
    NoVersion,
}

pub struct VersionCheck {
    http: HttpClient,
    /// `{registry}/@xai-official%2Fgrok/latest` (the registry passed the SSRF guard).
    url: String,
    version: ClientVersion,
    timeout: Duration,
}

impl VersionCheck {
    pub fn new(http: HttpClient, registry: &str, version: ClientVersion, timeout: Duration) -> Self {
        let url = format!("{}/{GROK_CLI_PACKAGE}/latest", registry.trim_end_matches('/'));
        Self { http, url, version, timeout }
    }

    pub fn version(&self) -> &ClientVersion {
        &self.version
    }

    pub async fn check(&self) -> Result<VersionCheckOutcome, VersionCheckError> {
        let request = HttpRequest::get(&self.url).map_err(|e| VersionCheckError::Unreachable(e.to_string()))?;
        let fetched = self
            .http
            .fetch(request, None, self.timeout, MAX_BODY)
            .await
            .map_err(|e| VersionCheckError::Unreachable(e.to_string()))?;
        if fetched.status != 200 {
            return Err(VersionCheckError::Status(fetched.status));
        }
        let value: serde_json::Value =
            serde_json::from_slice(&fetched.body).map_err(|_| VersionCheckError::NoVersion)?;
        let latest = value
            .get("version")
            .and_then(serde_json::Value::as_str)
            .filter(|v| semver(v).is_some())
            .ok_or(VersionCheckError::NoVersion)?
            .to_owned();
        let current = self.version.current();
        if self.version.advance(&latest) {
            tracing::info!(from = %current, to = %latest, "Grok CLI version moved forward");
            return Ok(VersionCheckOutcome::Updated { from: current, to: latest });
        }
        Ok(VersionCheckOutcome::Unchanged { current, latest })
    }
}
