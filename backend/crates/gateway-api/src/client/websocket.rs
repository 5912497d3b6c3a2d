//! `GET /v1/responses` upgraded to a WebSocket: Responses WebSocket mode.
//!
//! Each text frame `{"type":"response.create", …}` is one response; one response at a time per
//! socket; events go back as text frames (the JSON the upstream sent). The socket keeps its own
//! continuation state so `previous_response_id` with only the new input works with
//! `store:false`. Errors come back as the official error frame
//! `{"type":"error","status":N,"error":{…}}`; a binary frame closes the socket (1003).

use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::State;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade, close_code};
use axum::http::HeaderMap;
use axum::response::Response;
use bytes::Bytes;
use futures_util::StreamExt;
use gateway_core::domain::Transport;
use gateway_core::engine::{InboundRequest, Reply, SocketSession};
use gateway_core::provider::Operation;
use gateway_protocol::{ApiError, ErrorCode, SseFrame};
use serde_json::{Value, json};

use super::{ClientApi, extract, reply};

/// Conversation ids only need to be unique within this process (they key its socket pool).
static NEXT_CONVERSATION: AtomicU64 = AtomicU64::new(1);

pub async fn upgrade(
    State(api): State<ClientApi>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        Err(_) => {
            return reply::error(&ApiError::new(
                ErrorCode::MethodNotAllowed,
                "GET /v1/responses is the WebSocket mode: send an upgrade request, or POST for HTTP.",
            ));
        }
    };
    let api_key = extract::api_key(&headers);
    if let Err(error) = api.engine.authenticate(api_key.as_deref()) {
        return reply::error(&error);
    }
    let forwarded = extract::forwardable_headers(&headers);
    upgrade.on_upgrade(move |socket| session(api, socket, api_key, forwarded))
}

async fn session(api: ClientApi, mut socket: WebSocket, api_key: Option<String>, headers: Vec<(String, Bytes)>) {
    let mut state = SocketSession {
        conversation: NEXT_CONVERSATION.fetch_add(1, Ordering::Relaxed),
        last_response: None,
        bound: None,
    };
    while let Some(message) = socket.recv().await {
        let text = match message {
            Ok(Message::Text(text)) => text,
            Ok(Message::Binary(_)) => {
                let close =
                    CloseFrame { code: close_code::UNSUPPORTED, reason: "binary frames are not supported".into() };
                let _ = socket.send(Message::Close(Some(close))).await;
                return;
            }
            Ok(Message::Ping(_) | Message::Pong(_)) => continue,
            Ok(Message::Close(_)) | Err(_) => return,
        };
        let body = Bytes::from(text.as_str().to_owned());
        match frame_type(&body).as_deref() {
            Some("response.create") => {}
            Some("response.processed") => continue,
            other => {
                let message =
                    format!("Unsupported message type {:?}; send `response.create`.", other.unwrap_or("none"));
                if send_error(&mut socket, &ApiError::new(ErrorCode::InvalidRequest, message)).await.is_err() {
                    return;
                }
                continue;
            }
        }
        let inbound = InboundRequest {
            operation: Operation::ResponsesCreate,
            transport: Transport::Websocket,
            api_key: api_key.clone(),
            headers: headers.clone(),
            body,
            session: Some(state.clone()),
        };
        match api.engine.handle(inbound).await {
            Reply::Stream { mut body, .. } => {
                while let Some(Ok(bytes)) = body.next().await {
                    let frame = SseFrame { raw: bytes };
                    let Some(data) = frame.data() else { continue };
                    let text = String::from_utf8_lossy(&data).into_owned();
                    if socket.send(Message::text(text)).await.is_err() {
                        return; // the client went away; dropping the delivery records it
                    }
                }
                if body.continuable()
                    && let Some(id) = body.response_id()
                {
                    state.last_response = Some(id.to_owned());
                    state.bound = Some(body.served_by());
                }
            }
            Reply::Json { status, body, .. } => {
                if send_error_body(&mut socket, status, &body).await.is_err() {
                    return;
                }
            }
        }
    }
}

fn frame_type(body: &[u8]) -> Option<String> {
    serde_json::from_slice::<Value>(body).ok()?.get("type")?.as_str().map(str::to_owned)
}

async fn send_error(socket: &mut WebSocket, error: &ApiError) -> Result<(), axum::Error> {
    send_error_body(socket, error.status(), &error.body()).await
}

/// The official error frame: `{"type":"error","status":N,"error":{…}}`.
async fn send_error_body(socket: &mut WebSocket, status: u16, body: &[u8]) -> Result<(), axum::Error> {
    let error = serde_json::from_slice::<Value>(body).ok().and_then(|v| v.get("error").cloned()).unwrap_or(Value::Null);
    let frame = json!({"type": "error", "status": status, "error": error});
    socket.send(Message::text(frame.to_string())).await
}
