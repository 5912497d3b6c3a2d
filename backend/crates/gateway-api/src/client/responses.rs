//! `POST /v1/responses`.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Version};
use axum::response::Response;
use gateway_core::domain::Transport;
use gateway_core::engine::InboundRequest;
use gateway_core::provider::Operation;

use super::{ClientApi, extract, reply};

pub async fn create(State(api): State<ClientApi>, version: Version, headers: HeaderMap, body: Body) -> Response {
    // The key is checked from the headers before a byte of the body is read: a refused upload
    // costs no buffer. (The engine checks it again against the snapshot it freezes, so a key
    // revoked while its body arrives is still refused.)
    let api_key = extract::api_key(&headers);
    let refused = |error: &gateway_protocol::ApiError| {
        let (route, transport) = (Operation::ResponsesCreate.name(), Transport::Http);
        api.engine.telemetry.request_refused(route, transport, error.status());
        reply::closing(reply::error(error), version)
    };
    if let Err(error) = api.engine.authenticate(api_key.as_deref()) {
        return refused(&error);
    }
    let body = match extract::body(&headers, body, api.body_limit).await {
        Ok(body) => body,
        // Unread, half read or broken: the connection is not reused.
        Err(error) => return refused(&error),
    };
    let inbound = InboundRequest {
        operation: Operation::ResponsesCreate,
        transport: Transport::Http,
        api_key,
        headers: extract::forwardable_headers(&headers),
        body,
        session: None,
    };
    reply::from_reply(api.engine.handle(inbound).await)
}
