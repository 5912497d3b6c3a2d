//! xAI's failures as the engine's failure classes (PROTOCOL H.5), one table ([`classify`]).
//!
//! - 426 (the client-version gate) → `ClientVersionRejected`: no account is blamed and the
//!   version check is asked to run;
//! - 403 `unauthenticated:bad-credentials` (xAI's answer to an invalidated token) and 401 →
//!   `Unauthorized`: the engine refreshes once and retries, nothing is cooled down;
//! - 402 spending limit and 429 free-usage-exhausted → quota: the account is skipped until the
//!   reset and its quota state recorded as exhausted;
//! - a 403 about content (safety) and other 4xx about the body → `Rejected`: the client gets
//!   the error, no account is touched.
//!
//! Only a JSON message may reach the client, scrubbed: UUIDs (xAI embeds team ids) and e-mail
//! addresses become `[redacted]`, control characters spaces.

use gateway_core::domain::{QuotaFacts, QuotaState, QuotaWindow, SendState};
use gateway_core::fault::Fault;
use gateway_core::provider::AttemptFailure;
use gateway_protocol::{ApiError, ErrorCode};
use gateway_transport::ErrorSource;
use serde_json::Value;
use time::OffsetDateTime;

/// Largest error body read.
pub const MAX_ERROR_BODY: usize = 64 * 1024;
const MAX_MESSAGE_CHARS: usize = 2000;
/// The free-usage window is a rolling day.
const FREE_WINDOW_SECONDS: i64 = 86_400;
/// A bare 402 (no quota code): skip the account this long, not recorded as exhausted.
const PAYMENT_REQUIRED_SECONDS: i64 = 30 * 60;

const SAFETY_WORDS: &[&str] = &["safety", "usage polic", "content polic", "flagged", "violat"];
const CREDENTIAL_WORDS: &[&str] =
    &["bad-credentials", "bad_credentials", "authentication", "unauthorized", "invalid token", "token expired"];
const ACCOUNT_WORDS: &[&str] = &["disabled", "suspended", "blocked", "banned", "deactivated", "subscription"];
const ACCOUNT_QUOTA: &[&str] = &["personal_team_blocked_spending_limit", "quota_exceeded", "insufficient_quota"];
const FREE_QUOTA: &[&str] =
    &["subscription_free_usage_exhausted", "free_usage_exhausted", "usage_limit_exceeded", "free_tier_limit"];
const QUOTA_PHRASES: &[&str] = &["used all the included free usage", "usage resets over a rolling", "spending limit"];

/// What the upstream said.
#[derive(Debug, Default)]
pub struct ErrorBody {
    /// Normalised: lower case, `-`, `:`, `.` → `_`, at most 48 characters.
    pub code: Option<String>,
    pub message: Option<String>,
}

impl ErrorBody {
    /// `{"code","error":"…"}` (xAI's usual), `{"error":{"code","type","message"}}`, or text.
    pub fn parse(body: &[u8]) -> Self {
        let Ok(value) = serde_json::from_slice::<Value>(body) else { return Self::default() };
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
        let nested = value.get("error").filter(|e| e.is_object());
        let code = text(nested.and_then(|e| e.get("code")))
            .or_else(|| text(nested.and_then(|e| e.get("type"))))
            .or_else(|| text(value.get("code")));
        let message = text(nested.and_then(|e| e.get("message")))
            .or_else(|| text(value.get("error")))
            .or_else(|| text(value.get("message")));
        Self { code: code.map(|c| normalize_code(&c)), message }
    }

    fn has_code(&self, codes: &[&str]) -> bool {
        self.code.as_deref().is_some_and(|c| codes.contains(&c))
    }

    fn lowered(&self) -> String {
        format!("{} {}", self.code.as_deref().unwrap_or_default(), self.message.as_deref().unwrap_or_default())
            .to_ascii_lowercase()
    }
}

pub fn normalize_code(code: &str) -> String {
    code.trim()
        .to_ascii_lowercase()
        .chars()
        .map(|c| if matches!(c, '-' | ':' | '.' | ' ') { '_' } else { c })
        .take(48)
        .collect()
}

/// Classifies a non-success answer. `retry_after` is the `Retry-After` header in seconds;
/// `source` tells the origin's JSON from an edge's page (`gateway_transport::error_source`).
pub fn classify(
    status: u16,
    body: &[u8],
    retry_after: Option<i64>,
    source: ErrorSource,
    now: OffsetDateTime,
) -> AttemptFailure {
    if !matches!(status, 401 | 408 | 426) {
        match source {
            ErrorSource::Origin => {}
            ErrorSource::Challenge => {
                return AttemptFailure::new(Fault::CloudflareChallenge, SendState::Sent, "upstream: an edge challenge")
                    .until(retry_after.and_then(|s| at(now, s)))
                    .with_status(status);
            }
            ErrorSource::EdgePage => return edge_page(status, retry_after, now).with_status(status),
        }
    }
    let parsed = ErrorBody::parse(body);
    let lowered = parsed.lowered();
    let sent = |fault: Fault, message: String| AttemptFailure::new(fault, SendState::Sent, message);
    let retry = retry_after.filter(|s| (1..=86_400).contains(s));
    let failure = match status {
        426 => sent(Fault::ClientVersionRejected, "upstream 426: client version rejected".to_owned()),
        401 => sent(Fault::UpstreamUnauthorized, "upstream refused the credential (401)".to_owned()),
        403 if SAFETY_WORDS.iter().any(|w| lowered.contains(w)) => rejected(status, &parsed, ErrorCode::InvalidRequest),
        403 if CREDENTIAL_WORDS.iter().any(|w| lowered.contains(w)) => {
            sent(Fault::UpstreamUnauthorized, "upstream 403: bad credentials".to_owned())
        }
        403 if lowered.contains("access to the chat endpoint is denied") => {
            sent(Fault::ModelNotSupported, "upstream 403: model access denied".to_owned())
        }
        403 if ACCOUNT_WORDS.iter().any(|w| lowered.contains(w)) => {
            sent(Fault::AccountDeactivated, "upstream 403 (account_disabled)".to_owned())
        }
        403 => sent(Fault::AccountUnusable, "upstream 403 (forbidden)".to_owned()),
        402 | 429 | 400 if is_quota(&parsed, &lowered) => return quota(status, &parsed, &lowered, retry, now),
        402 => {
            let until = at(now, retry.unwrap_or(PAYMENT_REQUIRED_SECONDS));
            sent(Fault::UpstreamRateLimited, "upstream 402: payment required".to_owned()).until(until)
        }
        429 if retry.is_some() => sent(Fault::UpstreamRateLimited, "upstream 429: rate limited".to_owned())
            .until(retry.and_then(|s| at(now, s))),
        429 => sent(Fault::RateLimitedWithoutDeadline, "upstream 429: rate limited".to_owned()),
        404 | 400 if lowered.contains("does not exist") && lowered.contains("model") => {
            sent(Fault::ModelNotSupported, "the account cannot use this model".to_owned())
        }
        408 => AttemptFailure::new(Fault::UpstreamAmbiguous, SendState::Ambiguous, "upstream 408"),
        413 => rejected(status, &parsed, ErrorCode::RequestTooLarge),
        400..=499 => rejected(status, &parsed, ErrorCode::InvalidRequest),
        500..=599 if retry.is_some() => {
            sent(Fault::UpstreamOverloaded, format!("upstream {status}")).until(retry.and_then(|s| at(now, s)))
        }
        _ => sent(Fault::UpstreamUnavailable, format!("upstream {status}")),
    };
    failure.with_status(status)
}

/// xAI could not decrypt a reasoning ciphertext of the input (PROTOCOL H.5): 400
/// `invalid_encrypted_content`, or a message about `encrypted_content` that could not be
/// decrypted, verified or was modified, or an undecodable compaction blob.
pub fn is_reasoning_decode_failure(status: u16, body: &[u8]) -> bool {
    if status != 400 {
        return false;
    }
    let parsed = ErrorBody::parse(body);
    let lowered = parsed.lowered();
    parsed.has_code(&["invalid_encrypted_content"])
        || (lowered.contains("encrypted_content")
            && ["decrypt", "verif", "modified"].iter().any(|w| lowered.contains(w)))
        || lowered.contains("could not decode the compaction blob")
}

fn is_quota(parsed: &ErrorBody, lowered: &str) -> bool {
    parsed.has_code(ACCOUNT_QUOTA) || parsed.has_code(FREE_QUOTA) || QUOTA_PHRASES.iter().any(|p| lowered.contains(p))
}

/// An exhausted quota: skip until the reset, and record the account's quota as exhausted.
fn quota(status: u16, parsed: &ErrorBody, lowered: &str, retry: Option<i64>, now: OffsetDateTime) -> AttemptFailure {
    let free = parsed.has_code(FREE_QUOTA) || lowered.contains("free usage");
    let (name, default) = if free { ("free_usage", FREE_WINDOW_SECONDS) } else { ("spending_limit", 3600) };
    let reset_after = retry.unwrap_or(default);
    let window = QuotaWindow {
        name: name.to_owned(),
        used_percent: 100.0,
        window_minutes: free.then_some(FREE_WINDOW_SECONDS / 60),
        reset_at: Some(now.unix_timestamp() + reset_after),
        plan_type: None,
    };
    let facts = QuotaFacts { state: QuotaState::Exhausted, windows: vec![window], observed_at: Some(now) };
    let mut failure =
        AttemptFailure::new(Fault::UsageLimitReached, SendState::Sent, format!("upstream {status}: {name} exhausted"))
            .until(at(now, reset_after))
            .with_status(status);
    failure.quota = Some(Box::new(facts));
    failure
}

/// An edge's page (not xAI's JSON): a 413 refuses the size, a 403/429 blocks the egress path,
/// another 4xx refuses the request (its body is never shown), anything else is the edge failing.
fn edge_page(status: u16, retry_after: Option<i64>, now: OffsetDateTime) -> AttemptFailure {
    match status {
        413 => AttemptFailure::new(Fault::EdgeRequestTooLarge, SendState::Sent, "upstream 413 from an edge"),
        403 | 429 => {
            AttemptFailure::new(Fault::EdgeBlocked, SendState::Sent, format!("upstream {status}: an edge block"))
                .until(retry_after.and_then(|s| at(now, s)))
        }
        400..=499 => rejected(status, &ErrorBody::default(), ErrorCode::InvalidRequest),
        _ => AttemptFailure::new(Fault::EdgeErrorPage, SendState::Sent, format!("upstream {status}: an edge page")),
    }
}

fn at(now: OffsetDateTime, seconds: i64) -> Option<OffsetDateTime> {
    Some(now + time::Duration::seconds(seconds))
}

/// The request refused for itself: its status and the upstream's scrubbed message.
fn rejected(status: u16, parsed: &ErrorBody, code: ErrorCode) -> AttemptFailure {
    let message = match parsed.message.as_deref().filter(|m| !m.trim().is_empty()) {
        Some(message) => scrub(message),
        None => format!("The upstream refused the request ({status})."),
    };
    let mut error = ApiError::new(code, message);
    error.status_override = Some(status);
    error.upstream_code = parsed.code.clone();
    AttemptFailure::rejected(error, SendState::Sent, format!("upstream {status}: refused"))
}

/// A message fit for a client: control characters → spaces, UUIDs and e-mail addresses →
/// `[redacted]`, at most 2,000 characters.
pub fn scrub(message: &str) -> String {
    let spaced: String = message.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let mut out = String::with_capacity(spaced.len());
    let mut rest = spaced.as_str();
    while let Some(start) = find_uuid(rest) {
        out.push_str(&rest[..start]);
        out.push_str("[redacted]");
        rest = &rest[start + 36..];
    }
    out.push_str(rest);
    let words: Vec<&str> = out.split(' ').collect();
    let words: Vec<String> =
        words.into_iter().map(|w| if is_email(w) { "[redacted]".to_owned() } else { w.to_owned() }).collect();
    words.join(" ").chars().take(MAX_MESSAGE_CHARS).collect()
}

fn find_uuid(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    (0..bytes.len().saturating_sub(35)).find(|&i| {
        bytes[i..i + 36].iter().enumerate().all(|(j, b)| match j {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
    })
}

fn is_email(word: &str) -> bool {
    let word = word.trim_matches(|c: char| !c.is_alphanumeric());
    match word.split_once('@') {
        Some((user, domain)) => !user.is_empty() && domain.contains('.') && !domain.starts_with('.'),
        None => false,
    }
}

/// An HTTP call that produced no response.
pub fn classify_transport(error: &gateway_transport::SendError) -> AttemptFailure {
    use gateway_transport::SendError;
    match error {
        SendError::NotSent(_) | SendError::Refused(_) => {
            AttemptFailure::new(Fault::UpstreamConnectFailed, SendState::NotSent, "cannot connect upstream")
        }
        SendError::TlsFailed(_) => {
            AttemptFailure::new(Fault::UpstreamTlsFailed, SendState::NotSent, "TLS with the upstream failed")
        }
        SendError::NameNotResolved(_) => {
            AttemptFailure::new(Fault::UpstreamDnsFailed, SendState::NotSent, "the upstream's name does not resolve")
        }
        SendError::ProxyFailed(_) => {
            AttemptFailure::new(Fault::EgressProxyFailed, SendState::NotSent, "the egress proxy is unreachable")
        }
        SendError::LocalResources(_) => {
            AttemptFailure::new(Fault::GatewayOverloaded, SendState::NotSent, "the gateway is out of connections")
        }
        SendError::Ambiguous(_) => AttemptFailure::new(
            Fault::UpstreamAmbiguous,
            SendState::Ambiguous,
            "the upstream connection failed after the request was written",
        ),
    }
}
