//! Pulling the client's key, headers and body out of a request.

use axum::body::Body;
use axum::http::{HeaderMap, Version};
use axum::response::Response;
use bytes::Bytes;
use gateway_core::domain::Transport;
use gateway_core::provider::Operation;
use gateway_protocol::{ApiError, ErrorCode};

use super::{ClientApi, body_failure, reply};

/// `Authorization: Bearer <key>`, else `x-api-key: <key>`.
pub fn api_key(headers: &HeaderMap) -> Option<String> {
    if let Some(value) = headers.get("authorization").and_then(|v| v.to_str().ok()) {
        let value = value.trim();
        if let Some(token) = value.strip_prefix("Bearer ").or_else(|| value.strip_prefix("bearer ")) {
            return Some(token.trim().to_owned());
        }
    }
    headers.get("x-api-key").and_then(|v| v.to_str().ok()).map(|v| v.trim().to_owned())
}

/// Every header except credentials, names in lower case (axum already lower-cases them).
pub fn forwardable_headers(headers: &HeaderMap) -> Vec<(String, Bytes)> {
    headers
        .iter()
        .filter(|(name, _)| {
            !matches!(name.as_str(), "authorization" | "x-api-key" | "cookie" | "host" | "content-length")
        })
        .map(|(name, value)| (name.as_str().to_owned(), Bytes::copy_from_slice(value.as_bytes())))
        .collect()
}

/// Reads the body up to `limit` bytes; larger bodies are refused with 413 before reading them
/// whole when the client declared their length.
pub async fn body(headers: &HeaderMap, body: Body, limit: usize) -> Result<Bytes, ApiError> {
    if let Some(length) =
        headers.get("content-length").and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<usize>().ok())
        && length > limit
    {
        return Err(body_failure::too_large(limit));
    }
    if let Some(encoding) = headers.get("content-encoding").and_then(|v| v.to_str().ok())
        && !encoding.eq_ignore_ascii_case("identity")
    {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("Content-Encoding `{encoding}` is not supported; send the body uncompressed."),
        ));
    }
    super::body::read(body, super::body::declared_length(headers), limit).await.map_err(|error| match error {
        super::body::ReadError::TooLarge => body_failure::too_large(limit),
        super::body::ReadError::Broken(error) => body_failure::classify(&error, limit),
    })
}

/// The client key, checked from the headers alone before the body is read (decision 0103), and
/// the body. Either failure is counted as a refused request of `operation` and answered on a
/// connection that is then closed (the body may be unread or half read).
pub async fn authenticated_body(
    api: &ClientApi,
    operation: Operation,
    version: Version,
    headers: &HeaderMap,
    request_body: Body,
) -> Result<(Option<String>, Bytes), Response> {
    let api_key = api_key(headers);
    if let Err(error) = api.engine.authenticate(api_key.as_deref()) {
        return Err(reply::closing(refused(api, operation, &error), version));
    }
    match body(headers, request_body, api.body_limit).await {
        Ok(body) => Ok((api_key, body)),
        Err(error) => Err(reply::closing(refused(api, operation, &error), version)),
    }
}

/// A request of `operation` refused before the engine saw it (key, body, a body the route
/// cannot convert): counted like the engine's own refusals, then the client's error.
pub fn refused(api: &ClientApi, operation: Operation, error: &ApiError) -> Response {
    api.engine.telemetry.request_refused(operation.name(), Transport::Http, error.status());
    reply::error(error)
}
