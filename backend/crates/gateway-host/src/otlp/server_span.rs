//! One OpenTelemetry server span per HTTP request (decision 0288), from tower-http's trace
//! layer: named `{method} {route}` after the matched axum route template (only the method when
//! no route matched, as for the dashboard's fallback), never the raw path or the query. The
//! span adopts the client's `traceparent`/`tracestate`; the engine's `request` span, the admin
//! API's `admin_request` span and the access log's span are its children. Installed only with
//! the exporter ([`TraceExport::instrument`](super::TraceExport::instrument)) and under
//! [`TARGET`], which the logger turns off: without the exporter nothing of it exists.

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::MatchedPath;
use axum::http::{Method, Request, Response};
use tower_http::trace::TraceLayer;
use tracing::Span;
use tracing::field::Empty;

/// The target of the server spans.
pub const TARGET: &str = "switchboard::http";

/// `router` with a server span around each request (every route and the fallback).
pub fn with_server_spans(router: Router) -> Router {
    router.layer(
        TraceLayer::new_for_http()
            .make_span_with(server_span)
            .on_request(())
            .on_response(|response: &Response<Body>, _latency: Duration, span: &Span| {
                let status = response.status();
                span.record("http.response.status_code", status.as_u16());
                if status.is_server_error() {
                    span.record("otel.status_code", "error");
                }
            })
            .on_body_chunk(())
            .on_eos(())
            .on_failure(()),
    )
}

fn server_span(request: &Request<Body>) -> Span {
    let method = method_name(request.method());
    let route = request.extensions().get::<MatchedPath>().map(MatchedPath::as_str);
    let name = match route {
        Some(route) => format!("{method} {route}"),
        None => method.to_owned(),
    };
    let span = tracing::info_span!(
        target: TARGET,
        "http",
        otel.name = name.as_str(),
        otel.kind = "server",
        otel.status_code = Empty,
        http.request.method = method,
        http.route = route,
        http.response.status_code = Empty,
    );
    let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok());
    if let Some(traceparent) = header("traceparent").filter(|tp| gateway_core::trace_context::trace_id(tp).is_some()) {
        super::adopt(&span, traceparent, header("tracestate"));
    }
    span
}

/// The method as OpenTelemetry names it: a known method, or `_OTHER` (bounded cardinality).
fn method_name(method: &Method) -> &'static str {
    match method.as_str() {
        "GET" => "GET",
        "HEAD" => "HEAD",
        "POST" => "POST",
        "PUT" => "PUT",
        "DELETE" => "DELETE",
        "CONNECT" => "CONNECT",
        "OPTIONS" => "OPTIONS",
        "TRACE" => "TRACE",
        "PATCH" => "PATCH",
        _ => "_OTHER",
    }
}
