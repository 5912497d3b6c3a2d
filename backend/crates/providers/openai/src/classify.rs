//! Classification of the Codex backend's failures onto the rows of the fault table
//! (`gateway_core::fault`): HTTP error answers, WebSocket error frames and closes, send failures
//! on a socket, and HTTP transport failures. HTTP and WebSocket errors go through the same table
//! ([`by_status`]); an HTTP answer whose body is not the backend's JSON is an edge's (a challenge,
//! a block, an error page) and is classified by its shape first ([`classify`]).
//!
//! A failure caused by the request itself — a 4xx about the body, a 413, a WebSocket close 1009
//! (message too big), a message too big to send — is [`Fault::UpstreamRejected`]: the client gets
//! the error and no account is touched (`engine/failover.rs`). Only such errors pass the
//! upstream's message through, scrubbed of account identity (e-mail addresses, UUIDs) and control
//! characters; every other upstream body stays inside the gateway.

use gateway_core::domain::{QuotaState, SendState};
use gateway_core::fault::Fault;
use gateway_core::provider::AttemptFailure;
use gateway_protocol::{ApiError, ErrorCode};
use gateway_transport::ErrorSource;
use http::HeaderMap;
use serde_json::Value;
use time::OffsetDateTime;
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use gateway_transport::SendError;

use crate::rate_limits;

/// Largest error body read from the upstream.
pub const MAX_ERROR_BODY: usize = 64 * 1024;
/// Longest upstream message passed to a client.
const MAX_MESSAGE_CHARS: usize = 2000;
/// Words of a 403 that refuses the content of the request, not the account.
const SAFETY_WORDS: &[&str] = &["usage polic", "content polic", "safety", "flagged", "violat"];

/// What the upstream said, reduced to fields of interest.
#[derive(Default)]
struct ErrorBody {
    detail: Option<String>,
    kind: Option<String>,
    code: Option<String>,
    message: Option<String>,
    resets_at: Option<i64>,
    resets_in_seconds: Option<i64>,
}

impl ErrorBody {
    fn parse(value: &Value) -> Self {
        let error = value.get("error");
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
        Self {
            detail: text(value.get("detail")),
            kind: text(error.and_then(|e| e.get("type"))),
            code: text(error.and_then(|e| e.get("code"))).or_else(|| text(value.get("code"))),
            message: text(error.and_then(|e| e.get("message"))).or_else(|| text(value.get("message"))),
            resets_at: error.and_then(|e| e.get("resets_at")).and_then(Value::as_i64),
            resets_in_seconds: error.and_then(|e| e.get("resets_in_seconds")).and_then(Value::as_i64),
        }
    }

    /// The human-readable part.
    fn text(&self) -> String {
        self.detail.clone().or(self.message.clone()).unwrap_or_default()
    }
}

/// A non-success HTTP answer of the backend (or of an edge in front of it).
pub struct ErrorAnswer<'a> {
    pub status: u16,
    pub headers: &'a HeaderMap,
    /// The first [`MAX_ERROR_BODY`] bytes of the body.
    pub body: &'a [u8],
}

/// Classifies a non-success HTTP answer; its rate-limit headers become the failure's quota facts
/// (recorded as exhausted only for a usage limit).
pub fn classify(answer: &ErrorAnswer<'_>, now: OffsetDateTime) -> AttemptFailure {
    let status = answer.status;
    let retry_after =
        gateway_transport::retry_after(answer.headers, now.into()).map(|wait| now + wait).filter(|until| *until > now);
    let mut failure = match gateway_transport::error_source(answer.headers, answer.body) {
        // A 401 is about the credential whatever its body looks like.
        _ if status == 401 => by_status(status, &ErrorBody::default(), now),
        ErrorSource::Challenge => AttemptFailure::new(
            Fault::CloudflareChallenge,
            SendState::Sent,
            format!("upstream {status}: an edge challenge"),
        )
        .until(retry_after),
        ErrorSource::EdgePage => edge_page(status, retry_after),
        ErrorSource::Origin => {
            let value: Value = serde_json::from_slice(answer.body).unwrap_or(Value::Null);
            let parsed = ErrorBody::parse(&value);
            let failure = by_status(status, &parsed, now);
            with_retry_after(failure, retry_after)
        }
    };
    failure = failure.with_status(status);
    let quota_state =
        if failure.fault == Fault::UsageLimitReached { QuotaState::Exhausted } else { QuotaState::Unknown };
    failure.quota = rate_limits::from_headers(answer.headers, quota_state, now).map(Box::new);
    if failure.fault == Fault::UsageLimitReached && failure.until.is_none() {
        // The body named no reset: the full window's, from the headers.
        failure.until = failure
            .quota
            .as_deref()
            .and_then(|q| gateway_core::domain::quota_window::exhausted_reset(&q.windows))
            .and_then(|t| OffsetDateTime::from_unix_timestamp(t).ok());
    }
    failure
}

/// An error page of an edge (not the backend's JSON): a 413 refuses the request's size, a
/// 403/429 blocks the egress path, another 4xx refuses the request (its body is never shown),
/// anything else is the edge failing.
fn edge_page(status: u16, retry_after: Option<OffsetDateTime>) -> AttemptFailure {
    match status {
        413 => AttemptFailure::new(
            Fault::EdgeRequestTooLarge,
            SendState::Sent,
            "upstream 413 from an edge: the request is too large",
        ),
        403 | 429 => {
            AttemptFailure::new(Fault::EdgeBlocked, SendState::Sent, format!("upstream {status}: an edge block"))
                .until(retry_after)
        }
        400..=499 => rejected(status, &ErrorBody::default(), ErrorCode::InvalidRequest),
        _ => AttemptFailure::new(Fault::EdgeErrorPage, SendState::Sent, format!("upstream {status}: an edge page")),
    }
}

/// The backend's `Retry-After` on a rate limit or an overload: a 429 without a usage limit
/// becomes a short rate limit, a 503/529 an overload.
fn with_retry_after(failure: AttemptFailure, retry_after: Option<OffsetDateTime>) -> AttemptFailure {
    let Some(until) = retry_after else { return failure };
    match failure.fault {
        Fault::RateLimitedWithoutDeadline => AttemptFailure {
            fault: Fault::UpstreamRateLimited,
            message: "upstream 429: rate limited".into(),
            ..failure
        }
        .until(Some(until)),
        // Any 5xx that says when to come back is an overload.
        Fault::UpstreamUnavailable => AttemptFailure { fault: Fault::UpstreamOverloaded, ..failure }.until(Some(until)),
        Fault::UpstreamOverloaded | Fault::UpstreamRateLimited => failure.until(Some(until)),
        _ => failure,
    }
}

/// `{"type":"error","status":429,"error":{"type":"usage_limit_reached",…}}` and friends: the
/// same table as HTTP. A frame without a status is not fatal upstream: it counts as unavailable.
pub fn classify_error_frame(bytes: &[u8], now: OffsetDateTime) -> AttemptFailure {
    let value: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    let status = value.get("status").or_else(|| value.get("status_code")).and_then(Value::as_u64);
    let status = status.and_then(|s| u16::try_from(s).ok()).unwrap_or(0);
    let parsed = ErrorBody::parse(&value);
    let failure = if parsed.code.as_deref() == Some("previous_response_not_found") {
        AttemptFailure::new(
            Fault::PreviousResponseNotFound,
            SendState::Sent,
            "the upstream socket lost the previous response",
        )
    } else {
        by_status(status, &parsed, now)
    };
    if status == 0 { failure } else { failure.with_status(status) }
}

/// The upstream closed its socket before the first event of a response. Close code 1009 (message
/// too big) refuses the request itself; any other close leaves the outcome unclear.
pub fn classify_close(frame: Option<&CloseFrame>) -> AttemptFailure {
    match frame {
        Some(frame) if frame.code == CloseCode::Size => {
            too_large(SendState::Sent, "The request is too large for the upstream WebSocket.").with_status(413)
        }
        _ => AttemptFailure::new(
            Fault::UpstreamAmbiguous,
            SendState::Ambiguous,
            "the upstream socket closed before the first event",
        ),
    }
}

/// A message the socket refused to send because of its size is the request's fault (nothing
/// left the process). `None`: the socket itself is unusable (closed, broken); the caller retries
/// on a fresh socket or falls back to HTTP.
pub fn classify_socket_send(error: &tungstenite::Error) -> Option<AttemptFailure> {
    match error {
        tungstenite::Error::Capacity(_) | tungstenite::Error::WriteBufferFull(_) => {
            Some(too_large(SendState::NotSent, "The request is too large for the upstream WebSocket."))
        }
        _ => None,
    }
}

/// An HTTP call that produced no response.
pub fn classify_transport(error: &SendError) -> AttemptFailure {
    match error {
        SendError::NotSent(reason) | SendError::Refused(reason) => {
            tracing::debug!(%reason, "upstream connection failed");
            AttemptFailure::new(Fault::UpstreamConnectFailed, SendState::NotSent, "cannot connect upstream")
        }
        SendError::TlsFailed(reason) => {
            tracing::warn!(%reason, "TLS with the upstream failed");
            AttemptFailure::new(Fault::UpstreamTlsFailed, SendState::NotSent, "TLS with the upstream failed")
        }
        SendError::NameNotResolved(reason) => {
            tracing::warn!(%reason, "the upstream's name does not resolve");
            AttemptFailure::new(Fault::UpstreamDnsFailed, SendState::NotSent, "the upstream's name does not resolve")
        }
        SendError::ProxyFailed(reason) => {
            tracing::warn!(%reason, "the account's egress proxy failed");
            AttemptFailure::new(Fault::EgressProxyFailed, SendState::NotSent, "the egress proxy is unreachable")
        }
        SendError::LocalResources(reason) => {
            tracing::warn!(%reason, "the gateway is out of connection resources");
            AttemptFailure::new(Fault::GatewayOverloaded, SendState::NotSent, "the gateway is out of connections")
        }
        SendError::Ambiguous(reason) => {
            tracing::debug!(%reason, "upstream exchange failed");
            AttemptFailure::new(
                Fault::UpstreamAmbiguous,
                SendState::Ambiguous,
                "the upstream connection failed after the request was written",
            )
        }
    }
}

/// The one status table of HTTP answers and WebSocket error frames.
fn by_status(status: u16, parsed: &ErrorBody, now: OffsetDateTime) -> AttemptFailure {
    let text = parsed.text();
    let lowered = text.to_ascii_lowercase();
    let code = parsed.code.as_deref().or(parsed.kind.as_deref()).unwrap_or_default();
    let failure = |fault: Fault, message: String| AttemptFailure::new(fault, SendState::Sent, message);
    match status {
        401 => failure(Fault::UpstreamUnauthorized, "upstream refused the credential (401)".to_owned()),
        429 if parsed.kind.as_deref() == Some("usage_not_included") => {
            failure(Fault::PlanExcludesService, "the plan does not include Codex".to_owned())
        }
        429 => {
            let until = parsed
                .resets_at
                .or_else(|| parsed.resets_in_seconds.map(|s| now.unix_timestamp() + s))
                .and_then(|t| OffsetDateTime::from_unix_timestamp(t).ok());
            let usage_limit = parsed.kind.as_deref() == Some("usage_limit_reached") || until.is_some();
            let what = parsed.kind.clone().or(parsed.code.clone()).unwrap_or_else(|| "rate_limited".to_owned());
            let fault = if usage_limit { Fault::UsageLimitReached } else { Fault::RateLimitedWithoutDeadline };
            failure(fault, format!("upstream 429 {what}")).until(until)
        }
        403 if SAFETY_WORDS.iter().any(|w| lowered.contains(w)) => rejected(status, parsed, ErrorCode::InvalidRequest),
        403 if code.contains("unsupported_country") || lowered.contains("country, region, or territory") => {
            failure(Fault::EdgeBlocked, "upstream 403: the egress region is not supported".to_owned())
        }
        403 => {
            let deactivated = ["deactivated", "banned", "suspended"];
            if deactivated.iter().any(|w| lowered.contains(w) || code.contains(w)) {
                failure(Fault::AccountDeactivated, "upstream 403 (account_deactivated)".to_owned())
            } else {
                failure(Fault::AccountUnusable, "upstream 403 (forbidden)".to_owned())
            }
        }
        400 | 404 | 422 if model_refused(&lowered) => {
            failure(Fault::ModelNotSupported, "the account cannot use this model".to_owned())
        }
        413 => rejected(status, parsed, ErrorCode::RequestTooLarge),
        400..=499 => rejected(status, parsed, ErrorCode::InvalidRequest),
        _ if matches!(code, "server_is_overloaded" | "slow_down") => {
            failure(Fault::UpstreamOverloaded, format!("upstream {status} {code}"))
        }
        _ => failure(Fault::UpstreamUnavailable, format!("upstream {status}")),
    }
}

/// The backend's refusal of the model for this account (`The 'X' model is not supported when
/// using Codex with a ChatGPT account.`), not of a feature or parameter the request asked for.
fn model_refused(lowered: &str) -> bool {
    lowered.contains("model is not supported")
}

/// The request refused for itself: its status and the upstream's (scrubbed) message.
fn rejected(status: u16, parsed: &ErrorBody, code: ErrorCode) -> AttemptFailure {
    let text = parsed.text();
    let message = if text.is_empty() { format!("The upstream refused the request ({status}).") } else { scrub(&text) };
    let mut error = ApiError::new(code, message);
    error.status_override = Some(status);
    error.upstream_code = parsed.code.clone().filter(|c| c.len() <= 64 && c.bytes().all(|b| b.is_ascii_graphic()));
    AttemptFailure::rejected(error, SendState::Sent, format!("upstream {status}: request refused"))
}

fn too_large(send_state: SendState, message: &str) -> AttemptFailure {
    let error = ApiError::new(ErrorCode::RequestTooLarge, message);
    AttemptFailure::rejected(error, send_state, "the request is too large for the upstream")
}

/// A message fit for the client: control characters become spaces, e-mail addresses and UUIDs
/// (account identity) become `[redacted]`, at most [`MAX_MESSAGE_CHARS`] characters.
pub fn scrub(message: &str) -> String {
    let spaced: String = message.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let words: Vec<String> = spaced
        .split(' ')
        .map(|word| if is_email(word) || contains_uuid(word) { "[redacted]".to_owned() } else { word.to_owned() })
        .collect();
    words.join(" ").chars().take(MAX_MESSAGE_CHARS).collect()
}

fn is_email(word: &str) -> bool {
    let word = word.trim_matches(|c: char| !c.is_alphanumeric());
    match word.split_once('@') {
        Some((user, domain)) => !user.is_empty() && domain.contains('.') && !domain.starts_with('.'),
        None => false,
    }
}

fn contains_uuid(word: &str) -> bool {
    let bytes = word.as_bytes();
    bytes.windows(36).any(|w| {
        w.iter().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
    })
}
