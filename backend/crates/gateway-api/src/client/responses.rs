//! `POST /v1/responses`, and `POST /v1/responses/review`: the same contract, marked as a
//! review sub-agent turn (`x-openai-subagent: review`, what Codex's `/review` sends).

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Version};
use axum::response::Response;
use bytes::Bytes;
use gateway_core::domain::Transport;
use gateway_core::engine::InboundRequest;
use gateway_core::provider::Operation;

use super::{ClientApi, extract, reply};

pub async fn create(State(api): State<ClientApi>, version: Version, headers: HeaderMap, body: Body) -> Response {
    run(api, version, headers, body, Operation::ResponsesCreate).await
}

pub async fn review(State(api): State<ClientApi>, version: Version, headers: HeaderMap, body: Body) -> Response {
    run(api, version, headers, body, Operation::ResponsesReview).await
}

async fn run(api: ClientApi, version: Version, headers: HeaderMap, body: Body, operation: Operation) -> Response {
    // The key is checked from the headers before a byte of the body is read: a refused upload
    // costs no buffer. (The engine checks it again against the snapshot it freezes, so a key
    // revoked while its body arrives is still refused.)
    let api_key = extract::api_key(&headers);
    let refused =
        |error: &gateway_protocol::ApiError| reply::closing(extract::refused(&api, operation, error), version);
    if let Err(error) = api.engine.authenticate(api_key.as_deref()) {
        return refused(&error);
    }
    let body = match extract::body(&headers, body, api.body_limit).await {
        Ok(body) => body,
        // Unread, half read or broken: the connection is not reused.
        Err(error) => return refused(&error),
    };
    let mut forwarded = extract::forwardable_headers(&headers);
    if operation == Operation::ResponsesReview {
        forwarded.retain(|(name, _)| name != "x-openai-subagent");
        forwarded.push(("x-openai-subagent".to_owned(), Bytes::from_static(b"review")));
    }
    let inbound =
        InboundRequest { operation, transport: Transport::Http, api_key, headers: forwarded, body, session: None };
    reply::from_reply(api.engine.handle(inbound).await)
}
