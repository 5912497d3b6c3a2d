//! The OpenAI error shape and the stable error codes clients see.
//!
//! `{"error":{"message":…,"type":…,"param":…,"code":…}}`. The code table below is the one place
//! that maps a condition to its HTTP status, error type and code; messages never carry tokens,
//! account e-mails or raw upstream bodies of other tenants.

use serde::Serialize;

/// Every error condition a client can see. The `code()` strings are stable API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidApiKey,
    ApiKeyDisabled,
    ApiKeyExpired,
    InvalidRequest,
    InvalidJson,
    RequestTooLarge,
    RequestTimeout,
    ModelNotFound,
    ModelNotAllowed,
    PreviousResponseNotFound,
    RateLimitExceeded,
    ConcurrencyLimitExceeded,
    BudgetExceeded,
    NoAvailableAccount,
    CoordinationUnavailable,
    UpstreamError,
    /// The provider's circuit is open: its upstream kept failing; nothing was sent.
    UpstreamUnavailable,
    UpstreamTimeout,
    StreamInterrupted,
    NotFound,
    MethodNotAllowed,
    /// The route exists but no provider of the key's pool offers it.
    OperationNotSupported,
    ShuttingDown,
    GatewayOverloaded,
    /// The upstream refused the gateway's client version (xAI's 426 gate): no account is to
    /// blame; the gateway refreshes the version it presents.
    ClientVersionRejected,
    InternalError,
}

impl ErrorCode {
    /// (HTTP status, error type, code)
    pub const fn parts(self) -> (u16, &'static str, &'static str) {
        const INVALID: &str = "invalid_request_error";
        match self {
            Self::InvalidApiKey => (401, INVALID, "invalid_api_key"),
            Self::ApiKeyDisabled => (401, INVALID, "api_key_disabled"),
            Self::ApiKeyExpired => (401, INVALID, "api_key_expired"),
            Self::InvalidRequest => (400, INVALID, "invalid_request"),
            Self::InvalidJson => (400, INVALID, "invalid_json"),
            Self::RequestTooLarge => (413, INVALID, "request_too_large"),
            Self::RequestTimeout => (408, INVALID, "request_timeout"),
            Self::ModelNotFound => (404, INVALID, "model_not_found"),
            Self::ModelNotAllowed => (403, INVALID, "model_not_allowed"),
            Self::PreviousResponseNotFound => (400, INVALID, "previous_response_not_found"),
            Self::RateLimitExceeded => (429, "rate_limit_error", "rate_limit_exceeded"),
            Self::ConcurrencyLimitExceeded => (429, "rate_limit_error", "concurrency_limit_exceeded"),
            Self::BudgetExceeded => (429, "insufficient_quota", "budget_exceeded"),
            Self::NoAvailableAccount => (503, "server_error", "no_available_account"),
            Self::CoordinationUnavailable => (503, "server_error", "coordination_unavailable"),
            Self::UpstreamError => (502, "server_error", "upstream_error"),
            Self::UpstreamUnavailable => (503, "server_error", "upstream_unavailable"),
            Self::UpstreamTimeout => (504, "server_error", "upstream_timeout"),
            Self::StreamInterrupted => (502, "server_error", "stream_interrupted"),
            Self::NotFound => (404, INVALID, "not_found"),
            Self::MethodNotAllowed => (405, INVALID, "method_not_allowed"),
            Self::OperationNotSupported => (400, INVALID, "operation_not_supported"),
            Self::ShuttingDown => (503, "server_error", "shutting_down"),
            Self::GatewayOverloaded => (503, "server_error", "gateway_overloaded"),
            Self::ClientVersionRejected => (502, "server_error", "client_version_rejected"),
            Self::InternalError => (500, "server_error", "internal_error"),
        }
    }

    pub const fn status(self) -> u16 {
        self.parts().0
    }

    pub const fn error_type(self) -> &'static str {
        self.parts().1
    }

    pub const fn code(self) -> &'static str {
        self.parts().2
    }
}

/// An error to send to a client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    pub param: Option<String>,
    /// Seconds the client should wait before retrying (`Retry-After`).
    pub retry_after_seconds: Option<u64>,
    /// An upstream status passed through instead of the code's own (upstream 4xx answers about
    /// the request itself keep their status).
    pub status_override: Option<u16>,
    /// An upstream error type/code passed through (only for the client's own request errors).
    pub upstream_code: Option<String>,
}

#[derive(Serialize)]
struct Body<'a> {
    error: Inner<'a>,
}

#[derive(Serialize)]
struct Inner<'a> {
    message: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    param: Option<&'a str>,
    code: &'a str,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            param: None,
            retry_after_seconds: None,
            status_override: None,
            upstream_code: None,
        }
    }

    pub fn with_param(mut self, param: &str) -> Self {
        self.param = Some(param.to_owned());
        self
    }

    pub fn with_retry_after(mut self, seconds: u64) -> Self {
        self.retry_after_seconds = Some(seconds.max(1));
        self
    }

    pub fn status(&self) -> u16 {
        self.status_override.unwrap_or(self.code.status())
    }

    /// The JSON body.
    pub fn body(&self) -> Vec<u8> {
        let body = Body {
            error: Inner {
                message: &self.message,
                kind: self.code.error_type(),
                param: self.param.as_deref(),
                code: self.upstream_code.as_deref().unwrap_or(self.code.code()),
            },
        };
        serde_json::to_vec(&body).unwrap_or_else(|_| {
            br#"{"error":{"message":"internal error","type":"server_error","param":null,"code":"internal_error"}}"#
                .to_vec()
        })
    }

    /// The same error as an in-stream `error` event payload (after the downstream commit).
    pub fn stream_event(&self, sequence_number: Option<u64>) -> Vec<u8> {
        let value = serde_json::json!({
            "type": "error",
            "code": self.upstream_code.as_deref().unwrap_or(self.code.code()),
            "message": self.message,
            "param": self.param,
            "sequence_number": sequence_number,
        });
        serde_json::to_vec(&value).unwrap_or_default()
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.code.code(), self.status(), self.message)
    }
}
