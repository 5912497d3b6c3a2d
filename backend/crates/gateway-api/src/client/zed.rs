//! `POST /v1/zed/edit-predictions`: a Zed (Qwen FIM) edit prediction run as a non-stream
//! Responses request (`gateway_protocol::zed`); the engine reads the whole upstream answer
//! before anything is committed, so every failure is still a plain HTTP error.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Version};
use axum::response::Response;
use bytes::Bytes;
use gateway_core::domain::Transport;
use gateway_core::engine::{InboundRequest, Reply};
use gateway_core::provider::Operation;
use gateway_protocol::zed::{completion, to_responses};
use gateway_protocol::{ApiError, ErrorCode};

use super::{ClientApi, extract, reply};

pub async fn create(State(api): State<ClientApi>, version: Version, headers: HeaderMap, body: Body) -> Response {
    let (api_key, body) =
        match extract::authenticated_body(&api, Operation::ZedEditPrediction, version, &headers, body).await {
            Ok(read) => read,
            Err(refused) => return refused,
        };
    let request = match to_responses(&body) {
        Ok(request) => request,
        Err(error) => return extract::refused(&api, Operation::ZedEditPrediction, &error),
    };
    let inbound = InboundRequest {
        operation: Operation::ZedEditPrediction,
        transport: Transport::Http,
        api_key,
        headers: extract::forwardable_headers(&headers),
        body: Bytes::from(request.body.clone()),
        session: None,
    };
    match api.engine.handle(inbound).await {
        Reply::Json { request_id, status: 200, headers, body } => {
            let created =
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
            let answer = serde_json::from_slice::<serde_json::Value>(&body)
                .map_err(|_| ApiError::new(ErrorCode::UpstreamError, "The upstream answer could not be read."))
                .and_then(|response| completion(&response, &request, created));
            match answer {
                Ok(answer) => {
                    let body = Bytes::from(serde_json::to_vec(&answer).unwrap_or_default());
                    reply::from_reply(Reply::Json { request_id, status: 200, headers, body })
                }
                Err(error) => reply::from_reply(Reply::error(&error, request_id)),
            }
        }
        other => reply::from_reply(other),
    }
}
