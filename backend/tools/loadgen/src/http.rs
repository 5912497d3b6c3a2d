//! The SSE and JSON modes: one request on a keep-alive connection, its response headers checked
//! and its body read to the end (SSE bodies scanned for events as the chunks arrive).

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http::header::{CONTENT_TYPE, HOST};
use http::{HeaderMap, Request, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;

use crate::classify;
use crate::config::{Config, Mode};
use crate::connection::{HttpConnection, RequestBody};
use crate::sse::EventScanner;
use crate::stats::{ErrorKind, Stats, Trace};

/// The part of a response that is known once its headers arrive.
pub struct Head {
    pub status: StatusCode,
    pub event_stream: bool,
    pub json: bool,
}

pub struct HttpClient {
    config: Arc<Config>,
    connection: Option<HttpConnection>,
    scanner: EventScanner,
}

impl HttpClient {
    pub fn new(config: Arc<Config>) -> Self {
        let scanner = EventScanner::new(&config.failure_events);
        Self { config, connection: None, scanner }
    }

    /// Makes one request and folds its outcome into `stats`.
    pub async fn request(&mut self, stats: &mut Stats) {
        let mut trace = Trace::start();
        let timeout = self.config.timeout;
        let outcome = match tokio::time::timeout(timeout, self.exchange(&mut trace, stats)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(ErrorKind::Timeout),
        };
        // The body was read to its end for these two; any other failure leaves the connection
        // in an unknown state.
        if matches!(outcome, Err(kind) if kind != ErrorKind::Non2xx && kind != ErrorKind::StreamFailed) {
            self.connection = None;
        }
        stats.finish(trace, outcome);
    }

    async fn exchange(&mut self, trace: &mut Trace, stats: &mut Stats) -> Result<(), ErrorKind> {
        let (head, mut body) = self.start(trace, stats).await?;
        let sse = self.config.mode == Mode::Sse && head.event_stream;
        self.scanner.reset();
        let mut failed_events = 0;
        while let Some(chunk) = self.next_chunk(&mut body).await? {
            trace.bytes += chunk.len() as u64;
            if sse {
                let scan = self.scanner.feed(&chunk);
                trace.events_at(Instant::now(), scan.events, &mut stats.event_gap);
                failed_events += scan.failed;
            }
        }
        if !head.status.is_success() {
            return Err(ErrorKind::Non2xx);
        }
        match self.config.mode {
            Mode::Sse if !head.event_stream || self.scanner.has_partial_event() => Err(ErrorKind::Protocol),
            Mode::Json if !head.json => Err(ErrorKind::Protocol),
            _ if failed_events > 0 => Err(ErrorKind::StreamFailed),
            _ => Ok(()),
        }
    }

    /// Sends the request on a ready connection (opening one if needed) and waits for the
    /// response headers: records time to first byte, status and the expected-header checks.
    pub async fn start(&mut self, trace: &mut Trace, stats: &mut Stats) -> Result<(Head, Incoming), ErrorKind> {
        let request = self.build_request();
        let connection = self.ready_connection(stats).await?;
        let response = connection.send(request).await.map_err(|e| classify::hyper_error(&e))?;
        trace.ttfb = Some(trace.start.elapsed());
        let status = response.status();
        trace.status = Some(status.as_u16());
        check_headers(&self.config, response.headers(), stats);
        let content_type = response.headers().get(CONTENT_TYPE).map(|v| v.as_bytes()).unwrap_or_default();
        let head = Head {
            status,
            event_stream: content_type.starts_with(b"text/event-stream"),
            json: content_type.starts_with(b"application/json"),
        };
        Ok((head, response.into_body()))
    }

    /// The next data chunk of `body`, `None` at its end.
    pub async fn next_chunk(&mut self, body: &mut Incoming) -> Result<Option<Bytes>, ErrorKind> {
        let connection = self.connection.as_mut().ok_or(ErrorKind::Reset)?;
        loop {
            match connection.frame(body).await {
                None => return Ok(None),
                Some(Err(e)) => return Err(classify::hyper_error(&e)),
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        return Ok(Some(data));
                    }
                }
            }
        }
    }

    pub fn event_scanner(&mut self) -> &mut EventScanner {
        &mut self.scanner
    }

    async fn ready_connection(&mut self, stats: &mut Stats) -> Result<&mut HttpConnection, ErrorKind> {
        let reusable = match self.connection.as_mut() {
            Some(connection) => connection.ready().await,
            None => false,
        };
        if !reusable {
            self.connection = None;
            let began = Instant::now();
            let connection =
                HttpConnection::open(self.config.target.addr).await.map_err(|e| classify::connect_error(&e))?;
            stats.connections += 1;
            stats.connect.record(began.elapsed());
            self.connection = Some(connection);
        }
        Ok(self.connection.as_mut().expect("a connection was kept or just opened"))
    }

    fn build_request(&self) -> Request<RequestBody> {
        let config = &self.config;
        let mut request = Request::new(Full::new(config.body.clone()));
        *request.method_mut() = config.method.clone();
        *request.uri_mut() = config.target.path.clone();
        let headers = request.headers_mut();
        headers.reserve(config.headers.len() + 1);
        headers.insert(HOST, config.target.authority.clone());
        for (name, value) in &config.headers {
            headers.append(name, value.clone());
        }
        request
    }
}

/// Counts one header check and, per `--expect-header`, a violation when it does not hold.
pub fn check_headers(config: &Config, headers: &HeaderMap, stats: &mut Stats) {
    if config.expectations.is_empty() {
        return;
    }
    stats.header_checks += 1;
    for (expectation, violations) in config.expectations.iter().zip(stats.header_violations.iter_mut()) {
        if !expectation.holds(headers) {
            *violations += 1;
        }
    }
}
