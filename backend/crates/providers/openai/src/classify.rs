//! Classification of the Codex backend's error answers into the engine's failure classes.
//!
//! Only the client's own request errors (400 about the body) pass their message through; every
//! other upstream body stays inside the gateway.

use gateway_core::domain::{QuotaFacts, SendState};
use gateway_core::provider::{AttemptFailure, FailureClass};
use gateway_protocol::{ApiError, ErrorCode};
use serde_json::Value;
use time::OffsetDateTime;

/// Largest error body read from the upstream.
pub const MAX_ERROR_BODY: usize = 64 * 1024;

/// What the upstream said, reduced to fields of interest.
struct ErrorBody {
    detail: Option<String>,
    kind: Option<String>,
    code: Option<String>,
    message: Option<String>,
    resets_at: Option<i64>,
    resets_in_seconds: Option<i64>,
}

fn parse(body: &[u8]) -> ErrorBody {
    let value: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let error = value.get("error");
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    ErrorBody {
        detail: text(value.get("detail")),
        kind: text(error.and_then(|e| e.get("type"))),
        code: text(error.and_then(|e| e.get("code"))).or_else(|| text(value.get("code"))),
        message: text(error.and_then(|e| e.get("message"))).or_else(|| text(value.get("message"))),
        resets_at: error.and_then(|e| e.get("resets_at")).and_then(Value::as_i64),
        resets_in_seconds: error.and_then(|e| e.get("resets_in_seconds")).and_then(Value::as_i64),
    }
}

/// Classifies a non-success answer. `quota` carries the rate-limit headers of the answer.
pub fn classify(status: u16, body: &[u8], quota: Option<QuotaFacts>, now: OffsetDateTime) -> AttemptFailure {
    let parsed = parse(body);
    let text = parsed.detail.clone().or(parsed.message.clone()).unwrap_or_default();
    let lowered = text.to_ascii_lowercase();
    let sent = SendState::Sent;
    let failure = |class: FailureClass, message: String| AttemptFailure::new(class, sent, message).with_status(status);
    let mut result = match status {
        401 => failure(FailureClass::Unauthorized, "upstream refused the credential (401)".to_owned()),
        429 => {
            let until = parsed
                .resets_at
                .or_else(|| parsed.resets_in_seconds.map(|s| now.unix_timestamp() + s))
                .and_then(|t| OffsetDateTime::from_unix_timestamp(t).ok());
            if parsed.kind.as_deref() == Some("usage_not_included") {
                failure(
                    FailureClass::AccountUnusable { reason: "usage_not_included".to_owned() },
                    "the plan does not include Codex".to_owned(),
                )
            } else {
                let what = parsed.kind.clone().or(parsed.code.clone()).unwrap_or_else(|| "rate_limited".to_owned());
                failure(FailureClass::RateLimited { until }, format!("upstream 429 {what}"))
            }
        }
        403 => {
            let reason =
                if lowered.contains("deactivated") || lowered.contains("banned") || lowered.contains("suspended") {
                    "account_deactivated"
                } else {
                    "forbidden"
                };
            failure(FailureClass::AccountUnusable { reason: reason.to_owned() }, format!("upstream 403 ({reason})"))
        }
        400 | 404 | 422
            if lowered.contains("model is not supported") || lowered.contains("not supported when using codex") =>
        {
            failure(FailureClass::ModelNotSupported, "the account cannot use this model".to_owned())
        }
        400..=499 => {
            let message =
                if text.is_empty() { format!("upstream refused the request ({status})") } else { text.clone() };
            let mut error = ApiError::new(ErrorCode::InvalidRequest, sanitise(&message));
            error.status_override = Some(status);
            if let Some(code) = parsed.code.clone().filter(|c| c.len() <= 64) {
                error.upstream_code = Some(code);
            }
            failure(FailureClass::Rejected(Box::new(error)), format!("upstream {status}: request refused"))
        }
        _ => failure(FailureClass::UpstreamUnavailable, format!("upstream {status}")),
    };
    result.quota = quota.map(Box::new);
    result
}

/// Removes control characters and bounds the length of a message that reaches a client.
fn sanitise(message: &str) -> String {
    message.chars().map(|c| if c.is_control() { ' ' } else { c }).take(2000).collect()
}
