//! Request extractors that answer with the admin envelope: JSON bodies with field-level errors,
//! query strings, and numeric path ids.

use axum::extract::rejection::{BytesRejection, FailedToBufferBody};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::admin::envelope::ApiFailure;

/// Largest admin request body (credential imports are the big ones); enforced for every admin
/// route by the router's `DefaultBodyLimit`.
pub const BODY_LIMIT: usize = 16 * 1024 * 1024;

/// A JSON body; decode errors name the failing field.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiFailure;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let is_json =
            request.headers().get(axum::http::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| {
                v.split(';').next().is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
            });
        if !is_json {
            return Err(ApiFailure::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "send the body as application/json",
            ));
        }
        let bytes = axum::body::Bytes::from_request(request, state).await.map_err(read_failure)?;
        let mut deserializer = serde_json::Deserializer::from_slice(&bytes);
        match serde_path_to_error::deserialize::<_, T>(&mut deserializer) {
            Ok(value) => Ok(Self(value)),
            Err(error) => {
                let path = error.path().to_string();
                let inner = error.into_inner();
                if inner.is_syntax() || inner.is_eof() {
                    return Err(ApiFailure::new(StatusCode::BAD_REQUEST, "invalid_json", "the body is not valid JSON"));
                }
                let field = if path == "." { "body".to_owned() } else { path };
                Err(ApiFailure::invalid(&field, clean_serde_message(&inner.to_string())))
            }
        }
    }
}

/// Why a body could not be read: over [`BODY_LIMIT`] (413 `body_too_large`), silent past the
/// server's body-read deadline (408 `request_timeout`), or anything else — broken chunked
/// framing, a connection that ended early — (400 `invalid_body`).
fn read_failure(rejection: BytesRejection) -> ApiFailure {
    if let BytesRejection::FailedToBufferBody(FailedToBufferBody::LengthLimitError(_)) = rejection {
        return ApiFailure::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!("the body exceeds {BODY_LIMIT} bytes"),
        );
    }
    let mut cause = std::error::Error::source(&rejection);
    while let Some(error) = cause {
        if error.is::<tower_http::timeout::TimeoutError>() {
            return ApiFailure::new(StatusCode::REQUEST_TIMEOUT, "request_timeout", "the body stopped arriving");
        }
        cause = error.source();
    }
    ApiFailure::new(
        StatusCode::BAD_REQUEST,
        "invalid_body",
        "the body could not be read: its framing is malformed or the connection ended early",
    )
}

/// serde messages end with " at line 1 column 9"; drop that.
fn clean_serde_message(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

/// A query string decoded into `T`; failures are `invalid_input`.
pub struct QueryParams<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for QueryParams<T> {
    type Rejection = ApiFailure;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let query = parts.uri.query().unwrap_or_default();
        let deserializer = serde_urlencoded::Deserializer::new(form_urlencoded_parse(query));
        serde_path_to_error::deserialize(deserializer).map(Self).map_err(|error| {
            let path = error.path().to_string();
            let field = if path == "." { "query".to_owned() } else { path };
            ApiFailure::invalid(&field, error.into_inner().to_string())
        })
    }
}

fn form_urlencoded_parse(query: &str) -> form_urlencoded::Parse<'_> {
    form_urlencoded::parse(query.as_bytes())
}

/// The numeric `{id}` of a path.
pub struct IdPath(pub i64);

impl<S: Send + Sync> FromRequestParts<S> for IdPath {
    type Rejection = ApiFailure;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let axum::extract::Path(raw) = axum::extract::Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiFailure::invalid("id", "missing"))?;
        raw.parse::<i64>().map(Self).map_err(|_| ApiFailure::invalid("id", "must be an integer id"))
    }
}

/// The socket peer of the request (set by the host for every connection), if known.
pub struct Peer(pub Option<std::net::SocketAddr>);

impl<S: Send + Sync> FromRequestParts<S> for Peer {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self(parts.extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0)))
    }
}
