//! `GET /v1/responses` upgraded to a WebSocket: Responses WebSocket mode.
//!
//! Each text frame `{"type":"response.create", …}` is one response; one response at a time per
//! socket; events go back as text frames (the JSON the upstream sent). The socket keeps its own
//! continuation state so `previous_response_id` with only the new input works with
//! `store:false`. Errors come back as the official error frame
//! `{"type":"error","status":N,"error":{…}}`; a binary frame closes the socket (1003).
//!
//! A message larger than `server.request_body_limit_bytes` (the HTTP body limit) gets the error
//! frame 413 `request_too_large` and close 1009. tungstenite itself reads messages up to the
//! limit plus [`LIMIT_MARGIN`], so a message a little over the limit arrives whole and is
//! refused on a socket that can still answer cleanly; one beyond that is refused by tungstenite
//! from its frame header, and the same answer is sent on a best-effort basis (decision 0111).
//! A message is held once: its bytes go to the engine as they came.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade, close_code};
use axum::http::HeaderMap;
use axum::response::Response;
use bytes::Bytes;
use futures_util::StreamExt;
use gateway_core::domain::Transport;
use gateway_core::engine::{Delivery, InboundRequest, Reply, SocketSession};
use gateway_core::provider::Operation;
use gateway_protocol::request::RequestBody;
use gateway_protocol::{ApiError, ErrorCode, SseFrame};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::error::{CapacityError, Error as WsError};

use super::{ClientApi, extract, reply};

/// Conversation ids only need to be unique within this process (they key its socket pool).
static NEXT_CONVERSATION: AtomicU64 = AtomicU64::new(1);

/// Bytes above the body limit that tungstenite still reads whole before we refuse the message.
pub const LIMIT_MARGIN: usize = 1 << 20;

/// How long a refused socket waits for the client's close frame before it is dropped.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

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
        let route = gateway_core::provider::Operation::ResponsesCreate.name();
        api.engine.telemetry.request_refused(route, gateway_core::domain::Transport::Websocket, error.status());
        return reply::error(&error);
    }
    let mut forwarded = extract::forwardable_headers(&headers);
    upgrade_span_as_parent(&mut forwarded);
    let read_limit = api.body_limit.saturating_add(LIMIT_MARGIN);
    upgrade
        .max_message_size(read_limit)
        .max_frame_size(read_limit)
        .on_upgrade(move |socket| session(api, socket, api_key, forwarded))
}

/// With the trace exporter, each turn's `request` span is a child of the upgrade request's server
/// span (ended at the 101; decision 0288): the turns carry that span's `traceparent` in place of
/// the client's, which the server span adopted. Without the exporter nothing changes.
fn upgrade_span_as_parent(headers: &mut Vec<(String, Bytes)>) {
    if let Some(traceparent) = gateway_core::trace_context::current_traceparent() {
        headers.retain(|(name, _)| name != "traceparent");
        headers.push(("traceparent".to_owned(), Bytes::from(traceparent)));
    }
}

async fn session(api: ClientApi, mut socket: WebSocket, api_key: Option<String>, headers: Vec<(String, Bytes)>) {
    let mut state = SocketSession {
        conversation: NEXT_CONVERSATION.fetch_add(1, Ordering::Relaxed),
        last_response: None,
        bound: None,
    };
    loop {
        let body = match receive(&mut socket, api.body_limit).await {
            Incoming::Create(body) => body,
            Incoming::Skip => continue,
            Incoming::End => return,
        };
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
                if forward(&mut socket, &mut body).await.is_err() {
                    return; // the client went away; dropping the delivery records it
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

/// What the next client message asks for.
enum Incoming {
    /// A `response.create` frame: one engine request.
    Create(Bytes),
    /// Nothing to do (control frames, `response.processed`, a refused frame type).
    Skip,
    /// The socket is done (closed, broken or refused).
    End,
}

async fn receive(socket: &mut WebSocket, limit: usize) -> Incoming {
    let text = match socket.recv().await {
        Some(Ok(Message::Text(text))) if text.len() > limit => {
            refuse_too_large(socket, limit).await;
            return Incoming::End;
        }
        Some(Ok(Message::Text(text))) => text,
        Some(Ok(Message::Binary(_))) => {
            let close = CloseFrame { code: close_code::UNSUPPORTED, reason: "binary frames are not supported".into() };
            let _ = socket.send(Message::Close(Some(close))).await;
            return Incoming::End;
        }
        Some(Ok(Message::Ping(_) | Message::Pong(_))) => return Incoming::Skip,
        Some(Err(error)) if over_capacity(&error) => {
            refuse_too_large(socket, limit).await;
            return Incoming::End;
        }
        Some(Ok(Message::Close(_)) | Err(_)) | None => return Incoming::End,
    };
    let body = Bytes::from(text);
    match frame_type(&body).as_deref() {
        Some("response.create") => Incoming::Create(body),
        Some("response.processed") => Incoming::Skip,
        other => {
            let message = format!("Unsupported message type {:?}; send `response.create`.", other.unwrap_or("none"));
            match send_error(socket, &ApiError::new(ErrorCode::InvalidRequest, message)).await {
                Ok(()) => Incoming::Skip,
                Err(_) => Incoming::End,
            }
        }
    }
}

/// Sends the events of one response as text frames (the upstream's JSON as it came).
async fn forward(socket: &mut WebSocket, body: &mut Delivery) -> Result<(), axum::Error> {
    while let Some(Ok(bytes)) = body.next().await {
        let Some(data) = (SseFrame { raw: bytes }).data_bytes() else { continue };
        let text = match Utf8Bytes::try_from(data.clone()) {
            Ok(text) => text,
            Err(_) => Utf8Bytes::from(String::from_utf8_lossy(&data).into_owned()),
        };
        socket.send(Message::Text(text)).await?;
    }
    Ok(())
}

/// tungstenite refused a message or frame larger than its limit.
fn over_capacity(error: &axum::Error) -> bool {
    let source = std::error::Error::source(error);
    matches!(
        source.and_then(|e| e.downcast_ref::<WsError>()),
        Some(WsError::Capacity(CapacityError::MessageTooLong { .. }))
    )
}

/// The error frame 413 `request_too_large`, then close 1009; waits briefly for the client's
/// close so the closing handshake completes.
async fn refuse_too_large(socket: &mut WebSocket, limit: usize) {
    let error = ApiError::new(ErrorCode::RequestTooLarge, format!("The message exceeds the limit of {limit} bytes."));
    if send_error(socket, &error).await.is_err() {
        return;
    }
    let close = CloseFrame { code: close_code::SIZE, reason: "message too big".into() };
    if socket.send(Message::Close(Some(close))).await.is_err() {
        return;
    }
    let _ = tokio::time::timeout(CLOSE_WAIT, async {
        while let Some(Ok(message)) = socket.recv().await {
            if matches!(message, Message::Close(_)) {
                break;
            }
        }
    })
    .await;
}

/// The frame's top-level `type`, read without building a tree of the (possibly large) message.
fn frame_type(body: &[u8]) -> Option<String> {
    let view = RequestBody::parse(body).ok()?;
    view.string(body, "type").ok().flatten()
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
