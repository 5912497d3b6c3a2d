//! The WebSocket mode: a connection per task kept across requests; each request sends the body
//! as one text frame and reads frames until a terminal one.
//!
//! Every received text or binary frame is an event. A text frame whose JSON `type` is
//! `response.completed` ends the request successfully; one whose `type` is a failure name
//! (`response.failed`, `error` by default) ends it as `stream_failed`.

use std::sync::Arc;
use std::time::Instant;

use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{Error as WsError, Message, Utf8Bytes};
use tokio_util::sync::CancellationToken;

use crate::classify;
use crate::config::Config;
use crate::http::check_headers;
use crate::stats::{ErrorKind, Stats, Trace};

const COMPLETED: &str = "response.completed";

pub struct WsClient {
    config: Arc<Config>,
    /// Boxed: the stream is large and lives as long as the connection.
    stream: Option<Box<WebSocketStream<TcpStream>>>,
    message: Utf8Bytes,
}

#[derive(Deserialize)]
struct Typed<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<&'a str>,
}

impl WsClient {
    pub fn new(config: Arc<Config>) -> Self {
        let message = Utf8Bytes::try_from(config.body.clone()).expect("config checked that the ws body is UTF-8");
        Self { config, stream: None, message }
    }

    /// One request; `true` when it completed.
    pub async fn request(&mut self, stats: &mut Stats) -> bool {
        let mut trace = Trace::start();
        let timeout = self.config.timeout;
        let outcome = match tokio::time::timeout(timeout, self.exchange(&mut trace, stats)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(ErrorKind::Timeout),
        };
        if matches!(outcome, Err(kind) if kind != ErrorKind::StreamFailed) {
            self.stream = None;
        }
        let completed = outcome.is_ok();
        stats.finish(trace, outcome);
        completed
    }

    /// Keeps the connection open, reading (and so answering pings), until `cancel` fires
    /// (`Ok(true)`), the server closes it (`Ok(false)`) or it breaks.
    pub async fn hold_until(&mut self, cancel: &CancellationToken) -> Result<bool, ErrorKind> {
        let Some(stream) = self.stream.as_mut() else { return Ok(false) };
        loop {
            let message = tokio::select! {
                _ = cancel.cancelled() => return Ok(true),
                message = stream.next() => message,
            };
            match message {
                None | Some(Ok(Message::Close(_))) => return Ok(false),
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(classify::ws_error(&e)),
            }
        }
    }

    async fn exchange(&mut self, trace: &mut Trace, stats: &mut Stats) -> Result<(), ErrorKind> {
        if self.stream.is_none() {
            self.stream = Some(Box::new(self.open(trace, stats).await?));
        }
        let stream = self.stream.as_mut().expect("a stream was kept or just opened");
        stream.send(Message::Text(self.message.clone())).await.map_err(|e| classify::ws_error(&e))?;
        loop {
            let message = match stream.next().await {
                None => return Err(ErrorKind::Reset),
                Some(message) => message.map_err(|e| classify::ws_error(&e))?,
            };
            let now = Instant::now();
            let payload = match &message {
                Message::Text(text) => text.len(),
                Message::Binary(bytes) => bytes.len(),
                Message::Close(_) => return Err(ErrorKind::Reset),
                _ => continue,
            };
            trace.ttfb.get_or_insert_with(|| now.saturating_duration_since(trace.start));
            trace.bytes += payload as u64;
            trace.events_at(now, 1, &mut stats.event_gap);
            if let Message::Text(text) = &message
                && let Some(end) = terminal(&self.config.failure_events, text)
            {
                return end;
            }
        }
    }

    async fn open(&self, trace: &mut Trace, stats: &mut Stats) -> Result<WebSocketStream<TcpStream>, ErrorKind> {
        let began = Instant::now();
        let tcp = TcpStream::connect(self.config.target.addr).await.map_err(|e| classify::connect_error(&e))?;
        tcp.set_nodelay(true).map_err(|e| classify::io_error(&e))?;
        let mut request = self.config.target.url.as_str().into_client_request().map_err(|_| ErrorKind::Protocol)?;
        for (name, value) in &self.config.headers {
            request.headers_mut().append(name, value.clone());
        }
        match tokio_tungstenite::client_async(request, tcp).await {
            Ok((stream, response)) => {
                stats.connections += 1;
                stats.connect.record(began.elapsed());
                stats.count_status(response.status().as_u16());
                check_headers(&self.config, response.headers(), stats);
                Ok(stream)
            }
            Err(WsError::Http(response)) => {
                trace.status = Some(response.status().as_u16());
                check_headers(&self.config, response.headers(), stats);
                Err(ErrorKind::Non2xx)
            }
            Err(e) => Err(classify::ws_error(&e)),
        }
    }
}

/// `Some` when `text` is a terminal frame: its JSON `type` is `response.completed` or a failure name.
fn terminal(failure_names: &[String], text: &str) -> Option<Result<(), ErrorKind>> {
    let kind = serde_json::from_str::<Typed<'_>>(text).ok()?.kind?;
    if kind == COMPLETED {
        Some(Ok(()))
    } else if failure_names.iter().any(|f| f == kind) {
        Some(Err(ErrorKind::StreamFailed))
    } else {
        None
    }
}
