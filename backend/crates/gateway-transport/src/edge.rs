//! What an error answer's body and headers say about who produced it: the origin (its JSON), or
//! an edge in front of it (a CDN or load balancer page: HTML, plain text, nothing), and among
//! edge answers, a bot challenge. Also the `Retry-After` header, in seconds or as an HTTP date.
//!
//! Knows no provider: the markers are those of the edges themselves (Cloudflare's managed
//! challenge sets `cf-mitigated: challenge`; its interstitial page names `_cf_chl_opt` and
//! `/cdn-cgi/challenge-platform/`).

use std::time::{Duration, SystemTime};

use http::HeaderMap;

/// Who answered an error, as far as its shape tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorSource {
    /// The origin's JSON (an object or an array).
    Origin,
    /// An edge's bot challenge (interstitial page or `cf-mitigated: challenge`).
    Challenge,
    /// Any other body that is not JSON: an edge's HTML page, a plain-text line, nothing.
    EdgePage,
}

/// Markers of a challenge page (lower case).
const CHALLENGE_MARKERS: &[&str] =
    &["_cf_chl_opt", "/cdn-cgi/challenge-platform/", "<title>just a moment", "cf-chl-", "cf_chl_"];

/// The source of an error answer with these headers and (the first bytes of) this body.
pub fn error_source(headers: &HeaderMap, body: &[u8]) -> ErrorSource {
    let mitigated = headers.get("cf-mitigated").and_then(|v| v.to_str().ok());
    if mitigated.is_some_and(|v| v.trim().eq_ignore_ascii_case("challenge")) {
        return ErrorSource::Challenge;
    }
    if is_json(body) {
        return ErrorSource::Origin;
    }
    let head = &body[..body.len().min(64 * 1024)];
    let lowered = String::from_utf8_lossy(head).to_ascii_lowercase();
    if CHALLENGE_MARKERS.iter().any(|marker| lowered.contains(marker)) {
        ErrorSource::Challenge
    } else {
        ErrorSource::EdgePage
    }
}

/// Whether `body` is a JSON object or array (what an API origin answers errors with).
fn is_json(body: &[u8]) -> bool {
    let start = body.iter().position(|b| !b.is_ascii_whitespace());
    matches!(start.map(|i| body[i]), Some(b'{' | b'[')) && serde_json::from_slice::<serde_json::Value>(body).is_ok()
}

/// `Retry-After` as a wait from `now`: delay-seconds, or an HTTP date (IMF-fixdate and the two
/// obsolete forms). A date in the past is a zero wait; a malformed value is none.
pub fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let value = headers.get(http::header::RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}
