//! The admin API's error envelope and the response headers every admin response carries.
//!
//! Errors: `{"error": {"code", "message", "fields": [{"field", "message"}], "retryAfterSeconds"?}}`
//! with the stable codes of `gateway_admin::AdminError::code()` plus the HTTP-level ones here
//! (`invalid_json`, `unsupported_media_type`, `csrf_failed`, `route_not_found`).

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use gateway_admin::AdminError;
use serde::Serialize;
use utoipa::ToSchema;

/// One invalid input field.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FieldProblem {
    /// JSON path of the field in camelCase, e.g. `limits.maxConcurrency`.
    pub field: String,
    pub message: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorDetail {
    /// Stable machine-readable code (see docs/admin-api.md).
    pub code: String,
    /// Human-readable message; never contains a secret.
    pub message: String,
    /// Field-level problems (validation errors only; empty otherwise).
    pub fields: Vec<FieldProblem>,
    /// Set with `rate_limited`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_seconds: Option<u64>,
}

/// The body of every admin error response.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

/// An admin API failure, rendered as the envelope.
#[derive(Debug)]
pub struct ApiFailure {
    pub status: StatusCode,
    pub body: ErrorBody,
}

impl ApiFailure {
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        Self {
            status,
            body: ErrorBody {
                error: ErrorDetail {
                    code: code.to_owned(),
                    message: message.into(),
                    fields: Vec::new(),
                    retry_after_seconds: None,
                },
            },
        }
    }

    pub fn invalid(field: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        let mut failure = Self::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_input", format!("{field}: {message}"));
        failure.body.error.fields.push(FieldProblem { field: field.to_owned(), message });
        failure
    }

    pub fn unauthenticated(message: &str) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "unauthenticated", message)
    }
}

impl From<AdminError> for ApiFailure {
    fn from(error: AdminError) -> Self {
        let status = StatusCode::from_u16(error.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if status.is_server_error() {
            tracing::warn!(code = error.code(), error = %error, "admin request failed");
        }
        let retry_after_seconds = match &error {
            AdminError::RateLimited { retry_after_seconds } => Some(*retry_after_seconds),
            _ => None,
        };
        Self {
            status,
            body: ErrorBody {
                error: ErrorDetail {
                    code: error.code().to_owned(),
                    message: error.public_message(),
                    fields: error
                        .fields()
                        .into_iter()
                        .map(|f| FieldProblem { field: f.field, message: f.message })
                        .collect(),
                    retry_after_seconds,
                },
            },
        }
    }
}

impl IntoResponse for ApiFailure {
    fn into_response(self) -> Response {
        let retry = self.body.error.retry_after_seconds;
        let mut response = (self.status, Json(self.body)).into_response();
        if let Some(seconds) = retry.and_then(|s| HeaderValue::from_str(&s.to_string()).ok()) {
            response.headers_mut().insert(header::RETRY_AFTER, seconds);
        }
        response
    }
}

pub type ApiResult<T> = Result<T, ApiFailure>;

/// `Cache-Control: no-store` (and `nosniff`) on every admin response, errors included.
pub async fn no_store(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}

/// Unknown `/api/admin/*` paths.
pub async fn route_not_found(uri: axum::http::Uri) -> ApiFailure {
    ApiFailure::new(StatusCode::NOT_FOUND, "route_not_found", format!("no admin route {}", uri.path()))
}

/// A known path with a method it does not have.
pub async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> ApiFailure {
    ApiFailure::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{method} is not allowed on {}", uri.path()),
    )
}

/// `204 No Content`.
pub fn no_content() -> Response {
    StatusCode::NO_CONTENT.into_response()
}
