//! A request id on every admin response (`X-Request-Id`, a UUID v7) and on the log lines the
//! request writes, so an error the dashboard shows ("request id …") can be found in the log.

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

pub const REQUEST_ID_HEADER: &str = "x-request-id";

pub async fn tag(request: Request, next: Next) -> Response {
    let id = uuid::Uuid::now_v7().to_string();
    let span = tracing::info_span!("admin_request", request_id = %id);
    let mut response = next.run(request).instrument(span).await;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    response
}
