//! Classification of the Codex backend's failures into the engine's failure classes: HTTP error
//! answers, WebSocket error frames and closes, send failures on a socket, and HTTP transport
//! failures. HTTP and WebSocket errors go through the same table ([`by_status`]).
//!
//! A failure caused by the request itself — a 4xx about the body, a 413, a WebSocket close 1009
//! (message too big), a message too big to send — is [`FailureClass::Rejected`]: the client gets
//! the error and no account is touched (`engine/failover.rs`). Only such errors pass the
//! upstream's message through, scrubbed of account identity (e-mail addresses, UUIDs) and control
//! characters; every other upstream body stays inside the gateway.

use gateway_core::domain::{QuotaFacts, SendState};
use gateway_core::provider::{AttemptFailure, FailureClass};
use gateway_protocol::{ApiError, ErrorCode};
use serde_json::Value;
use time::OffsetDateTime;
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use gateway_transport::SendError;

/// Largest error body read from the upstream.
pub const MAX_ERROR_BODY: usize = 64 * 1024;
/// Longest upstream message passed to a client.
const MAX_MESSAGE_CHARS: usize = 2000;
/// Words of a 403 that refuses the content of the request, not the account.
const SAFETY_WORDS: &[&str] = &["usage polic", "content polic", "safety", "flagged", "violat"];

/// What the upstream said, reduced to fields of interest.
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

/// Classifies a non-success HTTP answer. `quota` carries the rate-limit headers of the answer.
pub fn classify(status: u16, body: &[u8], quota: Option<QuotaFacts>, now: OffsetDateTime) -> AttemptFailure {
    let value: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let mut result = by_status(status, &ErrorBody::parse(&value), now).with_status(status);
    result.quota = quota.map(Box::new);
    result
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
            FailureClass::ContinuationLost,
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
            FailureClass::Ambiguous,
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
        SendError::NotSent(reason) => {
            tracing::debug!(%reason, "upstream connection failed");
            AttemptFailure::new(FailureClass::ConnectFailed, SendState::NotSent, "cannot connect upstream")
        }
        SendError::ProxyFailed(reason) => {
            tracing::warn!(%reason, "the account's egress proxy failed");
            AttemptFailure::new(FailureClass::ProxyFailed, SendState::NotSent, "the egress proxy is unreachable")
        }
        SendError::LocalResources(reason) => {
            tracing::warn!(%reason, "the gateway is out of connection resources");
            AttemptFailure::new(
                FailureClass::GatewayOverloaded,
                SendState::NotSent,
                "the gateway is out of connections",
            )
        }
        SendError::Ambiguous(reason) => {
            tracing::debug!(%reason, "upstream exchange failed");
            AttemptFailure::new(
                FailureClass::Ambiguous,
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
    let failure = |class: FailureClass, message: String| AttemptFailure::new(class, SendState::Sent, message);
    match status {
        401 => failure(FailureClass::Unauthorized, "upstream refused the credential (401)".to_owned()),
        429 if parsed.kind.as_deref() == Some("usage_not_included") => failure(
            FailureClass::AccountUnusable { reason: "usage_not_included".to_owned() },
            "the plan does not include Codex".to_owned(),
        ),
        429 => {
            let until = parsed
                .resets_at
                .or_else(|| parsed.resets_in_seconds.map(|s| now.unix_timestamp() + s))
                .and_then(|t| OffsetDateTime::from_unix_timestamp(t).ok());
            let what = parsed.kind.clone().or(parsed.code.clone()).unwrap_or_else(|| "rate_limited".to_owned());
            failure(FailureClass::RateLimited { until }, format!("upstream 429 {what}"))
        }
        403 if SAFETY_WORDS.iter().any(|w| lowered.contains(w)) => rejected(status, parsed, ErrorCode::InvalidRequest),
        403 => {
            let unusable = ["deactivated", "banned", "suspended"];
            let reason = if unusable.iter().any(|w| lowered.contains(w)) { "account_deactivated" } else { "forbidden" };
            failure(FailureClass::AccountUnusable { reason: reason.to_owned() }, format!("upstream 403 ({reason})"))
        }
        400 | 404 | 422 if model_refused(&lowered) => {
            failure(FailureClass::ModelNotSupported, "the account cannot use this model".to_owned())
        }
        413 => rejected(status, parsed, ErrorCode::RequestTooLarge),
        400..=499 => rejected(status, parsed, ErrorCode::InvalidRequest),
        _ => failure(FailureClass::UpstreamUnavailable, format!("upstream {status}")),
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
    AttemptFailure::new(
        FailureClass::Rejected(Box::new(error)),
        SendState::Sent,
        format!("upstream {status}: request refused"),
    )
}

fn too_large(send_state: SendState, message: &str) -> AttemptFailure {
    let error = ApiError::new(ErrorCode::RequestTooLarge, message);
    AttemptFailure::new(
        FailureClass::Rejected(Box::new(error)),
        send_state,
        "the request is too large for the upstream",
    )
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
