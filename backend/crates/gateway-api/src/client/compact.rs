//! `POST /v1/responses/compact` (and `/backend-api/codex/responses/compact`): unary compaction
//! (PROTOCOL §D.3) through the engine as `Operation::ResponsesCompact`. A provider yields the
//! upstream's JSON object as the response of one terminal event; this route answers that object
//! as the upstream sent it (without the `object`/`status` the non-stream aggregation adds).

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Version};
use axum::response::Response;
use bytes::Bytes;
use gateway_core::domain::Transport;
use gateway_core::engine::{InboundRequest, Reply};
use gateway_core::provider::Operation;
use gateway_protocol::request::RequestBody;
use gateway_protocol::{ApiError, ErrorCode};
use serde_json::Value;

use super::{ClientApi, extract, reply};

pub async fn create(State(api): State<ClientApi>, version: Version, headers: HeaderMap, body: Body) -> Response {
    let (api_key, body) =
        match extract::authenticated_body(&api, Operation::ResponsesCompact, version, &headers, body).await {
            Ok(read) => read,
            Err(refused) => return refused,
        };
    if let Ok(view) = RequestBody::parse(&body)
        && view.boolean(&body, "stream").ok().flatten() == Some(true)
    {
        let error = ApiError::new(ErrorCode::InvalidRequest, "Compaction is unary: leave out `stream: true`.");
        return extract::refused(&api, Operation::ResponsesCompact, &error.with_param("stream"));
    }
    let inbound = InboundRequest {
        operation: Operation::ResponsesCompact,
        transport: Transport::Http,
        api_key,
        headers: extract::forwardable_headers(&headers),
        body,
        session: None,
    };
    match api.engine.handle(inbound).await {
        Reply::Json { request_id, status: 200, headers, body } => {
            let body = match serde_json::from_slice::<Value>(&body) {
                Ok(Value::Object(mut object)) => {
                    if object.get("object").and_then(Value::as_str) == Some("response") {
                        object.remove("object");
                    }
                    if object.get("status").and_then(Value::as_str) == Some("completed") {
                        object.remove("status");
                    }
                    Bytes::from(serde_json::to_vec(&object).unwrap_or_default())
                }
                _ => body,
            };
            reply::from_reply(Reply::Json { request_id, status: 200, headers, body })
        }
        other => reply::from_reply(other),
    }
}
