//! `POST /v1/responses`.

use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use gateway_core::domain::Transport;
use gateway_core::engine::InboundRequest;
use gateway_core::provider::Operation;

use super::{ClientApi, extract, reply};

pub async fn create(State(api): State<ClientApi>, headers: HeaderMap, body: Body) -> Response {
    let body = match extract::body(&headers, body, api.body_limit).await {
        Ok(body) => body,
        Err(error) => return reply::error(&error),
    };
    let inbound = InboundRequest {
        operation: Operation::ResponsesCreate,
        transport: Transport::Http,
        api_key: extract::api_key(&headers),
        headers: extract::forwardable_headers(&headers),
        body,
        session: None,
    };
    reply::from_reply(api.engine.handle(inbound).await)
}
