//! The HTTP client the OTLP exporter posts with: `opentelemetry_http::HttpClient` over the
//! gateway's one outbound stack, `gateway-transport` (decision 0341), instead of a blocking
//! reqwest client.
//!
//! The SDK's batch processor runs on its own thread and drives each export with a plain
//! `block_on`, outside any tokio runtime, while the transport needs one (its sockets, timers
//! and connection tasks). So each post is spawned onto the runtime the exporter was built on
//! and the exporter's thread waits for its answer: the task is owned by that wait, and bounded
//! by [`EXPORT_TIMEOUT`](super::EXPORT_TIMEOUT) whether or not anyone still waits.

use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use gateway_transport::{HttpClient, HttpRequest};
use opentelemetry_http::{HttpError, Request, Response};

/// The most of a collector's answer read (the status is what the exporter needs).
const ANSWER_LIMIT: usize = 4 * 1024 * 1024;

pub struct ExportClient {
    http: HttpClient,
    runtime: tokio::runtime::Handle,
    timeout: Duration,
}

impl ExportClient {
    /// Posts with `http` on `runtime`, each exchange within `timeout`.
    pub fn new(http: HttpClient, runtime: tokio::runtime::Handle, timeout: Duration) -> Self {
        Self { http, runtime, timeout }
    }
}

impl std::fmt::Debug for ExportClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExportClient").field("timeout", &self.timeout).finish_non_exhaustive()
    }
}

#[async_trait]
impl opentelemetry_http::HttpClient for ExportClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let (parts, body) = request.into_parts();
        let outgoing = HttpRequest { method: parts.method, uri: parts.uri, headers: parts.headers, body: body.into() };
        let (http, timeout) = (self.http.clone(), self.timeout);
        let exchange = self.runtime.spawn(async move { http.fetch(outgoing, None, timeout, ANSWER_LIMIT).await });
        let answer = exchange.await.map_err(|e| format!("the export task ended: {e}"))??;
        let mut response = Response::new(answer.body);
        *response.status_mut() = http::StatusCode::from_u16(answer.status)?;
        *response.headers_mut() = answer.headers;
        Ok(response)
    }
}
