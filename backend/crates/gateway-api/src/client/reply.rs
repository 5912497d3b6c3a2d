//! Turning engine replies and errors into HTTP responses.

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, StatusCode, Version, header};
use axum::response::Response;
use gateway_core::domain::RequestId;
use gateway_core::engine::Reply;
use gateway_protocol::{ApiError, ErrorCode};

pub fn from_reply(reply: Reply) -> Response {
    match reply {
        Reply::Stream { request_id, headers, body } => build(200, &headers, Some(request_id), Body::from_stream(*body)),
        Reply::Json { request_id, status, mut headers, body } => {
            if !headers.iter().any(|(n, _)| n == "content-type") {
                headers.push(("content-type".to_owned(), "application/json".to_owned()));
            }
            build(status, &headers, request_id, Body::from(body))
        }
    }
}

pub fn error(error: &ApiError) -> Response {
    from_reply(Reply::error(error, None))
}

pub(crate) fn build(status: u16, headers: &[(String, String)], request_id: Option<RequestId>, body: Body) -> Response {
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let map = response.headers_mut();
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value)) {
            map.append(name, value);
        }
    }
    if let Some(id) = request_id.and_then(|id| HeaderValue::from_str(&id.to_string()).ok()) {
        map.insert(HeaderName::from_static("x-request-id"), id);
    }
    response
}

/// Adds `Connection: close` (HTTP/1.x) to an answer given before the request body was read
/// whole: hyper then closes the connection instead of reading the rest of the body.
pub fn closing(mut response: Response, version: Version) -> Response {
    if version <= Version::HTTP_11 {
        response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// Any path no route claims, inside `/v1` or outside every API: 404, before any authentication.
pub async fn not_found(method: axum::http::Method, uri: axum::http::Uri) -> Response {
    error(&ApiError::new(ErrorCode::NotFound, format!("Unknown request URL: {method} {}.", uri.path())))
}

/// A client API path with a method it does not have.
pub async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> Response {
    error(&ApiError::new(ErrorCode::MethodNotAllowed, format!("Method {method} is not allowed on {}.", uri.path())))
}

/// Every request on a connection beyond the server's connection cap.
pub async fn overloaded() -> Response {
    error(
        &ApiError::new(ErrorCode::GatewayOverloaded, "The gateway is at its connection limit; try again shortly.")
            .with_retry_after(1),
    )
}
