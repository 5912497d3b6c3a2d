//! The optional access log (`tracing.access_log`): tower-http's trace layer with one `info` line
//! per HTTP request — method, path (never the query: it may carry an OAuth code), status,
//! duration, the request id the response carries and the trace id: the client's W3C trace id,
//! or with the trace exporter the id of the request's trace (its server span is outside this
//! layer, decision 0288).

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response};
use tower_http::trace::TraceLayer;
use tracing::Span;

/// `router` with one access-log line per request.
pub fn with_access_log(router: Router) -> Router {
    router.layer(
        TraceLayer::new_for_http()
            .make_span_with(|request: &Request<Body>| {
                let trace_id = gateway_core::trace_context::current_trace_id().unwrap_or_else(|| {
                    let header = request.headers().get("traceparent").and_then(|v| v.to_str().ok());
                    header.and_then(gateway_core::trace_context::trace_id).unwrap_or_default().to_owned()
                });
                tracing::info_span!(
                    "http",
                    method = %request.method(),
                    path = %request.uri().path(),
                    trace_id = %trace_id,
                )
            })
            .on_request(())
            .on_response(|response: &Response<Body>, latency: Duration, _span: &Span| {
                let request_id = response.headers().get("x-request-id").and_then(|v| v.to_str().ok()).unwrap_or("");
                tracing::info!(
                    target: "switchboard::access",
                    status = response.status().as_u16(),
                    duration_ms = latency.as_secs_f64() * 1000.0,
                    request_id,
                    "request served"
                );
            })
            .on_body_chunk(())
            .on_eos(())
            .on_failure(()),
    )
}
