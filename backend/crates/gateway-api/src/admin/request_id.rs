//! A request id on every admin response (`X-Request-Id`, a UUID v7) and on the log lines the
//! request writes, so an error the dashboard shows ("request id …") can be found in the log;
//! with the trace exporter those lines carry the request's trace id too (decision 0288).

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

pub const REQUEST_ID_HEADER: &str = "x-request-id";

pub async fn tag(request: Request, next: Next) -> Response {
    let id = uuid::Uuid::now_v7().to_string();
    let span = tracing::info_span!("admin_request", request_id = %id, trace_id = tracing::field::Empty);
    if let Some(trace_id) = gateway_core::trace_context::current_trace_id() {
        span.record("trace_id", trace_id.as_str());
    }
    let mut response = next.run(request).instrument(span).await;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    response
}
