//! A hyper HTTP/1.1 server whose responses follow a `Reply`: SSE with known event counts and
//! gaps, a JSON body, or a bare status.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;

use super::{Server, listener};

type Body = BoxBody<Bytes, Infallible>;

#[derive(Debug, Clone)]
pub struct Sse {
    pub events: usize,
    /// Sleep before every event but the first.
    pub gap: Duration,
    /// Padding bytes in each event's data.
    pub pad: usize,
    /// The last event is `response.failed`.
    pub fail_last: bool,
    /// All events in one body chunk.
    pub one_chunk: bool,
    /// A `: keep-alive` comment block before every event.
    pub comments: bool,
}

impl Sse {
    pub fn events(events: usize) -> Self {
        Self { events, gap: Duration::ZERO, pad: 16, fail_last: false, one_chunk: false, comments: false }
    }
}

#[derive(Debug, Clone)]
pub enum Reply {
    Sse(Sse),
    Json(usize),
    /// An SSE stream sent with a JSON content type (a protocol error in sse mode).
    SseAsJson(Sse),
    Status(StatusCode),
}

/// Serves `reply` to every request; each response carries `x-request-id: req_N`.
pub async fn serve(reply: Reply) -> Server {
    serve_with(reply, true).await
}

/// As `serve`; without keep-alive every response says `connection: close` and the server closes.
pub async fn serve_with(reply: Reply, keep_alive: bool) -> Server {
    let listener = listener().await;
    let addr = listener.local_addr().expect("bound address");
    let reply = Arc::new(reply);
    let counter = Arc::new(AtomicU64::new(0));
    let accept = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let reply = reply.clone();
            let counter = counter.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request: Request<Incoming>| {
                    let reply = reply.clone();
                    let id = counter.fetch_add(1, Ordering::Relaxed);
                    async move { Ok::<_, Infallible>(respond(&reply, id, request).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .keep_alive(keep_alive)
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Server::new(addr, accept)
}

async fn respond(reply: &Reply, id: u64, request: Request<Incoming>) -> Response<Body> {
    // Read the request body fully, as a real server would.
    let _ = request.into_body().collect().await;
    let (status, content_type, body) = match reply {
        Reply::Sse(sse) => (StatusCode::OK, "text/event-stream", sse_body(sse.clone())),
        Reply::SseAsJson(sse) => (StatusCode::OK, "application/json", sse_body(sse.clone())),
        Reply::Json(size) => {
            let mut text = String::from("{\"pad\":\"");
            text.push_str(&"x".repeat(size.saturating_sub(text.len() + 2)));
            text.push_str("\"}");
            (StatusCode::OK, "application/json", Full::new(Bytes::from(text)).boxed())
        }
        Reply::Status(status) => {
            (*status, "application/json", Full::new(Bytes::from_static(b"{\"error\":{}}")).boxed())
        }
    };
    Response::builder()
        .status(status)
        .header("content-type", content_type)
        .header("x-request-id", format!("req_{id}"))
        .body(body)
        .expect("valid response")
}

pub fn event(index: usize, sse: &Sse) -> String {
    let name = if sse.fail_last && index + 1 == sse.events { "response.failed" } else { "response.output_text.delta" };
    let comment = if sse.comments { ": keep-alive\n\n" } else { "" };
    format!("{comment}event: {name}\ndata: {{\"type\":\"{name}\",\"delta\":\"{}\"}}\n\n", "x".repeat(sse.pad))
}

fn sse_body(sse: Sse) -> Body {
    if sse.one_chunk {
        let text: String = (0..sse.events).map(|i| event(i, &sse)).collect();
        return Full::new(Bytes::from(text)).boxed();
    }
    let stream = futures_util::stream::unfold(0usize, move |i| {
        let sse = sse.clone();
        async move {
            if i >= sse.events {
                return None;
            }
            if i > 0 && !sse.gap.is_zero() {
                tokio::time::sleep(sse.gap).await;
            }
            Some((Ok::<_, Infallible>(Frame::data(Bytes::from(event(i, &sse)))), i + 1))
        }
    });
    StreamBody::new(stream).boxed()
}
