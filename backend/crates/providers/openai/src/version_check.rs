//! The version check: reads the newest Codex version from a configured appcast (a Sparkle RSS
//! feed, or a JSON `{"version": …}` document) and moves the request profile forward to it.
//! A failed or unparseable check keeps the last good profile; the version never goes backwards.

use std::time::Duration;

use gateway_transport::{HttpClient, HttpRequest};

use crate::request_profile::ProfileHolder;

/// Largest appcast body read.
const MAX_APPCAST_BYTES: usize = 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionCheckOutcome {
    Updated {
        from: String,
        to: String,
    },
    /// The appcast's newest version is not newer than the current one.
    Unchanged {
        current: String,
        latest: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VersionCheckError {
    #[error("the appcast is unreachable: {0}")]
    Unreachable(String),
    #[error("the appcast answered {0}")]
    Status(u16),
    #[error("the appcast names no version")]
    NoVersion,
}

pub struct VersionCheck {
    client: HttpClient,
    url: String,
    profile: ProfileHolder,
    timeout: Duration,
}

impl VersionCheck {
    /// `url` must already have passed the SSRF check.
    pub fn new(client: HttpClient, url: String, profile: ProfileHolder, timeout: Duration) -> Self {
        Self { client, url, profile, timeout }
    }

    pub async fn check(&self) -> Result<VersionCheckOutcome, VersionCheckError> {
        let body = tokio::time::timeout(self.timeout, self.fetch())
            .await
            .map_err(|_| VersionCheckError::Unreachable("timed out".to_owned()))??;
        let latest = latest_version(&body).ok_or(VersionCheckError::NoVersion)?;
        let current = self.profile.current().version.clone();
        if !is_newer(&latest, &current) {
            return Ok(VersionCheckOutcome::Unchanged { current, latest });
        }
        self.profile.set_version(&latest).map_err(|_| VersionCheckError::NoVersion)?;
        tracing::info!(from = %current, to = %latest, "request profile moved to a newer Codex version");
        Ok(VersionCheckOutcome::Updated { from: current, to: latest })
    }

    async fn fetch(&self) -> Result<String, VersionCheckError> {
        let request = HttpRequest::get(&self.url).map_err(|_| VersionCheckError::Unreachable("not a URL".into()))?;
        let request = request.header(http::header::ACCEPT, http::HeaderValue::from_static("application/json, */*"));
        let response = self
            .client
            .send(request, None)
            .await
            .map_err(|_: gateway_transport::SendError| VersionCheckError::Unreachable("no answer".into()))?;
        let status = response.status.as_u16();
        if status != 200 {
            return Err(VersionCheckError::Status(status));
        }
        let body = response.prefix(MAX_APPCAST_BYTES).await;
        Ok(String::from_utf8_lossy(&body).into_owned())
    }
}

/// The newest valid version an appcast names: JSON `version`, or over every `<item>` the
/// `sparkle:shortVersionString` (element or enclosure attribute), else the item's `<title>`.
pub fn latest_version(body: &str) -> Option<String> {
    let body = body.trim_start();
    if body.starts_with('{') {
        let value: serde_json::Value = serde_json::from_str(body).ok()?;
        return value.get("version").and_then(|v| v.as_str()).filter(|v| is_version(v)).map(str::to_owned);
    }
    body.split("<item")
        .skip(1)
        .filter_map(|item| {
            let item = item.split("</item>").next().unwrap_or(item);
            element(item, "sparkle:shortVersionString")
                .or_else(|| attribute(item, "sparkle:shortVersionString"))
                .or_else(|| element(item, "title"))
                .filter(|v| is_version(v))
        })
        .max_by(|a, b| compare(a, b))
}

fn element(item: &str, name: &str) -> Option<String> {
    let open = format!("<{name}>");
    let start = item.find(&open)? + open.len();
    let end = item[start..].find(&format!("</{name}>"))? + start;
    Some(item[start..end].trim().to_owned())
}

fn attribute(item: &str, name: &str) -> Option<String> {
    let key = format!("{name}=\"");
    let start = item.find(&key)? + key.len();
    let end = item[start..].find('"')? + start;
    Some(item[start..end].trim().to_owned())
}

/// Two to four dot-separated numbers.
pub fn is_version(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    (2..=4).contains(&parts.len())
        && parts.iter().all(|p| !p.is_empty() && p.len() <= 9 && p.bytes().all(|b| b.is_ascii_digit()))
}

fn numbers(version: &str) -> Vec<u64> {
    version.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

fn compare(a: &str, b: &str) -> std::cmp::Ordering {
    numbers(a).cmp(&numbers(b))
}

/// Whether `candidate` is a newer version than `current` (numeric, part by part). A current
/// value that is not a version is replaced by any valid one.
pub fn is_newer(candidate: &str, current: &str) -> bool {
    is_version(candidate) && (!is_version(current) || compare(candidate, current).is_gt())
}
