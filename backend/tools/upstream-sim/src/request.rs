//! Reading an incoming request: body (zstd-decoded), bearer token, connection control, and the
//! JSON answers every endpoint shares.

use std::io::Read;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use serde_json::{Value, json};

use crate::conn::ConnControl;

/// Bodies above this size are refused with 413.
pub const MAX_BODY_BYTES: usize = 64 << 20;

/// The URI as received, before `Router::nest` stripped a prefix (set by the accept loop).
#[derive(Debug, Clone)]
pub struct OriginalUri(pub Uri);

/// Set by the accept loop on requests that came in on the TLS listener.
#[derive(Debug, Clone, Copy)]
pub struct ViaTls;

/// Whether the request came in on the TLS listener.
pub fn via_tls(request: &Request) -> bool {
    request.extensions().get::<ViaTls>().is_some()
}

/// The URI as the client sent it.
pub fn original_uri(request: &Request) -> Uri {
    request.extensions().get::<OriginalUri>().map_or_else(|| request.uri().clone(), |o| o.0.clone())
}

/// A request with its body read and decoded.
pub struct Received {
    pub method: Method,
    pub uri: Uri,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub control: Option<Arc<ConnControl>>,
    /// It came in on the TLS listener.
    pub tls: bool,
}

impl Received {
    /// Reads the body; `Content-Encoding: zstd` bodies are decompressed.
    pub async fn read(request: Request) -> Result<Self, Response> {
        let (parts, body) = request.into_parts();
        let raw = axum::body::to_bytes(body, MAX_BODY_BYTES)
            .await
            .map_err(|_| plain_error(StatusCode::PAYLOAD_TOO_LARGE, "request body too large or unreadable"))?;
        let encoding = parts.headers.get(header::CONTENT_ENCODING).and_then(|v| v.to_str().ok()).unwrap_or("");
        let body = match encoding.trim().to_ascii_lowercase().as_str() {
            "" | "identity" => raw,
            "zstd" => Bytes::from(decompress_zstd(&raw).map_err(|error| {
                plain_error(StatusCode::BAD_REQUEST, &format!("invalid zstd request body: {error}"))
            })?),
            other => {
                return Err(plain_error(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    &format!("unsupported Content-Encoding: {other}"),
                ));
            }
        };
        Ok(Self {
            control: parts.extensions.get::<Arc<ConnControl>>().cloned(),
            tls: parts.extensions.get::<ViaTls>().is_some(),
            method: parts.method,
            uri: parts.extensions.get::<OriginalUri>().map_or(parts.uri, |o| o.0.clone()),
            headers: parts.headers,
            body,
        })
    }

    /// The body as JSON.
    pub fn json(&self) -> Result<Value, String> {
        serde_json::from_slice(&self.body).map_err(|error| format!("We could not parse the JSON body: {error}"))
    }

    /// The body as JSON or as a form (`application/x-www-form-urlencoded`), as a JSON object.
    pub fn json_or_form(&self) -> Result<Value, String> {
        let is_json =
            self.headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("json"));
        if is_json {
            return self.json();
        }
        let pairs: Vec<(String, String)> =
            serde_urlencoded::from_bytes(&self.body).map_err(|error| format!("invalid form body: {error}"))?;
        Ok(Value::Object(pairs.into_iter().map(|(k, v)| (k, Value::String(v))).collect()))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The `Authorization: Bearer` token.
    pub fn bearer(&self) -> Option<&str> {
        bearer(&self.headers)
    }
}

/// The `Authorization: Bearer` token of `headers`.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim()).filter(|t| !t.is_empty())
}

/// Decompresses one or more concatenated zstd frames.
pub fn decompress_zstd(data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(data.len() * 4);
    let mut input = data;
    while !input.is_empty() {
        let mut decoder = ruzstd::decoding::StreamingDecoder::new(&mut input).map_err(|e| e.to_string())?;
        decoder.read_to_end(&mut out).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// Compresses with zstd (used by tests and the bench to mimic Codex).
pub fn compress_zstd(data: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
}

/// A JSON response.
pub fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A JSON response with extra headers.
pub fn json_response_with(status: StatusCode, body: &Value, headers: HeaderMap) -> Response {
    let mut response = json_response(status, body);
    response.headers_mut().extend(headers);
    response
}

/// `{"detail": message}` (the ChatGPT backend's error shape, also used for generic errors).
pub fn plain_error(status: StatusCode, message: &str) -> Response {
    json_response(status, &json!({"detail": message}))
}

/// Sets a header from text, ignoring values that are not valid header text.
pub fn set_header(headers: &mut HeaderMap, name: &'static str, value: impl AsRef<str>) {
    if let Ok(value) = HeaderValue::from_str(value.as_ref()) {
        headers.insert(name, value);
    }
}

/// `302 Found` to `location`.
pub fn redirect(location: &str) -> Response {
    match HeaderValue::from_str(location) {
        Ok(value) => (StatusCode::FOUND, [(header::LOCATION, value)]).into_response(),
        Err(_) => plain_error(StatusCode::BAD_REQUEST, "redirect target is not a valid header value"),
    }
}
