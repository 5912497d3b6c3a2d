//! `POST /v1/chat/completions`: the Chat Completions body is converted to a Responses body
//! (`gateway_protocol::chat`), run by the engine like `POST /v1/responses` (failover before
//! the commit, the commit barrier, accounting), and its answer converted back: the aggregated
//! response object into a `chat.completion`, the event stream into chunks ([`ChatStream`]).

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Version};
use axum::response::Response;
use bytes::Bytes;
use futures_util::Stream;
use gateway_core::domain::Transport;
use gateway_core::engine::{Delivery, InboundRequest, Reply};
use gateway_core::provider::Operation;
use gateway_protocol::chat::{ChatRequest, ChunkTranslator, completion_from_response, to_responses};
use gateway_protocol::{ApiError, ErrorCode, SseFramer};

use super::{ClientApi, extract, reply};

pub async fn create(State(api): State<ClientApi>, version: Version, headers: HeaderMap, body: Body) -> Response {
    let (api_key, body) =
        match extract::authenticated_body(&api, Operation::ChatCompletions, version, &headers, body).await {
            Ok(read) => read,
            Err(refused) => return refused,
        };
    let chat = match to_responses(&body) {
        Ok(chat) => chat,
        Err(error) => return extract::refused(&api, Operation::ChatCompletions, &error),
    };
    let inbound = InboundRequest {
        operation: Operation::ChatCompletions,
        transport: Transport::Http,
        api_key,
        headers: extract::forwardable_headers(&headers),
        body: Bytes::from(chat.body.clone()),
        session: None,
    };
    answer(api.engine.handle(inbound).await, chat)
}

/// The engine's reply in Chat Completions terms.
fn answer(engine_reply: Reply, chat: ChatRequest) -> Response {
    let created = now();
    match engine_reply {
        Reply::Stream { request_id, headers, body } => {
            let translator = ChunkTranslator::new(chat.model, chat.stop, chat.include_usage, created);
            let stream = ChatStream { inner: body, framer: SseFramer::new(), translator, ended: false };
            reply::build(200, &headers, Some(request_id), Body::from_stream(stream))
        }
        Reply::Json { request_id, status: 200, headers, body } => {
            let Ok(response) = serde_json::from_slice::<serde_json::Value>(&body) else {
                let error = ApiError::new(ErrorCode::UpstreamError, "The upstream answer could not be read.");
                return reply::from_reply(Reply::error(&error, request_id));
            };
            let completion = completion_from_response(&response, &chat.model, &chat.stop, created);
            let body = Bytes::from(serde_json::to_vec(&completion).unwrap_or_default());
            reply::from_reply(Reply::Json { request_id, status: 200, headers, body })
        }
        error => reply::from_reply(error),
    }
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// The engine's Responses event stream as Chat Completions chunks. It reads the upstream to its
/// end even after the last chunk (a stop match): the delivery then records the terminal state
/// and usage.
struct ChatStream {
    inner: Box<Delivery>,
    framer: SseFramer,
    translator: ChunkTranslator,
    ended: bool,
}

impl Stream for ChatStream {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            while let Ok(Some(frame)) = this.framer.next_frame() {
                let out = this.translator.push(&frame);
                if !out.is_empty() {
                    return Poll::Ready(Some(Ok(Bytes::from(out))));
                }
            }
            if this.ended {
                return Poll::Ready(None);
            }
            match Pin::new(&mut *this.inner).poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(bytes))) => this.framer.push(&bytes),
                Poll::Ready(None) => {
                    this.ended = true;
                    if this.framer.has_remainder() {
                        let rest = this.framer.take_remainder();
                        this.framer.push(&rest);
                        this.framer.push(b"\n\n");
                    }
                    let out = this.translator.end_early();
                    if !out.is_empty() {
                        return Poll::Ready(Some(Ok(Bytes::from(out))));
                    }
                }
            }
        }
    }
}
