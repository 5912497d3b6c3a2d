//! One response on one upstream socket: send the frame, read until the first content frame
//! (bounded by a timeout) so that errors the backend sends as frames — usage limit,
//! `previous_response_not_found`, the connection-age limit — are classified before anything is
//! committed to the client, then stream the rest.

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use gateway_core::domain::{QuotaFacts, SendState};
use gateway_core::fault::Fault;
use gateway_core::provider::{AttemptFailure, FrameStream, StreamFailure, UpstreamEvent};
use gateway_protocol::events::{event_type, read_facts};
use gateway_protocol::request::SplicedBody;
use gateway_protocol::{ApiError, ErrorCode, EventKind, SseFrame};
use serde_json::Value;
use time::OffsetDateTime;
use tokio::sync::OwnedMutexGuard;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;

use super::connect::Socket;
use super::frame::message_frames;
use super::pool::PooledSocket;
use crate::classify::{classify_close, classify_error_frame, classify_socket_send};
use crate::rate_limits;

/// Why an exchange did not start a stream.
#[derive(Debug)]
pub enum ExchangeFailure {
    /// The socket was dead before the frame left: safe to retry on a fresh socket (when the
    /// request does not depend on this socket's state).
    Stale,
    /// The backend answered with an error frame or closed the socket (1009: the request was too
    /// big), the socket broke after the frame left, or the frame was too big to send.
    Failed(AttemptFailure),
}

/// How long to wait for the socket when another response still holds it.
const LOCK_WAIT: Duration = Duration::from_secs(5);

pub async fn exchange(
    pooled: Arc<PooledSocket>,
    frame: SplicedBody,
    first_frame_timeout: Duration,
    idle_timeout: Duration,
) -> Result<(FrameStream, Option<QuotaFacts>), ExchangeFailure> {
    let mut guard = tokio::time::timeout(LOCK_WAIT, pooled.socket.clone().lock_owned())
        .await
        .map_err(|_| ExchangeFailure::Stale)?;
    let message = message_frames(&frame).ok_or_else(|| ExchangeFailure::Failed(not_utf8()))?;
    if let Err(error) = send_frames(&mut guard, message).await {
        pooled.mark_broken();
        // Too big to send is the request's fault; any other send failure means a dead socket.
        return Err(classify_socket_send(&error).map_or(ExchangeFailure::Stale, ExchangeFailure::Failed));
    }
    let mut quota = None;
    let quota_slot = &mut quota;
    let read_first = async {
        loop {
            match guard.next().await {
                Some(Ok(Message::Text(text))) => {
                    let bytes = text.as_bytes();
                    match event_type(bytes).map(|t| (EventKind::from_type(&t), t)) {
                        Some((EventKind::CodexRateLimits, _)) => {
                            if let Some(facts) = rate_limits::from_event(bytes, OffsetDateTime::now_utc()) {
                                *quota_slot = Some(facts);
                            }
                        }
                        Some((EventKind::CodexMetadata, _)) => {}
                        Some((EventKind::Error, _)) if is_age_limit(bytes) => return Err(None),
                        Some((EventKind::Error, _)) => {
                            return Err(Some(classify_error_frame(bytes, OffsetDateTime::now_utc())));
                        }
                        Some((_, name)) => return Ok(SseFrame::from_event(&name, bytes)),
                        None => return Err(Some(ambiguous("the upstream sent a frame without a type"))),
                    }
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {}
                Some(Ok(Message::Binary(_))) => return Err(Some(ambiguous("the upstream sent a binary frame"))),
                Some(Ok(Message::Close(frame))) => return Err(Some(classify_close(frame.as_ref()))),
                None | Some(Err(_)) => return Err(Some(classify_close(None))),
            }
        }
    };
    let first = match tokio::time::timeout(first_frame_timeout, read_first).await {
        Ok(Ok(first)) => first,
        Ok(Err(None)) => {
            // The socket reached the upstream's connection-age limit: retire it; a fresh one
            // can carry the request unless it depended on this socket's state.
            pooled.mark_broken();
            return Err(ExchangeFailure::Stale);
        }
        Ok(Err(Some(failure))) => {
            if failure.send_state == SendState::Ambiguous {
                pooled.mark_broken();
            }
            return Err(ExchangeFailure::Failed(failure));
        }
        Err(_) => {
            pooled.mark_broken();
            return Err(ExchangeFailure::Failed(ambiguous("no first event within the first-frame timeout")));
        }
    };
    Ok((frames(Reading { guard, pooled, first: Some(first), done: false }, idle_timeout), quota))
}

/// Writes the frames of one message, then flushes.
async fn send_frames(socket: &mut Socket, frames: Vec<Frame>) -> Result<(), tokio_tungstenite::tungstenite::Error> {
    for frame in frames {
        socket.feed(Message::Frame(frame)).await?;
    }
    socket.flush().await
}

/// The socket held for the rest of one response. Dropped before the terminal event (the client
/// went away), the socket still carries the rest of that response: it is retired.
struct Reading {
    guard: OwnedMutexGuard<Socket>,
    pooled: Arc<PooledSocket>,
    first: Option<SseFrame>,
    done: bool,
}

impl Drop for Reading {
    fn drop(&mut self) {
        if !self.done {
            self.pooled.mark_broken();
        }
    }
}

fn frames(reading: Reading, idle: Duration) -> FrameStream {
    futures_util::stream::unfold(reading, move |mut state| async move {
        if state.done {
            return None;
        }
        if let Some(first) = state.first.take() {
            state.note_terminal(&first);
            return Some((Ok(UpstreamEvent::Frame(first)), state));
        }
        loop {
            let next = match tokio::time::timeout(idle, state.guard.next()).await {
                Err(_) => return Some((Err(failure("the upstream socket went idle", true)), state.finish_broken())),
                Ok(next) => next,
            };
            match next {
                Some(Ok(Message::Text(text))) => {
                    let bytes = text.as_bytes();
                    let Some(name) = event_type(bytes) else { continue };
                    match EventKind::from_type(&name) {
                        EventKind::CodexRateLimits => {
                            if let Some(facts) = rate_limits::from_event(bytes, OffsetDateTime::now_utc()) {
                                return Some((Ok(UpstreamEvent::Quota(Box::new(facts))), state));
                            }
                        }
                        EventKind::CodexMetadata => {}
                        _ => {
                            let frame = SseFrame::from_event(&name, bytes);
                            state.note_terminal(&frame);
                            return Some((Ok(UpstreamEvent::Frame(frame)), state));
                        }
                    }
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {}
                Some(Ok(Message::Binary(_) | Message::Close(_))) | None | Some(Err(_)) => {
                    return Some((
                        Err(failure("the upstream socket closed mid-response", false)),
                        state.finish_broken(),
                    ));
                }
            }
        }
    })
    .boxed()
}

impl Reading {
    /// On the terminal event: the socket now holds this response; it is free again.
    fn note_terminal(&mut self, frame: &SseFrame) {
        let Some(name) = frame.event_name() else { return };
        let kind = EventKind::from_type(name);
        if !kind.is_terminal() {
            return;
        }
        self.done = true;
        let continuable = matches!(kind, EventKind::Completed | EventKind::Incomplete);
        let id = continuable.then(|| frame.data().and_then(|d| read_facts(&d).response_id)).flatten();
        self.pooled.completed(id);
    }

    fn finish_broken(mut self) -> Self {
        self.done = true;
        self.pooled.mark_broken();
        self
    }
}

fn failure(message: &str, idle_timeout: bool) -> StreamFailure {
    StreamFailure { message: message.to_owned(), idle_timeout }
}

fn ambiguous(message: &str) -> AttemptFailure {
    AttemptFailure::new(Fault::UpstreamAmbiguous, SendState::Ambiguous, message)
}

fn is_age_limit(bytes: &[u8]) -> bool {
    let value: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    value.pointer("/error/code").and_then(Value::as_str) == Some("websocket_connection_limit_reached")
}

fn not_utf8() -> AttemptFailure {
    let message = "the request is not UTF-8";
    AttemptFailure::rejected(ApiError::new(ErrorCode::InvalidRequest, message), SendState::NotSent, message)
}
