//! One outgoing request and its answer.

use bytes::{Bytes, BytesMut};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};
use http_body_util::BodyExt;
use hyper::body::Incoming;

use super::Body;
use super::decode::Decoding;
use super::pool::Lease;

/// A request: method, absolute URL, headers (in insertion order), body. `Debug` shows header
/// names only: values carry bearer tokens.
pub struct HttpRequest {
    pub method: Method,
    pub uri: Uri,
    pub headers: HeaderMap,
    pub body: Body,
}

impl std::fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.keys().map(HeaderName::as_str).collect();
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("uri", &self.uri.path())
            .field("headers", &names)
            .field("body_bytes", &self.body.len())
            .finish()
    }
}

impl HttpRequest {
    /// A request to an absolute `http(s)://` URL; an unparsable URL is an error here, before
    /// anything is sent.
    pub fn new(method: Method, url: &str) -> Result<Self, crate::SendError> {
        let uri: Uri = url.parse().map_err(|_| crate::SendError::NotSent(format!("`{url}` is not a URL")))?;
        Ok(Self { method, uri, headers: HeaderMap::new(), body: Body::empty() })
    }

    pub fn get(url: &str) -> Result<Self, crate::SendError> {
        Self::new(Method::GET, url)
    }

    pub fn post(url: &str) -> Result<Self, crate::SendError> {
        Self::new(Method::POST, url)
    }

    /// Adds a header (kept beside earlier values of the same name).
    pub fn header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.append(name, value);
        self
    }

    /// Sets the headers wholesale.
    pub fn headers(mut self, headers: HeaderMap) -> Self {
        self.headers = headers;
        self
    }

    pub fn body(mut self, body: impl Into<Body>) -> Self {
        self.body = body.into();
        self
    }

    /// A JSON body with `content-type: application/json`.
    pub fn json<T: serde::Serialize + ?Sized>(self, value: &T) -> Self {
        let bytes = serde_json::to_vec(value).unwrap_or_default();
        self.header(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json")).body(bytes)
    }

    /// A form body (`application/x-www-form-urlencoded`).
    pub fn form(self, encoded: String) -> Self {
        let content_type = HeaderValue::from_static("application/x-www-form-urlencoded");
        self.header(http::header::CONTENT_TYPE, content_type).body(encoded)
    }
}

/// A response at its headers; the body is read by the caller's task. An HTTP/1.1 connection
/// returns to the pool when the body has been read to its end.
///
/// A body with `Content-Encoding: gzip` or `zstd` is decoded as it arrives (`decode.rs`): the
/// chunks are the decoded bytes, and `content-encoding` / `content-length` are taken out of
/// the headers (they describe the bytes on the wire). Another encoding fails the body.
pub struct HttpResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub version: http::Version,
    body: Incoming,
    /// The connection (HTTP/1.1) or stream slot (HTTP/2) this body holds until its end.
    lease: Option<Lease>,
    decoding: Option<Decoding>,
    /// The encoded body ended and the decoder was finished.
    decoded_to_end: bool,
}

impl HttpResponse {
    pub(crate) fn new(response: http::Response<Incoming>, lease: Option<Lease>) -> Self {
        let (mut parts, body) = response.into_parts();
        let decoding = parts
            .headers
            .get(http::header::CONTENT_ENCODING)
            .and_then(|value| Decoding::for_encoding(&String::from_utf8_lossy(value.as_bytes())));
        if decoding.is_some() {
            parts.headers.remove(http::header::CONTENT_ENCODING);
            parts.headers.remove(http::header::CONTENT_LENGTH);
        }
        let mut response = Self {
            status: parts.status,
            headers: parts.headers,
            version: parts.version,
            body,
            lease,
            decoding,
            decoded_to_end: false,
        };
        response.finish_if_done();
        response
    }

    /// Drops the headers once they have been read, for a body that is kept open: header values
    /// are slices of the buffers they were read into (HTTP/2: of the connection's frames) and
    /// would keep those alive for as long as the body is streamed.
    pub fn release_headers(&mut self) {
        self.headers = HeaderMap::new();
    }

    /// The next (decoded) data chunk as soon as it arrives; `None` at the end of the body.
    pub async fn chunk(&mut self) -> Option<Result<Bytes, String>> {
        if self.decoding.is_none() {
            return self.wire_chunk().await;
        }
        loop {
            if self.decoded_to_end {
                return None;
            }
            let decoding = self.decoding.as_mut()?;
            match decoding.output() {
                Ok(Some(piece)) => return Some(Ok(piece)),
                Ok(None) => {}
                Err(error) => return Some(Err(self.broken(error))),
            }
            match self.wire_chunk().await {
                Some(Ok(wire)) => self.decoding.as_mut()?.push(wire),
                Some(Err(error)) => return Some(Err(error)),
                None => {
                    self.decoded_to_end = true;
                    return match self.decoding.as_mut()?.finish() {
                        Ok(last) => last.map(Ok),
                        Err(error) => Some(Err(self.broken(error))),
                    };
                }
            }
        }
    }

    /// A body that cannot be decoded: the connection is not reused.
    fn broken(&mut self, error: String) -> String {
        self.lease = None;
        self.decoded_to_end = true;
        error
    }

    /// The next chunk as it came over the wire.
    async fn wire_chunk(&mut self) -> Option<Result<Bytes, String>> {
        loop {
            match self.body.frame().await {
                None => {
                    self.finish();
                    return None;
                }
                Some(Err(error)) => {
                    self.lease = None;
                    return Some(Err(format!("reading the body failed: {error}")));
                }
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.finish_if_done();
                        if !data.is_empty() {
                            return Some(Ok(data));
                        }
                    }
                }
            }
        }
    }

    /// The whole body, at most `limit` bytes (more is an error).
    pub async fn bytes(mut self, limit: usize) -> Result<Bytes, String> {
        let mut out = BytesMut::new();
        while let Some(chunk) = self.chunk().await {
            let chunk = chunk?;
            if out.len() + chunk.len() > limit {
                return Err(format!("the body is larger than {limit} bytes"));
            }
            out.extend_from_slice(&chunk);
        }
        Ok(out.freeze())
    }

    /// The first `limit` bytes of the body; the rest is not read (error bodies).
    pub async fn prefix(mut self, limit: usize) -> Vec<u8> {
        let mut out = Vec::new();
        while let Some(Ok(chunk)) = self.chunk().await {
            let room = limit.saturating_sub(out.len());
            out.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if out.len() >= limit {
                break;
            }
        }
        out
    }

    fn finish_if_done(&mut self) {
        if http_body::Body::is_end_stream(&self.body) {
            self.finish();
        }
    }

    fn finish(&mut self) {
        if let Some(lease) = self.lease.take() {
            lease.release();
        }
    }
}
